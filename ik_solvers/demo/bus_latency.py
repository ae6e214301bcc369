"""How late the servo bus delivers ik_node's commands (``ik_demo --servo-bus``, walking).

:class:`BusLatencyRecorder` keeps ik_node's ``/joint_commands`` (stamped with the simulated period
they answer) and the bus's goals (``/servo_bus/goals``, what the emulated servos were last written,
stamped with the simulated time of the newest state the bus had; sim_node runs a period per
write), each with its wall-clock arrival. :func:`bus_latency` matches every goal vector to the
newest command it equals within the servos' resolution (an angle through ticks and back) and
gives, for the first goals that carry each command, the delay in simulated periods (0: written
while the simulation still stood at the command's period, as sim_node's lock step behind a bus
waits for; 1: the period ran on older goals) and in wall time (command seen → goals seen: the
bridge's wait for its cycle, the Sync Write's bytes, the emulator). Goals that equal two consecutive commands (joints not moving) tell nothing
and are left out; goals that equal no command (the bridge's velocity limit cut the step) are
counted as unmatched.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

MATCH_TOLERANCE = 2e-3  # [rad] a goal equals a command: 4096-tick servos quantise to 1.5 mrad
SEARCH = 20  # newest commands a goal is compared with


@dataclass
class Sample:
    """One message: simulated stamp [s], wall-clock arrival [s] (monotonic), positions [rad]."""

    stamp: float
    arrival: float
    positions: np.ndarray


@dataclass
class BusLatencyRecorder:
    """Commands and goals over the named joints, in arrival order (ROS-free: fed by a node)."""

    joints: list[str]
    commands: list[Sample] = field(default_factory=list)
    goals: list[Sample] = field(default_factory=list)

    def add(self, into: list[Sample], stamp: float, names: list[str], positions: list[float]) -> None:
        """Keep a message of ``into`` (``self.commands`` or ``self.goals``) that names every joint."""
        value = dict(zip(names, positions))
        if all(name in value for name in self.joints):
            into.append(Sample(stamp, time.monotonic(), np.array([value[n] for n in self.joints])))


def bus_latency(recorder: BusLatencyRecorder, period: float) -> dict:
    """The delays of the goals that identify their command: counts, the delay in simulated
    periods of ``period`` [s] (p50, p90, max, and its histogram) and in wall time [ms] (p50, p90)."""
    periods, wall, unmatched, taken = [], [], 0, set()
    commands = recorder.commands
    arrivals = np.array([c.arrival for c in commands])
    for goal in recorder.goals:
        newest = int(np.searchsorted(arrivals, goal.arrival))  # commands seen before the goal
        match = _match(commands[max(0, newest - SEARCH) : newest], goal.positions)
        if match is None:
            unmatched += 1
            continue
        index = max(0, newest - SEARCH) + match
        if index == 0 or _equal(commands[index - 1].positions, commands[index].positions):
            continue  # the joints held still: which command it was is unknown
        if index not in taken:  # the first goal carrying this command: the bus's delay
            taken.add(index)
            periods.append(round((goal.stamp - commands[index].stamp) / period))
            wall.append(1e3 * (goal.arrival - commands[index].arrival))
    if not periods:
        return {"matched": 0, "unmatched": unmatched}
    values, counts = np.unique(periods, return_counts=True)
    return {
        "matched": len(periods),
        "unmatched": unmatched,
        "periods_p50": float(np.percentile(periods, 50)),
        "periods_p90": float(np.percentile(periods, 90)),
        "periods_max": int(max(periods)),
        "periods_histogram": {str(int(v)): int(c) for v, c in zip(values, counts)},
        "wall_ms_p50": float(np.percentile(wall, 50)),
        "wall_ms_p90": float(np.percentile(wall, 90)),
    }


def format_latency(summary: dict, period: float) -> str:
    """One line for the printed tables."""
    if not summary.get("matched"):
        return f"bus latency: no goal identified its command ({summary.get('unmatched', 0)} unmatched)"
    histogram = ", ".join(f"{k}: {v}" for k, v in summary["periods_histogram"].items())
    return (
        f"bus latency: a command's first goals {summary['periods_p50']:g} (p90 "
        f"{summary['periods_p90']:g}, max {summary['periods_max']}) periods of {1e3 * period:g} ms after "
        f"its period [periods: commands {histogram}]; command seen -> goals seen "
        f"{summary['wall_ms_p50']:.1f} / {summary['wall_ms_p90']:.1f} ms p50 / p90 of wall time; "
        f"{summary['unmatched']} goals unmatched"
    )


def _match(candidates: list[Sample], positions: np.ndarray) -> int | None:
    """Index of the newest candidate equal to ``positions`` within MATCH_TOLERANCE, or None."""
    for index in range(len(candidates) - 1, -1, -1):
        if _equal(candidates[index].positions, positions):
            return index
    return None


def _equal(a: np.ndarray, b: np.ndarray) -> bool:
    return bool(np.max(np.abs(a - b)) <= MATCH_TOLERANCE)
