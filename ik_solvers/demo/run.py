"""The demo's timeline over real DDS: wait for the nodes, hold the stance, move, switch the arms' solver.

Shows progress on stdout while it runs. Times are seconds from the start of the motion; the
stance is held for PREROLL seconds before (negative times).
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field

import numpy as np
import rclpy
from rclpy.executors import SingleThreadedExecutor

from ik_solvers.chain import Chain
from ik_solvers.demo.metrics import Recording
from ik_solvers.demo.node import DemoNode
from ik_solvers.demo.processes import Children
from ik_solvers.demo.trajectories import DemoTrajectories

PREROLL = 2.0  # [s] the first targets, held before the motion so the robot reaches its stance
READY_TIMEOUT = 30.0  # [s] for the child processes to start and match
TAIL = 1.2  # [s] after the motion, so that the IK node's last diagnostics arrive
PROGRESS_PERIOD = 1.0  # [s]
CHECK_RATE = 5.0  # [Hz] per chain: targets also sent to the solve_ik service, for the IK errors
SECOND_SOLVER = "jacobian"

TICK_ROUNDING = 1e-6  # periods: a time this close below a tick counts as the tick


@dataclass
class DemoRun:
    """What the run produced: the recording, when the arms switched solver, solve-count snapshots."""

    recording: Recording
    second_solver: str = SECOND_SOLVER
    switch_time: float | None = None
    wall_time: float = 0.0
    snapshots: list[tuple[float, dict[str, tuple[int, int]]]] = field(default_factory=list)

    def counts_at(self, t: float) -> dict[str, tuple[int, int]]:
        """The IK node's (solves, failures) per chain as last reported before ``t`` [s]."""
        counts: dict[str, tuple[int, int]] = {}
        for when, snapshot in self.snapshots:
            if when <= t:
                counts = snapshot
        return counts


def run_motion(
    chains: dict[str, Chain],
    trajectories: DemoTrajectories,
    rate: float,
    children: Children,
    ik_node: str,
    sim_time: bool = False,
) -> DemoRun:
    """Run the whole timeline; raise RuntimeError/TimeoutError when the pipeline fails.

    ``sim_time``: the demo's node runs on the simulator's ``/clock`` (lock-stepped simulation).
    """
    wall_start = time.monotonic()
    with rclpy.init(args=["ik_demo"]):
        node = DemoNode(chains, ik_node, sim_time)
        executor = SingleThreadedExecutor()
        executor.add_node(node)
        _wait_until(
            executor,
            node.ready,
            READY_TIMEOUT,
            children,
            "the IK node and simulator to connect",
        )
        if not node.parameters.wait_for_services(timeout_sec=READY_TIMEOUT):
            raise TimeoutError(f"the parameter services of '{ik_node}' never appeared")
        # On simulated time the node's clock reads 0 until its first /clock message (which a
        # waiting lock-stepped simulator repeats only every 0.1 s): the motion's start must not be
        # taken from that 0, or the whole timeline seems to have passed at once.
        _wait_until(executor, lambda: not sim_time or node.seconds() > 0.0, READY_TIMEOUT, children, "/clock")
        node.begin(PREROLL)
        run = DemoRun(node.recording)
        _drive(node, executor, trajectories, rate, run, children)
        run.wall_time = time.monotonic() - wall_start
    return run


def next_tick_offset(t: float, period: float) -> float:
    """[s] of the first tick of ``period`` [s] strictly after ``t`` [s] (both from the same start).

    A time that lands on a tick up to rounding (simulated time comes in whole control periods)
    counts as that tick, so the next one is a full period later."""
    return (np.floor(t / period + TICK_ROUNDING) + 1) * period


def _wait_until(executor, condition, timeout: float, children: Children, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        children.check_running()
        if time.monotonic() > deadline:
            raise TimeoutError(f"waited {timeout:g} s for {what}")
        executor.spin_once(timeout_sec=0.05)


def _drive(
    node: DemoNode,
    executor,
    trajectories: DemoTrajectories,
    rate: float,
    run: DemoRun,
    children,
) -> None:
    """Send targets at ``rate`` from -PREROLL to the end; switch the arms' solver halfway."""
    period, switch, last_progress, last_check = 1.0 / rate, None, -np.inf, -1
    end = trajectories.duration
    while True:
        t = node.now()
        if t >= end + TAIL:
            break
        if t < end:
            targets = trajectories.sample(np.array([max(t, 0.0)]))
            check = t >= 0 and int(t * CHECK_RATE) != last_check
            last_check = int(t * CHECK_RATE) if check else last_check
            for name, (poses, poles) in targets.items():
                node.send(name, poses[0], None if poles is None else poles[0])
                if check:
                    node.check(name, poses[0], None if poles is None else poles[0])
        if switch is None and t >= trajectories.phase:
            switch = node.set_solver(list(trajectories.arms), run.second_solver)
            run.snapshots.append((t, dict(node.solve_counts)))
        if switch is not None and run.switch_time is None and switch.done():
            run.switch_time = _switched(switch, t, run.second_solver)
        if t - last_progress >= PROGRESS_PERIOD:
            last_progress = t
            _progress(t, trajectories, node, run)
            children.check_running()
            run.snapshots.append((max(t, 0.0), dict(node.solve_counts)))
        next_tick = node.start + next_tick_offset(t, period)
        while node.seconds() < next_tick - TICK_ROUNDING * period:  # simulated time lands on ticks
            children.check_running()  # a simulator that stopped stops its clock
            executor.spin_once(timeout_sec=max(next_tick - node.seconds(), 0.0))
    run.snapshots.append((end, dict(node.solve_counts)))
    if switch is None or run.switch_time is None:
        raise RuntimeError(f"the IK node did not confirm the switch to the {run.second_solver} solver")
    _progress(end, trajectories, node, run, final=True)


def _switched(future, t: float, solver: str) -> float | None:
    """The switch time when every parameter was accepted; raise RuntimeError with the refusal."""
    response = future.result()
    refused = [r.reason for r in response.results if not r.successful]
    if refused:
        raise RuntimeError(f"the IK node refused the switch to {solver}: {'; '.join(refused)}")
    print(
        f"\n  arms switched to the {solver} solver at t = {t:.1f} s (parameter change)",
        flush=True,
    )
    return t


def _progress(
    t: float,
    trajectories: DemoTrajectories,
    node: DemoNode,
    run: DemoRun,
    final: bool = False,
) -> None:
    """One progress line: time, a bar, what moves now, commands and joint states received."""
    total = trajectories.duration
    done = min(max(t, 0.0) / total, 1.0)
    bar = "#" * int(30 * done) + "." * (30 - int(30 * done))
    if t < 0:
        doing = "reaching the stance"
    elif t < trajectories.phase:
        doing = "legs squat, arms circle (geometric)"
    else:
        doing = f"legs step in place, arms circle ({run.second_solver if run.switch_time else 'switching'})"
    commands = sum(len(s.times) for s in node.recording.commands.values())
    states = len(next(iter(node.recording.states.values())).times)
    line = (
        f"  [{bar}] {max(t, 0.0):5.1f}/{total:.0f} s  {doing:<48s} commands {commands:6d}  states {states:6d}"
    )
    end = "\n" if final or not sys.stdout.isatty() else "\r"
    print(line, end=end, flush=True)
