"""Runs ``ik_demo`` once as a console script for a test module: exit code, output, results; and the
issue's walking figures checked on them."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from ros_helpers import ProcessRunner


def run_demo(output: Path, timeout: float, *arguments: str) -> tuple[int | None, str, dict, Path]:
    """``ik_demo *arguments --output output/out``; (exit code, printed output, results.json, folder).

    The demo is stopped after ``timeout`` [s] (exit code then that of the stopped process).
    """
    runner = ProcessRunner(log_dir=output)
    process = runner.start_console_script("ik_demo", *arguments, "--output", str(output / "out"))
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        runner.stop_all()
    printed = runner.output(process)
    results_file = output / "out" / "results.json"
    results = json.loads(results_file.read_text()) if results_file.is_file() else {}
    return process.returncode, printed, results, output / "out"


def check_walk_figures(walk: dict, printed: str) -> None:
    """The issue's walking figures (all but the real-time factor, which depends on the machine's
    load): no fall, the commanded distance within 10 %, heading error <= 10 deg, CoM margin >= 10 mm,
    torso tilt <= 10 deg, sole slip <= 5 mm; ``printed`` (the demo's output) shown when one fails."""
    assert not walk["fell"], printed
    assert abs(walk["distance_m"] - walk["commanded_distance_m"]) <= 0.1 * walk["commanded_distance_m"], (
        printed
    )
    assert walk["heading_error_deg"] <= 10.0, printed
    assert walk["com_margin_min_mm"] >= 10.0, printed
    assert walk["torso_tilt_max_deg"] <= 10.0, printed
    assert walk["foot_slip_max_mm"] <= 5.0, printed
