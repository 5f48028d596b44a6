"""Feature-map helpers on extreme input: finite answers for any magnitude, clear errors
for bad types."""

from __future__ import annotations

import pytest

from kernelkit.features import jl_failure_bound, pad_to_power_of_two


@pytest.mark.parametrize(
    ("n", "m", "expected"),
    [(10**300, 10, 1.0), (10**20, 10**6, 0.0), (10, 10**300, 0.0), (10, 10**400, 0.0)],
)
def test_jl_failure_bound_for_any_sizes(n, m, expected):
    assert jl_failure_bound(n, m, 0.1) == expected


def test_jl_failure_bound_for_many_points_is_the_union_bound():
    # C(n, 2) beyond 2^100 pairs: computed in logs, the same value as the exact product
    n, m, eps = 10**17, 3000, 0.5
    small = jl_failure_bound(2**20, m, eps)
    pairs_ratio = (n * (n - 1)) / (2**20 * (2**20 - 1))
    assert jl_failure_bound(n, m, eps) == pytest.approx(small * pairs_ratio, rel=1e-9, abs=0)


@pytest.mark.parametrize("bad", [None, "abc"])
def test_pad_to_power_of_two_refuses_non_arrays(bad):
    with pytest.raises(TypeError, match="X must be an array of numbers"):
        pad_to_power_of_two(bad)
