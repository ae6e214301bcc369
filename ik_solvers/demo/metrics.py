"""What the demo recorded, and the per-chain figures of its results table.

No ROS here: the demo's ROS node fills a :class:`Recording` from its callbacks; this module turns
it into one :class:`ChainMetrics` row per chain and demo segment. Times are seconds since the
start of the demo's motion.

- IK success: the IK node's own solve and failure counts (its diagnostics).
- IK error: what the IK node's ``solve_ik`` service answered for sampled targets (the same
  target, pole and solver as the topic) [mm, deg].
- command rate: ``joint_commands`` messages that changed the chain's joints, per second.
- tracking error: FK of the simulated joints (``/joint_states``) against the target at the time
  the state was received [mm, deg]; it includes the servo and pipeline lag while the target moves.
  "settled" keeps only samples where the targets have been still for a while (steady state).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ik_solvers.chain import Chain
from ik_solvers.spatial import pose_error


@dataclass(frozen=True)
class Segment:
    """A stretch of the demo [start, end) [s] during which ``chain`` used ``solver``."""

    chain: str
    solver: str
    start: float
    end: float


@dataclass
class _Series:
    """Samples appended one at a time: times [s] and rows."""

    times: list[float] = field(default_factory=list)
    rows: list[np.ndarray] = field(default_factory=list)

    def append(self, time: float, row: np.ndarray) -> None:
        self.times.append(time)
        self.rows.append(row)

    def arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """(N,) times [s] and (N, ...) rows."""
        return np.array(self.times), np.array(self.rows)

    def count_in(self, segment: Segment) -> int:
        """Samples within [segment.start, segment.end)."""
        times = np.array(self.times)
        return int(((times >= segment.start) & (times < segment.end)).sum())


class Recording:
    """Per chain: targets sent (4x4 poses), commands and joint states received (joint order of the
    chain), and solve_ik answers (rows: success, position error [m], orientation error [rad])."""

    def __init__(self, chains: dict[str, Chain]) -> None:
        self.chains = chains
        self.targets = {name: _Series() for name in chains}
        self.commands = {name: _Series() for name in chains}
        self.states = {name: _Series() for name in chains}
        self.solves = {name: _Series() for name in chains}
        self.base = _Series()  # floating base: torso (x, y, z, qw, qx, qy, qz) in the world [m]

    def add_target(self, chain: str, time: float, pose: np.ndarray) -> None:
        """A target (4, 4) pose in the chain base, sent at ``time``."""
        self.targets[chain].append(time, pose)

    def add_base_pose(self, time: float, pose: tuple[float, ...]) -> None:
        """The simulated torso pose (x, y, z, qw, qx, qy, qz) in the world at ``time``."""
        self.base.append(time, np.array(pose))

    def add_solve(self, chain: str, time: float, success: bool, position: float, orientation: float) -> None:
        """A solve_ik answer for a target sent at ``time``: errors in [m] and [rad]."""
        self.solves[chain].append(time, np.array([float(success), position, orientation]))

    def robot_at(self, t: float) -> tuple[dict[str, float], np.ndarray | None]:
        """Simulated joint angles [rad] (all chains) and torso pose (7,) or None, closest to ``t`` [s]."""
        angles: dict[str, float] = {}
        for name, series in self.states.items():
            times, rows = series.arrays()
            if len(times):
                angles.update(zip(self.chains[name].joint_names, rows[int(np.argmin(np.abs(times - t)))]))
        times, rows = self.base.arrays()
        base = rows[int(np.argmin(np.abs(times - t)))] if len(times) else None
        return angles, base

    def add_joint_message(self, kind: str, time: float, names, positions) -> None:
        """A JointState: ``kind`` "command" or "state"; each chain it fully covers gets a row.

        A command that leaves a chain's joints where the previous one had them is not counted
        for that chain (the IK node sends all chains' commands in every message).
        """
        series = self.commands if kind == "command" else self.states
        index = {name: i for i, name in enumerate(names)}
        for chain_name, chain in self.chains.items():
            columns = [index.get(joint) for joint in chain.joint_names]
            if None in columns:
                continue
            row = np.array([positions[c] for c in columns])
            entry = series[chain_name]
            if kind == "command" and entry.rows and np.array_equal(entry.rows[-1], row):
                continue
            entry.append(time, row)


@dataclass(frozen=True)
class ChainMetrics:
    """One row of the results table. Errors in mm and degrees, rate in Hz."""

    chain: str
    solver: str
    targets: int
    success_percent: float
    ik_position: tuple[float, float]  # mean, max [mm]
    ik_orientation: tuple[float, float]  # mean, max [deg]
    tracking_position: tuple[float, float]  # mean, max [mm]
    tracking_orientation: tuple[float, float]  # mean, max [deg]
    settled_position_max: float  # [mm] tracking error while targets hold still
    command_rate: float  # [Hz]


def _mean_max(values: np.ndarray, scale: float) -> tuple[float, float]:
    if values.size == 0:
        return (float("nan"), float("nan"))
    return (float(values.mean() * scale), float(values.max() * scale))


def ik_answers(recording: Recording, segment: Segment) -> np.ndarray:
    """(N, 3) solve_ik answers in the segment: success (0/1), position [m], orientation [rad] errors."""
    times, rows = recording.solves[segment.chain].arrays()
    if len(times) == 0:
        return np.zeros((0, 3))
    return rows[(times >= segment.start) & (times < segment.end)]


def tracking_errors(
    recording: Recording,
    segment: Segment,
    target_at: Callable[[np.ndarray], np.ndarray],
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(times [s], position errors [m], orientation errors [rad]) of the simulated tip in the segment.

    ``target_at(times)`` gives the chain's (N, 4, 4) target poses at those times.
    """
    times, measured = recording.states[segment.chain].arrays()
    if len(times) == 0:
        return np.zeros(0), np.zeros(0), np.zeros(0)
    inside = (times >= segment.start) & (times < segment.end)
    times = times[inside]
    if len(times) == 0:
        return times, np.zeros(0), np.zeros(0)
    reached = recording.chains[segment.chain].fk(measured[inside])
    position, orientation = pose_error(target_at(times), reached)
    return times, position, orientation


def chain_metrics(
    recording: Recording,
    segment: Segment,
    target_at: Callable[[np.ndarray], np.ndarray],
    settled: Callable[[np.ndarray], np.ndarray],
    solves: tuple[int, int] | None,
) -> ChainMetrics:
    """The table row of one chain over one segment.

    Args:
        target_at: times (N,) [s] → the chain's target poses (N, 4, 4).
        settled: times (N,) [s] → True where the targets have been still (steady state).
        solves: (solves, failures) the IK node counted for this chain in the segment; None: use
            the sampled solve_ik answers instead.
    """
    answers = ik_answers(recording, segment)
    if solves is not None and solves[0] > 0:
        success = 100.0 * (solves[0] - solves[1]) / solves[0]
    else:
        success = 100.0 * answers[:, 0].mean() if len(answers) else float("nan")
    times, position, orientation = tracking_errors(recording, segment, target_at)
    still = settled(times) if len(times) else np.zeros(0, dtype=bool)
    return ChainMetrics(
        chain=segment.chain,
        solver=segment.solver,
        targets=recording.targets[segment.chain].count_in(segment),
        success_percent=success,
        ik_position=_mean_max(answers[:, 1], 1e3),
        ik_orientation=_mean_max(answers[:, 2], np.degrees(1.0)),
        tracking_position=_mean_max(position, 1e3),
        tracking_orientation=_mean_max(orientation, np.degrees(1.0)),
        settled_position_max=_mean_max(position[still], 1e3)[1],
        command_rate=recording.commands[segment.chain].count_in(segment) / (segment.end - segment.start),
    )


HEADER = (
    ("chain", 10),
    ("solver", 9),
    ("targets", 7),
    ("IK ok %", 7),
    ("IK pos mm mean/max", 18),
    ("IK ori deg mean/max", 19),
    ("track mm mean/max", 17),
    ("track deg mean/max", 18),
    ("settled mm max", 14),
    ("cmd Hz", 6),
)


def format_table(rows: list[ChainMetrics]) -> str:
    """The results table as fixed-width text, one line per chain and segment."""

    def pair(values: tuple[float, float], digits: int) -> str:
        return f"{values[0]:.{digits}f} / {values[1]:.{digits}f}"

    lines = ["  ".join(f"{title:>{width}}" for title, width in HEADER)]
    lines.append("  ".join("-" * width for _, width in HEADER))
    for row in rows:
        cells = (
            row.chain,
            row.solver,
            str(row.targets),
            f"{row.success_percent:.1f}",
            pair(row.ik_position, 3),
            pair(row.ik_orientation, 3),
            pair(row.tracking_position, 1),
            pair(row.tracking_orientation, 2),
            f"{row.settled_position_max:.2f}",
            f"{row.command_rate:.0f}",
        )
        lines.append("  ".join(f"{cell:>{width}}" for cell, (_, width) in zip(cells, HEADER)))
    return "\n".join(lines)
