"""Discrete graphical models (Rowland 2018, Part I): models, inference, LP relaxations.

==========  ==============================================================================
``model``   ``DiscreteModel`` (variables with finite domains, log-potential factors of
            any arity), ``Factor``, ``FactorGroup``, ``ising``
==========  ==============================================================================

The names below are imported on first use (PEP 562).
"""

from __future__ import annotations

from kernelkit._lazy import lazy_exports

__all__, __getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "model": ["DiscreteModel", "Factor", "FactorGroup", "ising"],
    },
)
