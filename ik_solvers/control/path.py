"""A path of targets for one limb, solved as a whole (ik_node's ``solve_ik_path``), without ROS.

The limb's configured solver decides how. One with ``solve_path`` (the geometric 7-DoF arm,
``solvers/geometric/arm7/path.py``) sees every target first and picks the arm's self-motion over
the whole path; any other solver (the legs' closed form, the Jacobian solvers, which have a finite
set of branches or no redundancy to plan) solves the targets one after another, each seeded with
the previous answer, as ik_node does while it tracks a stream of targets. Every row is then judged
as ik_node judges a solution before commanding it: met (the solver's success, within the limits)
and continuous (the solver's own flag, and no joint moving more than ``max_joint_jump`` from the
previous row, the first row from the seed). Nothing is commanded, and the chain's diagnostics
counters describe its tracking only: a path solve is not counted there.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ik_solvers.control.commander import Commander, Limb, RequestError
from ik_solvers.control.goal_change import joint_steps
from ik_solvers.solvers import BatchResult
from ik_solvers.solvers.checks import check_seed
from ik_solvers.solvers.registry import kind_used

# A path is solved in one service call, which blocks ik_node's (single-threaded) executor: no
# target is tracked and no command is stepped meanwhile. At 6 ms per target for the arm's
# whole-path solve (15 ms measured on a busy 2-core machine; the other solvers take well under
# 1 ms), 1000 targets hold the node for 6-15 s: 5-10 s of motion sampled at 100-200 Hz. Longer
# paths: split them, each part seeded with the last answer of the one before.
MAX_PATH_TARGETS = 1000


@dataclass(frozen=True)
class PathAnswer:
    """One answer per target of a path.

    Attributes:
        q: (N, n) joint positions [rad or m], in ``chain.joint_names`` order, within the limits.
        met: (N,) bool: the target was met within the solver's tolerance, within the limits.
        continuous: (N,) bool: the row continues the previous one (the first: the seed).
        messages: N strings, "" where nothing needs saying.
        solver_used: the solver kind and how it went over the path.
    """

    q: np.ndarray
    met: np.ndarray
    continuous: np.ndarray
    messages: tuple[str, ...]
    solver_used: str


def check_path_length(count: int) -> None:
    """Raise RequestError unless 1 ≤ ``count`` ≤ MAX_PATH_TARGETS."""
    if not 1 <= count <= MAX_PATH_TARGETS:
        raise RequestError(
            f"{count} targets sent; send 1 to {MAX_PATH_TARGETS} targets per call (the call blocks "
            "the node meanwhile; split longer paths, each part seeded with the last answer)"
        )


def solve_path(commander: Commander, limb: Limb, targets: np.ndarray, seed: np.ndarray | None) -> PathAnswer:
    """Solve ``targets`` (N, 4, 4), tip poses in the chain's base frame [m], as one path from
    ``seed`` (n,) [rad or m] (None: from anywhere; outside the limits: clipped into them, as the
    solvers do), with the limb's configured solver.

    Raises:
        RequestError: N is 0 or above MAX_PATH_TARGETS.
        IKError: the solver refused the targets or the seed (wrong shape, NaN/inf).
    """
    targets = np.asarray(targets, dtype=float)
    check_path_length(len(targets))
    if seed is not None:  # clipped as the solvers clip it: the first row is judged against it
        seed = check_seed(limb.chain, seed)
    if hasattr(limb.solver, "solve_path"):
        result, how = limb.solver.solve_path(targets, seed), "whole path"
    else:
        result, how = _one_by_one(limb, targets, seed), "seeded one by one"
    return _judged(commander, limb, result, seed, f"{kind_used(limb.solver_kind, limb.solver)}, {how}")


def _one_by_one(limb: Limb, targets: np.ndarray, seed: np.ndarray | None) -> BatchResult:
    """Each target solved seeded with the previous answer (the first with ``seed``)."""
    rows = []
    for target in targets:
        rows.append(limb.solver.solve(target, seed=seed))
        seed = rows[-1].q
    return BatchResult(
        np.array([r.success for r in rows]),
        np.array([r.q for r in rows]),
        np.array([r.position_error for r in rows]),
        np.array([r.orientation_error for r in rows]),
        np.array([r.iterations for r in rows]),
        tuple(r.message for r in rows),
        np.array([r.continuous for r in rows]),
    )


def _judged(commander: Commander, limb: Limb, result: BatchResult, seed, solver_used: str) -> PathAnswer:
    """Rows met within the limb's limits; continuous by the solver's flag and by max_joint_jump."""
    q = np.asarray(result.q, dtype=float)
    inside = np.array([limb.filter.admits(row) for row in q])
    previous = np.vstack([q[:1] if seed is None else np.asarray(seed, dtype=float)[None], q[:-1]])
    steps = joint_steps(limb.chain, q, previous)
    small = steps.max(axis=1) <= commander.max_joint_jump
    messages = []
    for row, message in enumerate(result.messages):
        notes = [message] if message else []
        if not inside[row]:
            notes.append("solver returned q outside the limits")
        if not small[row]:
            joint = int(steps[row].argmax())
            notes.append(
                f"joint '{limb.chain.joint_names[joint]}' moves {steps[row, joint]:.3g} from the "
                f"previous row, more than max_joint_jump = {commander.max_joint_jump:g}"
            )
        messages.append("; ".join(notes))
    met = np.asarray(result.success, dtype=bool) & inside
    continuous = np.asarray(result.continuous, dtype=bool) & small
    return PathAnswer(q, met, continuous, tuple(messages), solver_used)
