"""The memory guard's limit: the machine, the address-space limit, the caller's cap."""

from __future__ import annotations

import subprocess
import sys

import pytest

from kernelkit import _memory
from kernelkit._memory import (
    MemoryLimitError,
    check_memory,
    machine_memory,
    memory_cap,
    memory_limit,
)


def test_the_cap_lowers_the_limit_inside_its_block_only() -> None:
    before = memory_limit()
    with memory_cap(2**20):
        assert memory_limit() == 2**20
        with memory_cap(2**30):  # an inner cap cannot raise an outer one
            assert memory_limit() == 2**20
        with pytest.raises(MemoryLimitError, match=r"more than the memory cap allows \(1 MiB\)"):
            check_memory(2**21, "a request of 2 MiB")
        check_memory(2**20, "a request of exactly the cap")
    assert memory_limit() == before
    assert issubclass(MemoryLimitError, ValueError)  # bad-input handlers still catch it


@pytest.mark.parametrize("bad", [0, -1, float("nan"), float("inf")])
def test_a_cap_that_is_not_a_positive_number_is_refused(bad: float) -> None:
    with pytest.raises(ValueError, match="n_bytes must be a positive finite number"):
        with memory_cap(bad):
            pass


def test_a_cap_that_is_not_a_number_is_refused() -> None:
    with pytest.raises(TypeError, match="n_bytes must be a number of bytes"):
        with memory_cap("8 GiB"):  # type: ignore[arg-type]
            pass


@pytest.mark.skipif(sys.platform != "linux", reason="RLIMIT_AS and /proc/self/statm: Linux")
def test_the_address_space_limit_is_read() -> None:
    # a child process under `ulimit -v` (4 GiB): its limit is below that, and a request
    # above it is refused naming the address-space limit
    code = (
        "from kernelkit._memory import memory_limit, check_memory, address_space_left\n"
        "left = address_space_left()\n"
        "assert left is not None and 0 < left < 4 * 2**30, left\n"
        "assert memory_limit() == min(left, memory_limit())\n"
        "try:\n"
        "    check_memory(5 * 2**30, 'a request of 5 GiB')\n"
        "except ValueError as exc:\n"
        "    print(exc)\n"
    )
    cmd = f'ulimit -v {4 * 2**20} && {sys.executable} -c "{code}"'
    out = subprocess.run(["bash", "-c", cmd], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "address-space limit (RLIMIT_AS)" in out.stdout


def test_without_limits_the_machine_memory_binds(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_memory, "address_space_left", lambda: None)
    assert memory_limit() == machine_memory()
