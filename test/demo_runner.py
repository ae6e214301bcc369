"""Runs ``ik_demo`` once as a console script for a test module: exit code, output, results."""

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
