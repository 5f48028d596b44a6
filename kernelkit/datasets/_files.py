"""Locate packaged data files and verify them against ``data/SHA256SUMS``.

Every loader reads its files through :func:`data_path`, which checks the sha256 of the
file the first time it is used in a process (and again only if the file's size or
modification time changes). Tests point the loaders at a temporary copy of the data by
monkeypatching :func:`_data_root`.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

__all__ = ["data_path", "listed_files", "package_file"]

SUMS_NAME = "SHA256SUMS"

# (absolute path, size, mtime_ns) of every file whose checksum has been verified.
_verified: set[tuple[str, int, int]] = set()
# root -> ((size, mtime_ns) of SHA256SUMS, {relative path: sha256})
_sums_cache: dict[str, tuple[tuple[int, int], dict[str, str]]] = {}


def _data_root() -> Path:
    """Return the folder holding the packaged data (monkeypatched by the tests)."""
    return Path(__file__).resolve().parent / "data"


def _signature(path: Path) -> tuple[int, int]:
    st = path.stat()
    return st.st_size, st.st_mtime_ns


def _checksums(root: Path) -> dict[str, str]:
    """Return ``{relative path: sha256}`` read from ``root/SHA256SUMS`` (cached)."""
    sums_path = root / SUMS_NAME
    if not sums_path.is_file():
        raise FileNotFoundError(f"checksum list {SUMS_NAME} is missing from {root}")
    signature = _signature(sums_path)
    cached = _sums_cache.get(str(root))
    if cached is not None and cached[0] == signature:
        return cached[1]
    sums: dict[str, str] = {}
    for lineno, line in enumerate(sums_path.read_text(encoding="ascii").splitlines(), 1):
        if not line.strip():
            continue
        digest, sep, rel = line.partition("  ")
        if not sep or len(digest) != 64:
            raise ValueError(f"{sums_path}, line {lineno}: expected '<sha256>  <path>'")
        sums[rel.lstrip("*")] = digest.lower()
    _sums_cache[str(root)] = (signature, sums)
    return sums


def listed_files(prefix: str = "") -> list[str]:
    """Return the relative paths listed in ``SHA256SUMS`` that start with ``prefix``."""
    return sorted(rel for rel in _checksums(_data_root()) if rel.startswith(prefix))


def _sha256(path: Path) -> str:
    with path.open("rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


def data_path(relpath: str) -> Path:
    """Return the path of packaged data file ``relpath`` after verifying its checksum.

    Parameters
    ----------
    relpath : str
        Path relative to the data folder, with ``/`` separators (``"tu/MUTAG/MUTAG_A.txt"``).

    Returns
    -------
    pathlib.Path
        Absolute path of the verified file.

    Raises
    ------
    FileNotFoundError
        If the file (or ``SHA256SUMS``) is missing.
    ValueError
        If the file has no recorded checksum or its sha256 does not match.
    """
    root = _data_root()
    path = root / relpath
    if not path.is_file():
        raise FileNotFoundError(
            f"packaged data file {relpath} is missing from {root}; reinstall kernelkit"
        )
    expected = _checksums(root).get(relpath)
    if expected is None:
        raise ValueError(f"no checksum recorded for {relpath} in {root / SUMS_NAME}")
    key = (str(path), *_signature(path))
    if key not in _verified:
        actual = _sha256(path)
        if actual != expected:
            raise ValueError(
                f"checksum mismatch for {relpath}: expected sha256 {expected}, got {actual}; "
                "the packaged data file is corrupt, reinstall kernelkit"
            )
        _verified.add(key)
    return path


def package_file(relpath: str) -> Path:
    """Return the path of a packaged documentation file (no checksum, e.g. PROVENANCE.md)."""
    path = _data_root() / relpath
    if not path.is_file():
        raise FileNotFoundError(f"packaged file {relpath} is missing from {_data_root()}")
    return path
