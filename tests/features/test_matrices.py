"""Random matrices: distributions (seeded moment / KS checks) and structured products."""

from __future__ import annotations

import re

import numpy as np
import pytest
import scipy.sparse as sp
from scipy import stats
from scipy.linalg import hadamard

from kernelkit import _memory
from kernelkit._memory import check_memory, format_bytes, memory_limit
from kernelkit.features.matrices import (
    COUPLING_ALIASES,
    COUPLINGS,
    PROJECTION_COUPLINGS,
    SUBSAMPLING,
    apply_matrix,
    fjlt_matrix,
    gaussian_matrix,
    gaussian_orthogonal_matrix,
    haar_rows,
    hadamard_rademacher,
    resolve_coupling,
    sample_matrix,
    sparse_matrix,
)

PHASES = np.array([1.0, 1.0j, -1.0, -1.0j])


def _within(samples: np.ndarray, truth: float, k: float = 4.0) -> None:
    """|mean - truth| < k standard errors (from the samples' own spread)."""
    samples = np.asarray(samples, dtype=float)
    se = samples.std(ddof=1) / np.sqrt(samples.size)
    assert abs(samples.mean() - truth) < k * se, (samples.mean(), truth, se)


# ---------------------------------------------------------------------------- G_ort
def test_gaussian_orthogonal_rows_orthogonal_within_blocks() -> None:
    d, m = 6, 16  # blocks of 6, 6, 4 rows
    W = gaussian_orthogonal_matrix(m, d, random_state=0)
    assert W.shape == (m, d)
    for start in (0, 6, 12):
        B = W[start : start + d]
        G = B @ B.T
        np.testing.assert_allclose(G - np.diag(np.diag(G)), 0, atol=1e-12)
    # across blocks rows are not orthogonal
    assert abs(W[0] @ W[6]) > 1e-6


def test_gaussian_orthogonal_blocks_independent() -> None:
    # independent unit vectors: E (u.v)^2 = 1/d; within a block it is 0
    d, n_pairs = 5, 3000
    U = haar_rows(2 * d * n_pairs, d, random_state=0).reshape(n_pairs, 2, d, d)
    _within(np.einsum("ij,ij->i", U[:, 0, 0], U[:, 1, 0]) ** 2, 1.0 / d)
    _within(np.einsum("ij,ij->i", U[:, 0, 0], U[:, 1, 3]) ** 2, 1.0 / d)


def test_gaussian_orthogonal_row_norms_are_chi_d() -> None:
    d = 7
    norms = np.linalg.norm(gaussian_orthogonal_matrix(3000, d, random_state=0), axis=1)
    assert stats.kstest(norms, stats.chi(d).cdf).pvalue > 1e-3
    # a wrong law is caught: chi_{d+1} norms fail the same test
    assert stats.kstest(norms, stats.chi(d + 1).cdf).pvalue < 1e-3
    U = haar_rows(10, d, random_state=0)
    np.testing.assert_allclose(np.linalg.norm(U, axis=1), 1.0, atol=1e-12)


def test_haar_first_row_direction_uniform_on_sphere() -> None:
    # Uniform u on S^{d-1}: E u_1 = 0 (fails without the sign fix of QR: LAPACK makes the
    # first entry of Q negative), E u_1^2 = 1/d, E u_1^4 = 3 / (d (d + 2)), E u_1 u_2 = 0.
    d, n = 4, 5000
    blocks = haar_rows(d * n, d, random_state=0).reshape(n, d, d)  # n independent blocks
    U = blocks[:, 0]
    _within(U[:, 0], 0.0)
    _within(U[:, 1], 0.0)
    _within(U[:, 0] ** 2, 1.0 / d)
    _within(U[:, 0] ** 4, 3.0 / (d * (d + 2)))
    _within(U[:, 0] * U[:, 1], 0.0)
    # and the last row too (the whole frame is Haar, not just the first row)
    last = blocks[:, -1]
    _within(last[:, 2], 0.0)
    _within(last[:, 2] ** 2, 1.0 / d)


def test_gaussian_matrix_moments() -> None:
    G = gaussian_matrix(200, 300, random_state=0)
    assert G.shape == (200, 300)
    assert abs(G.mean()) < 4 / np.sqrt(G.size)
    assert abs(G.var() - 1) < 4 * np.sqrt(2 / G.size)


# ---------------------------------------------------------------------------- Hadamard
def _dense_hadamard_rademacher(A) -> np.ndarray:
    """P S D_k ... S D_1 built from scipy's Hadamard matrix and A's stored signs."""
    D = A.d_pad
    S = hadamard(D) / np.sqrt(D)
    blocks = []
    for b, keep in enumerate(A.rows):
        M = np.eye(D, dtype=complex)
        for signs in A.signs[b]:
            M = S @ (signs[:, None] * M)
        if A.phases is not None:
            M = S @ (PHASES[A.phases[b]][:, None] * M)
        M = M[:, : A.d]
        blocks.append(M if keep is None else M[keep])
    out = np.vstack(blocks)
    return out if A.phases is not None else out.real


CASES = [(m, d, k) for (m, d) in [(3, 8), (5, 13), (40, 16), (20, 100)] for k in (3,)]
CASES += [(5, 13, k) for k in (1, 2, 4)] + [(40, 16, k) for k in (1, 2, 4)]


@pytest.mark.parametrize("subsampling", SUBSAMPLING)
@pytest.mark.parametrize("hybrid", [False, True])
@pytest.mark.parametrize(("m", "d", "k"), CASES)
def test_hadamard_apply_equals_dense_product(subsampling, k, hybrid, m, d) -> None:
    A = hadamard_rademacher(
        m, d, random_state=k, n_blocks=k, subsampling=subsampling, hybrid=hybrid
    )
    M = _dense_hadamard_rademacher(A)
    assert A.shape == (m, d) and M.shape == (m, d)
    X = np.random.default_rng(0).standard_normal((11, d))
    np.testing.assert_allclose(A.apply(X), X @ M.T, atol=1e-12)
    np.testing.assert_allclose(A.to_dense(), M, atol=1e-12)
    Y32 = A.apply(X.astype(np.float32))
    assert Y32.dtype == (np.complex64 if hybrid else np.float32)
    np.testing.assert_allclose(Y32, X @ M.T, atol=1e-4)
    np.testing.assert_allclose(A.apply(X, n_jobs=2), X @ M.T, atol=1e-12)


def test_hadamard_rows_unit_norm_and_orthogonal_within_block() -> None:
    A = hadamard_rademacher(24, 16, random_state=0)  # one full block of 16 + 8 rows
    M = A.to_dense()
    np.testing.assert_allclose(M[:16] @ M[:16].T, np.eye(16), atol=1e-12)
    np.testing.assert_allclose(np.linalg.norm(M, axis=1), 1.0)
    H = hadamard_rademacher(16, 16, random_state=0, hybrid=True).to_dense()
    np.testing.assert_allclose(H.conj() @ H.T, np.eye(16), atol=1e-12)  # unitary


def test_hadamard_subsampling_policies() -> None:
    d, m = 64, 40
    rows = {s: hadamard_rademacher(m, d, 0, subsampling=s).rows[0] for s in SUBSAMPLING}
    np.testing.assert_array_equal(rows["first"], np.arange(m))
    assert len(np.unique(rows["without_replacement"])) == m
    assert rows["without_replacement"].max() >= m  # not just the first rows
    # with replacement: over seeds, duplicates appear (P(no repeat) ~ 1e-6 for 40 of 64)
    assert len(np.unique(rows["with_replacement"])) < m
    # with replacement applies to full blocks too; the others keep every row
    assert hadamard_rademacher(64, 64, 0, subsampling="with_replacement").rows[0] is not None
    assert hadamard_rademacher(64, 64, 0).rows[0] is None


def test_hadamard_stores_o_kd_numbers() -> None:
    A = hadamard_rademacher(4096, 1024, random_state=0, n_blocks=3)
    assert A.signs.dtype == np.int8 and A.signs.shape == (4, 3, 1024)
    assert A.n_parameter_bytes == 4 * 3 * 1024
    arrays = [A.signs, A.phases, *A.rows]
    assert sum(a.size for a in arrays if a is not None) <= 3 * 4096
    B = hadamard_rademacher(100, 1000, random_state=0, hybrid=True)
    assert B.n_parameter_bytes == 2 * 1024 + 1024 + 100 * 4  # signs, phases, rows


def test_hadamard_rademacher_entries_are_signs_over_sqrt_d_for_one_block() -> None:
    M = hadamard_rademacher(8, 8, random_state=3, n_blocks=1).to_dense()
    np.testing.assert_allclose(np.abs(M), 1 / np.sqrt(8))


# ---------------------------------------------------------------------------- sparse, FJLT
@pytest.mark.parametrize(
    ("density", "s"), [("achlioptas", 1 / 3), ("li", 1 / np.sqrt(400)), ("auto", 0.05), (0.2, 0.2)]
)
def test_sparse_matrix_density_and_variance(density, s) -> None:
    m, d = 300, 400
    A = sparse_matrix(m, d, random_state=0, density=density)
    assert sp.issparse(A) and A.shape == (m, d)
    n = m * d
    assert abs(A.nnz / n - s) < 4 * np.sqrt(s * (1 - s) / n)
    np.testing.assert_allclose(np.abs(A.data), 1 / np.sqrt(s))
    vals = A.toarray().ravel()
    _within(vals, 0.0)
    _within(vals**2, 1.0)
    if density == "achlioptas":
        np.testing.assert_allclose(np.abs(A.data), np.sqrt(3))
        # +1 and -1 each with probability 1/6
        frac_pos = (A.data > 0).sum() / n
        assert abs(frac_pos - 1 / 6) < 4 * np.sqrt((1 / 6) * (5 / 6) / n)


def test_fjlt_apply_and_entry_variance() -> None:
    F = fjlt_matrix(64, 100, random_state=0, n_points=1000)
    assert F.d_pad == 128
    assert F.q == pytest.approx(min(np.log(1000) ** 2 / 128, 1.0))
    X = np.random.default_rng(0).standard_normal((7, 100))
    M = F.to_dense()
    np.testing.assert_allclose(F.apply(X), X @ M.T, atol=1e-12)
    # P H D from its parts
    H = hadamard(128) / np.sqrt(128)
    dense = (F.P.toarray() @ H @ np.diag(F.signs.astype(float)))[:, :100]
    np.testing.assert_allclose(M, dense, atol=1e-12)
    # entries of P H D: mean 0, variance 1 (given D, over P; uncorrelated entries)
    vals = fjlt_matrix(3000, 32, random_state=1, q=0.25).to_dense().ravel()
    _within(vals, 0.0)
    _within(vals**2, 1.0)


@pytest.mark.parametrize("coupling", PROJECTION_COUPLINGS)
def test_sample_and_apply_any_coupling(coupling) -> None:
    A = sample_matrix(coupling, 12, 20, random_state=0)
    X = np.random.default_rng(1).standard_normal((3, 20))
    Y = apply_matrix(A, X)
    assert Y.shape == (3, 12)
    dense = A.toarray() if sp.issparse(A) else (A.to_dense() if hasattr(A, "to_dense") else A)
    np.testing.assert_allclose(Y, X @ dense.T, atol=1e-12)
    B = sample_matrix(coupling, 12, 20, random_state=0)
    np.testing.assert_array_equal(apply_matrix(B, X), Y)  # seeded: reproducible


def test_couplings_and_their_aliases() -> None:
    assert COUPLINGS == ("iid", "orthogonal", "hadamard")
    assert PROJECTION_COUPLINGS[:3] == COUPLINGS
    assert set(PROJECTION_COUPLINGS[3:]) == {"hybrid", "sparse", "fjlt"}
    assert dict(COUPLING_ALIASES) == {"orf": "orthogonal", "sorf": "hadamard"}
    for name in PROJECTION_COUPLINGS:
        assert resolve_coupling(name, PROJECTION_COUPLINGS) == name
    assert resolve_coupling("orf") == "orthogonal"
    assert resolve_coupling("sorf", PROJECTION_COUPLINGS) == "hadamard"
    # an alias draws the matrix of the coupling it names
    X = np.random.default_rng(2).standard_normal((3, 8))
    for alias, name in COUPLING_ALIASES.items():
        a, b = (apply_matrix(sample_matrix(c, 8, 8, random_state=0), X) for c in (alias, name))
        np.testing.assert_array_equal(a, b)
    # the error lists the accepted values and the aliases
    msg = (
        "coupling must be one of 'iid', 'orthogonal', 'hadamard', 'hybrid', 'sparse', "
        "'fjlt' (or the aliases 'orf' for 'orthogonal', 'sorf' for 'hadamard'); got "
    )
    for bad in ("gaussian", "ORF", None, 3):
        with pytest.raises(ValueError, match=re.escape(msg + repr(bad))):
            sample_matrix(bad, 4, 4)
    with pytest.raises(ValueError, match=r"coupling must be one of 'iid'; got 'orf'"):
        resolve_coupling("orf", ("iid",))  # no alias of an accepted coupling: none listed


def test_one_public_constructor_of_hadamard_rademacher_matrices_and_no_import_circle() -> None:
    # hadamard_rademacher draws them; the class takes the drawn signs (it has no sampler of
    # its own, and its module does not import the samplers' module back)
    import ast
    import inspect

    from kernelkit.features import _structured
    from kernelkit.features.matrices import HadamardRademacher

    assert not hasattr(HadamardRademacher, "sample")
    imported = {
        node.module
        for node in ast.walk(ast.parse(inspect.getsource(_structured)))
        if isinstance(node, ast.ImportFrom)
    }
    assert "kernelkit.features.matrices" not in imported
    A = hadamard_rademacher(24, 16, random_state=0)
    B = HadamardRademacher(A.signs, 16, 24, row_index=A.row_index)
    np.testing.assert_array_equal(A.to_dense(), B.to_dense())


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="n_components must be >= 1"):
        gaussian_matrix(0, 3)
    with pytest.raises(ValueError, match="d must be >= 1"):
        haar_rows(3, 0)
    with pytest.raises(TypeError, match="n_components must be an integer"):
        gaussian_orthogonal_matrix(2.5, 3)
    with pytest.raises(ValueError, match="n_blocks must be >= 1"):
        hadamard_rademacher(4, 4, n_blocks=0)
    with pytest.raises(ValueError, match="subsampling must be one of"):
        hadamard_rademacher(4, 4, subsampling="random")
    with pytest.raises(ValueError, match=r"density must be in \(0, 1\]"):
        sparse_matrix(4, 4, density=1.5)
    with pytest.raises(ValueError, match="density must be one of"):
        sparse_matrix(4, 4, density="dense")
    with pytest.raises(ValueError, match="coupling must be one of"):
        sample_matrix("circulant", 4, 4)
    A = hadamard_rademacher(4, 8, 0)
    with pytest.raises(ValueError, match="X has 3 features, but 8 were expected"):
        A.apply(np.ones((2, 3)))
    with pytest.raises(TypeError, match="real-valued"):
        A.apply(np.ones((2, 8)) * 1j)


# ---------------------------------------------------------------------------- vectorised
def _per_block_reference(m, d, seed, n_blocks, subsampling, hybrid):
    """The former sampler: one Python iteration per stacked block (same random stream)."""
    rng = np.random.RandomState(seed)
    D = 1 << (d - 1).bit_length()
    n_stack = -(-m // D)
    k = n_blocks - 1 if hybrid else n_blocks
    signs = np.where(rng.random_sample((n_stack, k, D)) < 0.5, -1, 1).astype(np.int8)
    phases = rng.randint(0, 4, size=(n_stack, D)).astype(np.int8) if hybrid else None
    rows = []
    for b in range(n_stack):
        c = min(D, m - b * D)
        if subsampling == "with_replacement":
            rows.append(np.sort(rng.randint(0, D, size=c)))
        elif c == D:
            rows.append(None)
        elif subsampling == "first":
            rows.append(np.arange(c))
        else:
            rows.append(np.sort(rng.choice(D, c, replace=False)))
    return signs, phases, rows


@pytest.mark.parametrize("subsampling", SUBSAMPLING)
@pytest.mark.parametrize("hybrid", [False, True])
@pytest.mark.parametrize(("m", "d"), [(3, 8), (40, 16), (1000, 5), (64, 64), (200, 100)])
def test_vectorised_hadamard_sampler_draws_the_same_matrices(subsampling, hybrid, m, d) -> None:
    signs, phases, rows = _per_block_reference(m, d, 7, 3, subsampling, hybrid)
    A = hadamard_rademacher(m, d, 7, subsampling=subsampling, hybrid=hybrid)
    np.testing.assert_array_equal(A.signs, signs)
    assert (A.phases is None) == (phases is None)
    if phases is not None:
        np.testing.assert_array_equal(A.phases, phases)
    assert len(A.rows) == len(rows)
    for got, ref in zip(A.rows, rows, strict=True):
        assert (got is None) == (ref is None)
        if ref is not None:
            np.testing.assert_array_equal(got, ref)
    # the kept rows live in one int32 array, not in one object per block
    assert A.row_index.dtype == np.int32
    assert A.row_index.size == (m if subsampling == "with_replacement" else m % A.d_pad)


def test_hadamard_sampler_draws_in_bounded_chunks(monkeypatch) -> None:
    # many chunks (of 64 draws) give the matrix of one draw
    from kernelkit.features import matrices

    ref = hadamard_rademacher(500, 4, 3, subsampling="with_replacement", hybrid=True)
    monkeypatch.setattr(matrices, "_CHUNK", 64)
    A = hadamard_rademacher(500, 4, 3, subsampling="with_replacement", hybrid=True)
    np.testing.assert_array_equal(A.signs, ref.signs)
    np.testing.assert_array_equal(A.phases, ref.phases)
    np.testing.assert_array_equal(A.row_index, ref.row_index)


# ---------------------------------------------------------------------------- memory
def test_memory_limit_and_format() -> None:
    assert memory_limit() > 2**20
    assert format_bytes(512) == "512 bytes"
    assert format_bytes(3 * 2**30) == "3 GiB"
    assert format_bytes(int(2.5 * 2**50)) == "2.5 PiB"
    check_memory(memory_limit(), "a request of exactly the limit")
    with pytest.raises(ValueError, match="more than this machine has"):
        check_memory(memory_limit() + 1, "a request")


@pytest.fixture
def one_gib(monkeypatch):
    """This machine has 1 GiB, as far as the size checks know."""
    monkeypatch.setattr(_memory, "memory_limit", lambda: 2**30)


def test_hadamard_rademacher_refuses_a_billion_rows_on_a_small_machine(one_gib) -> None:
    # 2.5e8 stacked blocks x 3 diagonals x 4 int8 signs = 3e9 bytes; refused before any
    # random number is drawn (it used to loop in Python for a minute first)
    msg = (
        r"hadamard_rademacher\(n_components=1000000000, d=4, n_blocks=3\) \(250000000 stacked "
        r"blocks of 3 diagonals of 4 signs\) would need about 2.79 GiB of memory, more than "
        r"this machine has \(1 GiB\); ask for fewer rows \(n_components\)"
    )
    with pytest.raises(ValueError, match=msg):
        hadamard_rademacher(10**9, 4)
    with pytest.raises(ValueError, match=r"would need about 6\.52 GiB"):  # + 4 bytes a row
        hadamard_rademacher(10**9, 4, subsampling="with_replacement")
    hadamard_rademacher(10**6, 4)  # 3 MB is fine


@pytest.mark.parametrize(
    ("call", "expected"),
    [
        (
            lambda: gaussian_matrix(10**5, 10**4),
            r"gaussian_matrix\(n_components=100000, d=10000\).*7.45 GiB",
        ),
        (lambda: haar_rows(10**5, 10**3), r"haar_rows\(n_components=100000, d=1000\).*2.98 GiB"),
        (lambda: gaussian_orthogonal_matrix(10**5, 10**3), r"gaussian_orthogonal_matrix"),
        (
            lambda: sparse_matrix(10**5, 10**4),
            r"sparse_matrix\(n_components=100000, d=10000\) with dens",
        ),
        (
            lambda: fjlt_matrix(10**6, 1000),
            r"fjlt_matrix\(n_components=1000000, d=1000\) \(P of shape \(1000000, 1024\)\)",
        ),
        (
            lambda: sample_matrix("hybrid", 10**9, 8),
            r"hadamard_rademacher\(n_components=1000000000, d=8",
        ),
    ],
    ids=["gaussian", "haar", "orthogonal", "sparse", "fjlt", "hybrid"],
)
def test_every_sampler_checks_its_size_first(one_gib, call, expected) -> None:
    with pytest.raises(ValueError, match=expected + ".*more than this machine has"):
        call()


def test_absurd_sizes_are_refused_on_any_machine() -> None:
    for call in (
        lambda: hadamard_rademacher(10**15, 4),
        lambda: gaussian_matrix(10**9, 10**9),
        lambda: sparse_matrix(10**9, 10**9, density="li"),
    ):
        with pytest.raises(ValueError, match="of memory, more than this machine has"):
            call()


def test_apply_matrix_checks_the_size_of_its_output(one_gib) -> None:
    A = hadamard_rademacher(2**16, 4, 0)
    X = np.ones((2**13, 4))  # output 2**29 float64 = 4 GiB
    with pytest.raises(ValueError, match=r"apply_matrix: an output of shape \(8192, 65536\)"):
        apply_matrix(A, X)
    with pytest.raises(ValueError, match=r"HadamardRademacher.apply: an output of shape"):
        A.apply(X)


# ---------------------------------------------------------------------------- clear errors
@pytest.mark.parametrize("coupling", PROJECTION_COUPLINGS)
def test_apply_matrix_names_the_shapes_on_a_mismatch(coupling) -> None:
    A = sample_matrix(coupling, 12, 20, random_state=0)
    msg = r"X has shape \(3, 7\), but A has shape \(12, 20\): X @ A.T needs X of shape "
    with pytest.raises(ValueError, match=msg + r"\(n_samples, 20\)"):
        apply_matrix(A, np.ones((3, 7)))
    with pytest.raises(ValueError, match="X must be 2-dimensional"):
        apply_matrix(A, np.ones(20))
    assert apply_matrix(A, np.ones((0, 20))).shape == (0, 12)
    Y32 = apply_matrix(A, np.ones((2, 20), dtype=np.float32))
    assert Y32.dtype == (np.complex64 if coupling == "hybrid" else np.float32)
    with pytest.raises(TypeError, match=r"A must be an \(m, d\) matrix"):
        apply_matrix([[1.0, 2.0]], np.ones((2, 2)))


def test_sparse_densities_below_one_nonzero_per_row_are_refused() -> None:
    # density 1e-9 used to give an all-zero matrix, and all-zero projections, silently
    msg = (
        r"density=1e-09 gives 8e-09 expected non-zeros per row of a matrix with 8 columns: "
        r"most rows would be all zero and most outputs exactly 0; use density >= 1/8 = 0.125"
    )
    with pytest.raises(ValueError, match=msg):
        sparse_matrix(100, 8, density=1e-9)
    with pytest.raises(ValueError, match=r"density=0.1 gives 0.8 expected"):
        sparse_matrix(100, 8, density=0.1)
    A = sparse_matrix(2000, 8, random_state=0, density=1 / 8)  # the boundary is allowed
    assert abs(A.nnz / 2000 - 1.0) < 4 * np.sqrt(1 / 2000)
    sparse_matrix(10, 49, density=1 / 49)  # 1/49 * 49 rounds below 1 in floating point
    with pytest.raises(ValueError, match=r"q=0.001 gives 0.128 expected .* with 128 columns"):
        fjlt_matrix(10, 100, q=1e-3)  # P has D = 128 columns
