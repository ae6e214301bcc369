"""The servo-bus demo K times: settled error per chain, bus rate and errors, and where the CPU goes.

Runs ``ik_demo --quick --fixed-base --servo-bus PROTOCOL`` K times (optionally beside N CPU-bound neighbours,
``python -c 'while True: pass'``, started before the first run and stopped after the last) and
prints one row per run: the 1-minute load average at its start, the worst settled tracking error
[mm] of each chain (the demo's own figure; the issue's bound is 10 mm), the bus's mean read+write
cycle rate [Hz], the rate 99 % of its cycles reach (p1), its overruns (cycles that ended after the
next one's deadline) and dropped deadlines (more than the bridge catches up), the longest gap between two answered cycles [s] and errors (servo_bridge's
summary), and the CPU time [s] (user + system, from
/proc, sampled while the run lasts) each process of the pipeline used, with its CPU cost per bus
cycle [ms]. CPU time, unlike wall time, does not grow when neighbours take the cores.

Run: ``python bench/servo_demo_runs.py --runs 10 [--protocol feetech|none] [--neighbours 1]``
(``none``: the simulator-only demo, the same timeline without the bus, for comparison). Each
run's output folder keeps the demo's printed output (``logs/ik_demo.txt``: why a run exited 1).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SAMPLE_PERIOD = 0.2  # [s] between /proc samples of the children's CPU times
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
PROCESSES = ("ik_demo", "sim_node", "servo_bus_emulator", "servo_bridge", "ik_node")
BOUND_MM = 10.0


def children_of(pid: int) -> list[int]:
    """Every descendant of ``pid`` (from /proc/<pid>/task/*/children)."""
    found, queue = [], [pid]
    while queue:
        parent = queue.pop()
        try:
            tasks = os.listdir(f"/proc/{parent}/task")
        except FileNotFoundError:
            continue
        for task in tasks:
            try:
                text = Path(f"/proc/{parent}/task/{task}/children").read_text()
            except (FileNotFoundError, ProcessLookupError):
                continue
            for child in map(int, text.split()):
                found.append(child)
                queue.append(child)
    return found


def cpu_seconds(pid: int) -> tuple[str, float] | None:
    """(process name from its command line, user + system CPU time [s]) of ``pid``, None if gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        command = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except (FileNotFoundError, ProcessLookupError):
        return None
    fields = stat[stat.rindex(")") + 2 :].split()
    ticks = int(fields[11]) + int(fields[12])  # utime, stime
    words = [Path(w.decode(errors="replace")).name.rpartition(".")[2] for w in command if w]
    name = next((w for w in words if w in PROCESSES), words[0] if words else "")
    return name, ticks / CLOCK_TICKS


def run_demo(protocol: str, output: Path) -> tuple[int, dict, dict[str, float], float]:
    """One demo run: exit code, results.json, CPU seconds per process name, wall time [s]."""
    start = time.monotonic()
    (output / "logs").mkdir(parents=True, exist_ok=True)
    with (output / "logs" / "ik_demo.txt").open("w") as printed:  # the demo's words: why it failed
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "ik_solvers.demo.ik_demo",
                "--quick",
                "--fixed-base",
                *(["--servo-bus", protocol] if protocol != "none" else []),
                "--output",
                str(output),
            ],
            stdout=printed,
            stderr=subprocess.STDOUT,
        )
    last: dict[int, tuple[str, float]] = {}
    while process.poll() is None:
        for pid in [process.pid, *children_of(process.pid)]:
            sample = cpu_seconds(pid)
            if sample is not None:  # an exiting process has no command line any more: keep its name
                last[pid] = (last[pid][0] if pid in last else sample[0], sample[1])
        time.sleep(SAMPLE_PERIOD)
    totals: dict[str, float] = {}
    for name, seconds in last.values():
        totals[name] = totals.get(name, 0.0) + seconds
    results_file = output / "results.json"
    results = json.loads(results_file.read_text()) if results_file.is_file() else {}
    return process.returncode, results, totals, time.monotonic() - start


def worst_settled(results: dict) -> dict[str, float]:
    """Chain -> worst settled tracking error [mm] over its rows; NaN when a row has none (the
    robot never held still long enough to be sampled: a failed run)."""
    worst: dict[str, float] = {}
    for row in results.get("rows", []):
        value = row["settled_position_max"]
        worst[row["chain"]] = value if math.isnan(value) else max(worst.get(row["chain"], 0.0), value)
    return worst


def uptime() -> str:
    """What ``uptime`` prints (the load averages over 1, 5 and 15 minutes)."""
    return subprocess.run(["uptime"], check=False, capture_output=True, text=True).stdout.strip()


def load_average() -> float:
    """The 1-minute load average."""
    return os.getloadavg()[0]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument(
        "--protocol",
        choices=("dynamixel", "feetech", "none"),
        default="dynamixel",
        help="the bus's protocol; none: the simulator-only demo, for comparison",
    )
    parser.add_argument("--neighbours", type=int, default=0, help="CPU-bound processes beside the runs")
    parser.add_argument(
        "--output", type=Path, default=None, help="folder for the runs' outputs (default: a temporary one)"
    )
    args = parser.parse_args()
    base = args.output or Path(tempfile.mkdtemp(prefix="servo_demo_runs_"))
    neighbours = [
        subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(args.neighbours)
    ]
    print(
        f"{args.runs} runs of ik_demo --quick --fixed-base --servo-bus {args.protocol}, {args.neighbours} CPU-bound neighbours; outputs in {base}"
    )
    print(uptime())
    passed = 0
    try:
        for k in range(args.runs):
            load = load_average()
            code, results, cpu, wall = run_demo(args.protocol, base / f"run{k}")
            settled = worst_settled(results)
            bus = results.get("servo_bus", {})
            cycles = max(1, bus.get("cycles", 0))
            ok = code == 0 and bool(settled) and all(v <= BOUND_MM for v in settled.values())
            passed += ok
            chains = " ".join(f"{c}={v:.1f}" for c, v in sorted(settled.items())) or "no results"
            print(
                f"run {k}: load {load:.1f} exit {code} {'ok ' if ok else 'BAD'} settled mm: {chains}; "
                f"bus {bus.get('cycle_hz', 0):.1f} Hz (p1 {bus.get('cycle_hz_p1', 0):.1f} Hz, "
                f"{bus.get('overruns', '?')} overruns, {bus.get('dropped', '?')} dropped, longest gap {bus.get('longest_gap_s', '?')} s), "
                f"{bus.get('errors', '?')} errors {bus.get('errors_by_kind', {})}; "
                f"wall {wall:.0f} s",
                flush=True,
            )
            costs = ", ".join(
                f"{name} {cpu.get(name, 0.0):.1f} s ({1e3 * cpu.get(name, 0.0) / cycles:.2f} ms/cycle)"
                for name in PROCESSES
            )
            print(f"        CPU: {costs}", flush=True)
    finally:
        for neighbour in neighbours:
            neighbour.kill()
            neighbour.wait()
    print(f"{passed} of {args.runs} runs settled within {BOUND_MM:g} mm on every chain")
    print(uptime())
    return 0


if __name__ == "__main__":
    sys.exit(main())
