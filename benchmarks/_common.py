"""Shared helpers for the benchmarks: alternating timed runs and the RESULT line."""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import time
from collections.abc import Callable
from typing import Any


def parser(description: str, repeats: int = 3) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--quick", action="store_true", help="small sizes, for a smoke run")
    p.add_argument("--repeats", type=int, default=repeats, help="timed repeats per contender")
    return p


def alternate(
    contenders: dict[str, Callable[[], Any]], repeats: int
) -> tuple[dict[str, float], dict[str, Any]]:
    """Run each contender ``repeats`` times, interleaved; return median seconds and last output."""
    times: dict[str, list[float]] = {k: [] for k in contenders}
    outputs: dict[str, Any] = {}
    for _ in range(repeats):
        for name, fn in contenders.items():
            outputs.pop(name, None)  # free the previous result before timing again
            t0 = time.perf_counter()
            outputs[name] = fn()
            times[name].append(time.perf_counter() - t0)
    return {k: statistics.median(v) for k, v in times.items()}, outputs


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def result_line(name: str, ratio: float, ours_s: float, peer_s: float, **quality: Any) -> str:
    extra = " ".join(f"{k}={_fmt(v)}" for k, v in quality.items())
    return (
        f"RESULT {name} ratio={ratio:.3g} ours_s={ours_s:.4g} peer_s={peer_s:.4g} "
        f"nproc={os.cpu_count()} {extra}"
    ).strip()


def _fmt(v: Any) -> str:
    return f"{v:.4g}" if isinstance(v, float) else str(v)
