"""Declared constructors: signatures, parameters, cloning, and kernels declared by users."""

from __future__ import annotations

import ast
import inspect
import pickle
from pathlib import Path

import numpy as np
import pytest
from kernel_cases import example_kernels
from sklearn.base import clone as sk_clone
from sklearn.mixture import GaussianMixture

import kernelkit.kernels as kk
from kernelkit.kernels import (
    RBF,
    Constant,
    DiagonalGaussianMixture,
    FisherKernel,
    GammaPrior,
    Kernel,
    Laplace,
    Matern,
    Polynomial,
    Precomputed,
    RationalQuadratic,
    Stationary,
    White,
    parameter,
)
from kernelkit.kernels.base import (
    Composed,
    ExponentialOf,
    PolynomialOf,
    Product,
    Scaled,
    Sum,
)
from kernelkit.kernels.parameters import DEFAULT_BOUNDS

X = np.random.default_rng(0).standard_normal((6, 3))
EXAMPLES = example_kernels()

PUBLIC_CLASSES = sorted(
    {
        obj
        for name in kk.__all__
        if isinstance(obj := getattr(kk, name), type) and issubclass(obj, Kernel)
    }
    | {Sum, Product, Scaled, PolynomialOf, ExponentialOf, Composed},
    key=lambda c: c.__name__,
)
#: a valid instance of each class that needs arguments
INSTANCES = {
    Kernel: None,
    Stationary: Stationary(),
    Precomputed: Precomputed(np.eye(3)),
    FisherKernel: FisherKernel(
        DiagonalGaussianMixture(GaussianMixture(2, covariance_type="diag", random_state=0).fit(X))
    ),
    Sum: Sum(RBF(), White()),
    Product: Product(RBF(), Constant()),
    Scaled: Scaled(RBF(), 2.0),
    PolynomialOf: PolynomialOf(RBF(), [1.0, 2.0]),
    ExponentialOf: ExponentialOf(RBF()),
    Composed: Composed(RBF(), np.sin),
}


@pytest.mark.parametrize("cls", PUBLIC_CLASSES, ids=lambda c: c.__name__)
def test_signature_matches_get_params(cls) -> None:
    k = INSTANCES[cls] if cls in INSTANCES else cls()
    if k is None:
        return
    sig = inspect.signature(cls)
    assert list(sig.parameters) == list(k.get_params(deep=False))
    for name, p in cls._parameters.items():
        assert sig.parameters[name].kind is inspect.Parameter.POSITIONAL_OR_KEYWORD
        if p.fitted:
            bounds = sig.parameters[f"{name}_bounds"]
            prior = sig.parameters[f"{name}_prior"]
            assert bounds.kind is prior.kind is inspect.Parameter.KEYWORD_ONLY
            assert bounds.default == DEFAULT_BOUNDS and prior.default is None
    rebuilt = cls(**k.get_params(deep=False))
    assert rebuilt == k and rebuilt is not k


def test_public_signatures() -> None:
    def names(cls: type) -> list[str]:
        return list(inspect.signature(cls).parameters)

    stationary = ["lengthscale", "variance"]
    hp = ["lengthscale_bounds", "lengthscale_prior", "variance_bounds", "variance_prior"]
    assert names(RBF) == [*stationary, *hp]
    assert names(Matern) == [*stationary, "nu", *hp]
    assert names(Laplace) == [*stationary, *hp]  # nu = 1/2 fixed
    assert names(RationalQuadratic) == [*stationary, "shape", *hp, "shape_bounds", "shape_prior"]
    assert names(White) == ["noise", "noise_bounds", "noise_prior"]
    assert names(Constant) == ["value", "value_bounds", "value_prior"]
    assert names(Polynomial) == [
        "degree",
        *("gamma", "coef0"),
        *("gamma_bounds", "gamma_prior", "coef0_bounds", "coef0_prior"),
    ]
    # positional order as declared
    assert (
        Matern(0.5, 2.0, 1.5).get_params()
        == Matern(lengthscale=0.5, variance=2.0, nu=1.5).get_params()
    )
    assert RationalQuadratic(0.5, 2.0, 3.0).shape == 3.0
    assert Polynomial(3, 0.5, 2.0).get_params()["coef0"] == 2.0
    assert Laplace().nu == 0.5 and "nu" not in Laplace().get_params()


def test_constructor_stores_arguments_unchanged() -> None:
    ls, bounds, prior = np.array([1.0, 2.0]), [1e-3, 1e3], GammaPrior(2.0, 1.0)
    k = RBF(ls, lengthscale_bounds=bounds, lengthscale_prior=prior)
    assert k.lengthscale is ls and k.lengthscale_bounds is bounds and k.lengthscale_prior is prior
    inner = RBF()
    assert Scaled(inner, 2).kernel is inner and Scaled(inner, 2).scale == 2


@pytest.mark.parametrize(
    ("make", "match"),
    [
        (
            lambda: RBF(alpha=1.0),
            r"RBF\(\): got an unexpected keyword argument 'alpha'.*lengthscale",
        ),
        (lambda: RBF(1.0, 1.0, 1.0), r"RBF\(\): too many positional arguments"),
        (lambda: Laplace(nu=1.5), r"unexpected keyword argument 'nu'"),
        (lambda: White(noise_level=1.0), r"unexpected keyword argument 'noise_level'"),
        (lambda: RationalQuadratic(alpha=1.0), r"unexpected keyword argument 'alpha'"),
        (lambda: Precomputed(), r"Precomputed\(\): missing a required argument: 'gram'"),
        (lambda: RBF(1.0, lengthscale=2.0), r"multiple values for argument 'lengthscale'"),
    ],
)
def test_bad_arguments_name_the_class(make, match) -> None:
    with pytest.raises(TypeError, match=match):
        make()


@pytest.mark.parametrize(
    ("make", "match"),
    [
        (lambda: RBF(variance=[1.0, 2.0]), "variance must be a scalar"),
        (lambda: White([0.1, 0.2]), "noise must be a scalar"),
        (lambda: RationalQuadratic(shape=np.ones(2)), "shape must be a scalar"),
        (lambda: RBF(np.ones((2, 2))), "lengthscale must be a scalar or a 1-D array"),
    ],
)
def test_only_ard_hyperparameters_may_be_vectors(make, match) -> None:
    with pytest.raises(ValueError, match=match):
        make()


@pytest.mark.parametrize(("name", "k"), EXAMPLES, ids=[n for n, _ in EXAMPLES])
def test_clone_pickle_and_sklearn_clone_are_equal(name, k) -> None:
    for c in (k.clone(), sk_clone(k), pickle.loads(pickle.dumps(k))):
        assert c == k and c is not k and type(c) is type(k)
        np.testing.assert_array_equal(c(X), k(X))


# --------------------------------------------------------------------------- user kernels
class Cosine(Kernel):
    """``variance * cos(sum_k (x_k - y_k) / period)``: positive definite (one frequency)."""

    variance: float = parameter(1.0, fitted=True)
    period: float = parameter(1.0, fitted=True, bounds=(1e-2, 1e2))

    def _phase(self, X: np.ndarray) -> np.ndarray:
        return X.sum(axis=1) / self.period

    def _gram(self, X: np.ndarray, Y: np.ndarray) -> np.ndarray:
        return self.variance * np.cos(self._phase(X)[:, None] - self._phase(Y)[None, :])

    def _diag(self, X: np.ndarray) -> np.ndarray:
        return np.full(len(X), float(self.variance))

    def _gradient(self, X: np.ndarray) -> np.ndarray:
        D = self._phase(X)[:, None] - self._phase(X)[None, :]
        parts = {
            "variance": self.variance * np.cos(D),
            "period": self.variance * np.sin(D) * D,  # d/d log period of cos(D)
        }
        free = [parts[hp.name] for hp in self.free_hyperparameters]
        return np.stack(free, axis=2) if free else np.zeros((len(X), len(X), 0))


class LongRBF(RBF):
    """A new default for an inherited parameter keeps its position."""

    lengthscale = parameter(10.0, fitted=True, ard=True)


class Matern32(Matern):
    """A plain value for an inherited parameter fixes it."""

    nu = 1.5


class HandWritten(Stationary):
    """A class that writes its own ``__init__`` keeps it."""

    def __init__(self, width: float = 1.0):
        self.width = width
        super().__init__(lengthscale=width)

    def _f(self, s: np.ndarray) -> np.ndarray:
        return np.exp(-0.5 * s)


def test_a_kernel_declared_by_a_user() -> None:
    sig = inspect.signature(Cosine)
    assert list(sig.parameters) == [
        "variance",
        "period",
        "variance_bounds",
        "variance_prior",
        "period_bounds",
        "period_prior",
    ]
    assert sig.parameters["period_bounds"].default == (1e-2, 1e2)
    k = Cosine(2.0, 0.5, period_prior=GammaPrior(2.0, 4.0))
    assert k.theta_names == ["variance", "period"]
    np.testing.assert_allclose(k.bounds, np.log([DEFAULT_BOUNDS, (1e-2, 1e2)]))
    assert k.has_priors and k.log_prior()[1][0] == 0.0
    for c in (k.clone(), sk_clone(k), pickle.loads(pickle.dumps(k)), Cosine(**k.get_params())):
        assert c == k
        np.testing.assert_array_equal(c(X), k(X))
    # gradients against finite differences of theta
    G = k.gradient(X)
    h = 1e-6
    for p in range(k.n_dims):
        e = np.zeros(k.n_dims)
        e[p] = h
        fd = (k.with_theta(k.theta + e)(X) - k.with_theta(k.theta - e)(X)) / (2 * h)
        np.testing.assert_allclose(G[:, :, p], fd, rtol=1e-6, atol=1e-8)
    # it takes part in the algebra and in set_params
    s = RBF() + k
    s.set_params(k2__period=2.0)
    assert s.k2.period == 2.0 and s.theta_names[-1] == "k2__period"
    with pytest.raises(ValueError, match="period must be > 0"):
        Cosine(period=-1.0)
    assert (
        repr(Cosine(period_bounds="fixed")) == "Cosine(variance=1, period=1, period_bounds='fixed')"
    )


def test_redeclared_and_fixed_parameters_in_subclasses() -> None:
    assert list(inspect.signature(LongRBF).parameters)[:2] == ["lengthscale", "variance"]
    assert LongRBF().lengthscale == 10.0 and LongRBF(2.0).lengthscale == 2.0
    assert "nu" not in inspect.signature(Matern32).parameters
    np.testing.assert_array_equal(Matern32(0.7)(X), Matern(0.7, nu=1.5)(X))
    assert Matern32(0.7) != Matern(0.7, nu=1.5)  # not the same class


def test_a_hand_written_init_is_kept() -> None:
    assert list(inspect.signature(HandWritten).parameters) == ["width"]
    k = HandWritten(2.0)
    assert k.get_params() == {"width": 2.0} and k.lengthscale == 2.0
    assert k.clone() == k and sk_clone(k) == k


def test_bad_declarations_are_rejected() -> None:
    with pytest.raises(TypeError, match="invalid parameter declarations"):

        class RequiredAfterDefault(RBF):
            kernel: Kernel = parameter()

    with pytest.raises(ValueError, match="fitted parameters only"):
        parameter(1.0, ard=True)
    with pytest.raises(ValueError, match="fitted parameters only"):
        parameter(1.0, bounds=(1.0, 2.0))
    with pytest.raises(TypeError, match="bools"):
        parameter(1.0, fitted=1)


def test_no_import_circle_between_kernel_modules() -> None:
    """Every import between modules of kernelkit/kernels (including imports inside
    functions) goes one way: the module graph has no cycle."""
    root = Path(kk.__file__).parent
    modules = {p.stem: p for p in root.glob("*.py") if p.stem != "__init__"}
    edges: dict[str, set[str]] = {m: set() for m in modules}
    for m, path in modules.items():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module:
                target = node.module.removeprefix("kernelkit.kernels.")
                if target in modules and node.module.startswith("kernelkit.kernels."):
                    edges[m].add(target)
    state: dict[str, int] = {}

    def visit(m: str, path: list[str]) -> None:
        state[m] = 1
        for t in edges[m]:
            assert state.get(t) != 1, f"import circle: {' -> '.join([*path, m, t])}"
            if t not in state:
                visit(t, [*path, m])
        state[m] = 2

    for m in modules:
        if m not in state:
            visit(m, [])
    assert "simple" not in edges["base"]
