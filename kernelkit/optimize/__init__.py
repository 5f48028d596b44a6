"""Bayesian optimisation: acquisitions, xi schedules, acquisition search, the loop, plots.

The assignment's Algorithm 3 with a GP surrogate: :class:`BayesianOptimizer` (minimises
by default; ``maximize=True`` for the seed's convention), the improvement-based
acquisitions PI and EI (eqs. 2.11, 2.15-2.16) with the noisy incumbent of eq. 2.17,
log-EI and UCB, analytic x-gradients of all of them, multi-start L-BFGS-B acquisition
search, xi schedules, and test functions with known minima.

Modules: :mod:`~kernelkit.optimize.acquisition`, :mod:`~kernelkit.optimize.surrogate`
(posterior moments and their input gradients), :mod:`~kernelkit.optimize.schedules`,
:mod:`~kernelkit.optimize.search`, :mod:`~kernelkit.optimize.bayesopt`,
:mod:`~kernelkit.optimize.functions`, :mod:`~kernelkit.optimize.plots`,
:mod:`~kernelkit.optimize.space` (real, integer and categorical search spaces),
:mod:`~kernelkit.optimize.noisy_ei` (noisy expected improvement of batches),
:mod:`~kernelkit.optimize.output_transform` (monotone maps of the observed values),
:mod:`~kernelkit.optimize.mixed_search` (the acquisition search on integer and
categorical spaces), :mod:`~kernelkit.optimize.constraints` (input and outcome
constraints), :mod:`~kernelkit.optimize.minimize` (scikit-optimize's
``gp_minimize`` and ``Optimizer``), :mod:`~kernelkit.optimize.bayes_search`
(``BayesSearchCV``), :mod:`~kernelkit.optimize.callbacks` (stoppers and checkpoints),
:mod:`~kernelkit.optimize.space_plots` (partial dependence and the evaluations' matrix)
and :mod:`~kernelkit.optimize.cli`.

The names below are imported on first use (PEP 562), so that the command line can import
:mod:`kernelkit.optimize.cli` without loading SciPy and scikit-learn for every command.
"""

from __future__ import annotations

from kernelkit._lazy import lazy_exports

__all__, __getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "acquisition": [
            "Acquisition",
            "ExpectedImprovement",
            "ImprovementAcquisition",
            "LogExpectedImprovement",
            "LogProbabilityOfImprovement",
            "ProbabilityOfImprovement",
            "UpperConfidenceBound",
            "acquisition_names",
            "get_acquisition",
            "log_h",
            "noisy_incumbent",
        ],
        "bayes_search": ["BayesSearchCV"],
        "bayesopt": ["AcquisitionStep", "BayesianOptimizer", "OptimizationResult"],
        "callbacks": [
            "CheckpointSaver",
            "DeadlineStopper",
            "DeltaXStopper",
            "DeltaYStopper",
            "EarlyStopper",
            "check_callback",
            "dump",
            "load",
            "point_distance",
            "run_callbacks",
        ],
        "constraints": [
            "check_input_constraints",
            "input_feasible",
            "log_probability_of_feasibility",
        ],
        "functions": [
            "Ackley",
            "Branin",
            "Forrester",
            "GramacyLee",
            "Hartmann3",
            "Hartmann6",
            "SixHumpCamel",
            "TestFunction",
            "function_names",
            "get_function",
        ],
        "schedules": [
            "CallableSchedule",
            "ConstantSchedule",
            "ExponentialDecaySchedule",
            "Schedule",
            "as_schedule",
        ],
        "minimize": ["Optimizer", "gp_minimize"],
        "mixed_search": ["maximize_on_space"],
        "noisy_ei": [
            "NoisyBatch",
            "QNoisyExpectedImprovement",
            "q_noisy_expected_improvement",
            "suggest_noisy_batch",
        ],
        "output_transform": ["OutputTransform", "fit_output_transform"],
        "plots": ["plot_convergence", "plot_regret_bands", "plot_step"],
        "search": ["maximize_acquisition", "sobol_points"],
        "space": ["Categorical", "Dimension", "Integer", "Real", "Space"],
        "space_plots": [
            "PartialDependence1D",
            "PartialDependence2D",
            "dimension_grid",
            "partial_dependence_1d",
            "partial_dependence_2d",
            "plot_evaluations",
            "plot_objective",
        ],
        "surrogate": ["ObjectiveModel", "Posterior", "default_kernel", "posterior"],
    },
)
