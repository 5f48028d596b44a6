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
  descriptors (OpenCV SIFT, raw patches, any callable) for the Fisher-vector encoder;
* :mod:`~kernelkit.features.image_classification` and :mod:`~kernelkit.features.cli` —
  the assignment's MNIST pipeline and ``kernelkit fisher-mnist``.

The names below are imported on first use (PEP 562), so that the command line can import
:mod:`kernelkit.features.cli` without loading SciPy and scikit-learn for every command.
"""

from __future__ import annotations

from kernelkit._lazy import lazy_exports

__all__, __getattr__, __dir__ = lazy_exports(
    __name__,
    {
        ".": ["matrices", "theory"],
        "angular": ["AngularFeatures"],
        "base": ["RandomMap"],
        "descriptors": ["DensePatches", "SIFTDescriptors", "extract_descriptors"],
        "fisher": ["EmptyDescriptorSetWarning", "FisherVectorEncoder"],
        "fourier": ["RandomFourierFeatures"],
        "walsh_hadamard": ["fwht", "next_power_of_two", "pad_to_power_of_two"],
        "matrices": [
            "COUPLINGS",
            "COUPLING_ALIASES",
            "FJLT",
            "PROJECTION_COUPLINGS",
            "HadamardRademacher",
            "resolve_coupling",
        ],
        "projection": ["RandomProjection", "jl_failure_bound", "jl_min_dim"],
    },
)
