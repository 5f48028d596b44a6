"""The MNIST test set (10000 handwritten digits), read from the original gzipped IDX files."""

from __future__ import annotations

import gzip
import struct

import numpy as np

from . import _files

__all__ = ["load_mnist"]

_IMAGES = "mnist/t10k-images-idx3-ubyte.gz"
_LABELS = "mnist/t10k-labels-idx1-ubyte.gz"
_MAGIC_UBYTE = 0x0800  # IDX: two zero bytes, then type code 0x08 (unsigned byte)


def load_mnist() -> tuple[np.ndarray, np.ndarray]:
    """Load the 10000 test images of MNIST.

    Returns
    -------
    images : ndarray of uint8, shape (10000, 28, 28)
        Grey levels 0 (background) to 255 (ink).
    labels : ndarray of int64, shape (10000,)
        Digit 0-9 of each image (class counts 980, 1135, 1032, 1010, 982, 892, 958,
        1028, 974, 1009).

    Notes
    -----
    LeCun, Cortes & Burges, "The MNIST database of handwritten digits". The files are the
    original ``t10k-*-ubyte.gz`` distribution (IDX format, magic numbers 2051 and 2049).

    Examples
    --------
    >>> from kernelkit.datasets import load_mnist
    >>> images, labels = load_mnist()
    >>> images.shape, images.dtype.name
    ((10000, 28, 28), 'uint8')
    """
    images = _read_idx(_IMAGES, expected_ndim=3)
    labels = _read_idx(_LABELS, expected_ndim=1).astype(np.int64)
    if len(images) != len(labels):
        raise ValueError(f"{_IMAGES} has {len(images)} images but {_LABELS} has {len(labels)}")
    return images, labels


def _read_idx(relpath: str, expected_ndim: int) -> np.ndarray:
    """Read a gzipped unsigned-byte IDX file from the packaged data.

    The IDX header is a big-endian magic number ``0x0800 + ndim`` (2049 for vectors, 2051
    for image stacks) followed by ``ndim`` big-endian uint32 sizes.
    """
    path = _files.data_path(relpath)
    try:
        with gzip.open(path, "rb") as fh:
            raw = fh.read()
    except (OSError, EOFError) as exc:
        raise ValueError(f"{relpath} is not a readable gzip file: {exc}") from None
    header = 4 * (1 + expected_ndim)
    if len(raw) < header:
        raise ValueError(f"{relpath} is too short to hold an IDX header")
    (magic,) = struct.unpack(">I", raw[:4])
    expected_magic = _MAGIC_UBYTE + expected_ndim
    if magic != expected_magic:
        raise ValueError(
            f"{relpath}: bad IDX magic number {magic} (expected {expected_magic}, an "
            f"unsigned-byte array with {expected_ndim} dimension(s))"
        )
    shape = struct.unpack(f">{expected_ndim}I", raw[4:header])
    if len(raw) - header != int(np.prod(shape)):
        raise ValueError(
            f"{relpath}: header announces shape {shape} ({int(np.prod(shape))} bytes) but "
            f"{len(raw) - header} data bytes follow"
        )
    return np.frombuffer(raw, dtype=np.uint8, offset=header).reshape(shape).copy()
