"""Discrete graphical models (Rowland 2018, Part I): models, inference, LP relaxations.

==========  ==============================================================================
``model``   ``DiscreteModel`` (variables with finite domains, log-potential factors of
            any arity), ``Factor``, ``FactorGroup``, ``ising``
``uai``     ``read_uai``, ``write_uai``: the UAI competition file format (line-numbered
            ``UAIFormatError`` for malformed files)
==========  ==============================================================================

The names below are imported on first use (PEP 562).
"""

from __future__ import annotations

from kernelkit._lazy import lazy_exports

__all__, __getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "model": ["DiscreteModel", "Factor", "FactorGroup", "ising"],
        "uai": ["UAIFormatError", "read_uai", "write_uai"],
    },
)
