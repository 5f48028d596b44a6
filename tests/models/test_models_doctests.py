"""The Examples sections of the models docstrings run and give what they show."""

from __future__ import annotations

import doctest

import pytest

import kernelkit.linalg.cholesky
import kernelkit.models.gp
import kernelkit.models.ridge
import kernelkit.models.svc


@pytest.mark.parametrize(
    "module",
    [kernelkit.linalg.cholesky, kernelkit.models.ridge, kernelkit.models.svc, kernelkit.models.gp],
    ids=lambda m: m.__name__,
)
def test_docstring_examples(module) -> None:
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0
    assert result.failed == 0
