"""Explicit feature maps: random Fourier / orthogonal / Hadamard features, random
projections, the fast Walsh–Hadamard transform (Rowland (2018) Part II).

* :func:`fwht`, :func:`pad_to_power_of_two` — fast Walsh–Hadamard transform;
* :mod:`~kernelkit.features.matrices` — random matrices (Gaussian, ``G_ort``,
  Hadamard–Rademacher / S-Hybrid, sparse, FJLT) and their couplings (:data:`COUPLINGS`,
  :data:`PROJECTION_COUPLINGS`, the aliases ``"orf"`` and ``"sorf"``);
* :class:`RandomMap` — the base class of the random maps below (the extension point);
* :class:`RandomFourierFeatures` (IID / ORF / SORF), :class:`AngularFeatures`;
* :class:`RandomProjection`, :func:`jl_min_dim` — Johnson–Lindenstrauss embeddings;
* :mod:`~kernelkit.features.theory` — closed-form MSEs of these estimators (Ch. 6–7);
* :class:`FisherVectorEncoder` — Fisher vectors of descriptor sets (assignment eqs. 1.13–1.14);
* :class:`SIFTDescriptors`, :class:`DensePatches`, :func:`extract_descriptors` — local image
  descriptors (OpenCV SIFT, raw patches, any callable) for the Fisher-vector encoder.
"""

from kernelkit.features import matrices, theory
from kernelkit.features.angular import AngularFeatures
from kernelkit.features.base import RandomMap
from kernelkit.features.descriptors import DensePatches, SIFTDescriptors, extract_descriptors
from kernelkit.features.fisher import EmptyDescriptorSetWarning, FisherVectorEncoder
from kernelkit.features.fourier import RandomFourierFeatures
from kernelkit.features.fwht import fwht, next_power_of_two, pad_to_power_of_two
from kernelkit.features.matrices import (
    COUPLING_ALIASES,
    COUPLINGS,
    FJLT,
    PROJECTION_COUPLINGS,
    HadamardRademacher,
    resolve_coupling,
)
from kernelkit.features.projection import RandomProjection, jl_failure_bound, jl_min_dim

__all__ = [
    "COUPLINGS",
    "COUPLING_ALIASES",
    "FJLT",
    "PROJECTION_COUPLINGS",
    "AngularFeatures",
    "DensePatches",
    "EmptyDescriptorSetWarning",
    "FisherVectorEncoder",
    "HadamardRademacher",
    "RandomFourierFeatures",
    "SIFTDescriptors",
    "RandomMap",
    "RandomProjection",
    "extract_descriptors",
    "fwht",
    "jl_failure_bound",
    "jl_min_dim",
    "matrices",
    "next_power_of_two",
    "pad_to_power_of_two",
    "resolve_coupling",
    "theory",
]
