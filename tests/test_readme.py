"""The README's Quickstart: exactly two commands, and CI runs the same test command."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _quickstart_commands() -> list[str]:
    readme = ROOT / "README.md"
    if not readme.exists():  # an installed copy of the tests without the repository
        pytest.skip("README.md not available")
    text = readme.read_text()
    section = text.split("## Quickstart", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```bash\n(.*?)```", section, flags=re.S)
    return [line for b in blocks for line in b.strip().splitlines()]


def test_quickstart_has_exactly_two_commands() -> None:
    commands = _quickstart_commands()
    assert len(commands) == 2
    install_and_tour, tests = commands
    assert install_and_tour.endswith("kernelkit tour")
    assert '".[plot]"' in install_and_tour  # the tour draws figures: matplotlib is optional
    assert ".[test]" in tests and "pytest" in tests


def test_ci_runs_the_readme_test_command() -> None:
    ci = (ROOT / ".ci" / "run").read_text()
    tests = _quickstart_commands()[1]
    install = re.search(r'pip install (-e "\.\[test\]")', tests)
    assert install is not None
    assert re.search(r'pip"? install (-q )?' + re.escape(install.group(1)), ci)
    assert "python -m pytest" in tests and '/bin/python" -m pytest' in ci
    assert "set -euo pipefail" in ci
