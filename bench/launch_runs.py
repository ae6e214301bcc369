"""The launch tests (test/test_launch_run.py) run N times in a row: one table row per run.

Each run is ``python -m pytest test/test_launch_run.py -q -p no:cacheprovider`` with its own
``--basetemp`` (the launch outputs ``launch-*.log`` and the colcon workspace are kept) and its own
``ROS_LOG_DIR`` (launch's timestamped ``launch.log`` of every LaunchService). A row: run number,
the commit the run copied (``+`` when the worktree had uncommitted changes), the 1-minute load
average at its start and end (``os.getloadavg``: neighbours count, the figure to read beside the
rest), pytest's summary line, wall time [s], and the slowest stop: LaunchService's "user
interrupted with ctrl-c" to the last "process has finished" of the same launch, the longest of the
run's launches [s]. A failed run's folder keeps pytest's output (``pytest.txt``) and the logs.

Run: ``python bench/launch_runs.py --runs 30 [--until 10:10] [--output DIR]`` (``--until``: no run
starts after this UTC time of day).
"""

from __future__ import annotations

import argparse
import datetime
import os
import re
import subprocess
import sys
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
TEST = "test/test_launch_run.py"
LOG_LINE = re.compile(r"^(\d+\.\d+) \[\w+\] \[([^\]]+)\]: (.*)$")
SUMMARY = re.compile(r"=* ?(\d+ (passed|failed|error|skipped).*?) ?=*$")


def slowest_stop(ros_logs: Path) -> float | None:
    """Longest ctrl-c → last "process has finished" [s] over the ``launch.log`` files below
    ``ros_logs``; None if no launch was stopped."""
    stops = [stop for log in ros_logs.rglob("launch.log") if (stop := stop_time(log)) is not None]
    return max(stops, default=None)


def stop_time(log: Path) -> float | None:
    """ctrl-c → last "process has finished" [s] in one LaunchService's ``launch.log``."""
    interrupted, finished = None, None
    for line in log.read_text(errors="replace").splitlines():
        match = LOG_LINE.match(line)
        if not match:
            continue
        stamp, message = float(match[1]), match[3]
        if "user interrupted with ctrl-c" in message and interrupted is None:
            interrupted = stamp
        elif interrupted is not None and message.startswith("process has finished"):
            finished = stamp
    return None if interrupted is None or finished is None else finished - interrupted


def commit() -> str:
    """Short hash of HEAD, with ``+`` when the worktree has uncommitted changes to tracked files."""
    head = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=REPO_ROOT, capture_output=True, text=True, check=False
    ).stdout.strip()
    dirty = subprocess.run(["git", "diff", "--quiet", "HEAD"], cwd=REPO_ROOT, check=False).returncode != 0
    return head + ("+" if dirty else "")


def summary(output: str) -> str:
    """pytest's last summary line (``7 passed in 154.2s``), or the exit's last line."""
    lines = [line.strip("= ") for line in output.splitlines() if SUMMARY.match(line.strip())]
    return lines[-1] if lines else (output.strip().splitlines() or ["no output"])[-1]


def run_once(folder: Path) -> dict:
    """One pytest session of the launch tests in ``folder``; its row's figures."""
    folder.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "ROS_LOG_DIR": str(folder / "ros")}
    row = {"commit": commit(), "load_start": os.getloadavg()[0], "started": utc_now()}
    start = time.monotonic()
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            TEST,
            "-q",
            "-p",
            "no:cacheprovider",
            f"--basetemp={folder / 'tmp'}",
        ],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    row["duration"] = time.monotonic() - start
    row["load_end"] = os.getloadavg()[0]
    output = result.stdout + result.stderr
    (folder / "pytest.txt").write_text(output)
    row["passed"] = result.returncode == 0
    row["summary"] = summary(output)
    row["stop"] = slowest_stop(folder / "ros")
    return row


def utc_now() -> datetime.datetime:
    return datetime.datetime.now(datetime.UTC)


def format_row(number: int, row: dict) -> str:
    stop = "-" if row["stop"] is None else f"{row['stop']:.2f} s"
    return (
        f"| {number} | {row['started']:%H:%M} | {row['commit']} | {row['load_start']:.1f} → {row['load_end']:.1f} "
        f"| {'pass' if row['passed'] else 'FAIL'}: {row['summary']} | {row['duration']:.0f} s | {stop} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--until", help="UTC time of day HH:MM after which no run starts")
    parser.add_argument("--output", type=Path, default=REPO_ROOT / "output" / "launch_runs")
    options = parser.parse_args()
    until = None
    if options.until:
        hour, minute = map(int, options.until.split(":"))
        until = utc_now().replace(hour=hour, minute=minute, second=0, microsecond=0)
    print("| run | start (UTC) | commit | load (start → end) | result | duration | slowest stop |")
    print("|---|---|---|---|---|---|---|", flush=True)
    rows = []
    for number in range(1, options.runs + 1):
        if until is not None and utc_now() >= until:
            break
        rows.append(run_once(options.output / f"run-{number:02d}"))
        print(format_row(number, rows[-1]), flush=True)
    passed = sum(row["passed"] for row in rows)
    loads = [load for row in rows for load in (row["load_start"], row["load_end"])]
    print(f"{passed} of {len(rows)} passed; load {min(loads, default=0):.1f}-{max(loads, default=0):.1f}")


if __name__ == "__main__":
    main()
