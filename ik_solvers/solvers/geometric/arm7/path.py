"""A whole path of targets for a 7-DoF arm at once: the self-motion chosen so that no joint jumps.

Solved one target at a time, seeded with the previous answer (what ``ik_node`` does while it tracks
a stream of poses), the arm must pick its swivel without knowing where the targets go next; it
sometimes follows a part of its self-motion that a joint limit later cuts off, and must jump
(``docs/continuity.md``). Given the whole sequence of targets, the choice can look ahead:

1. At every target, the arm's solutions are sampled: the swivel angle on a grid, refined where a
   joint turns fast with it (next to the shoulder or wrist alignment) and next to every swivel where
   a joint meets a limit (the ends of the feasible arm-angle intervals, Shimizu et al. 2008, so
   that no narrow interval is missed), on both branches of the shoulder and of the wrist and on
   both elbow roots when both fit the elbow's limits. Every sample is an exact solution (the closed
   form); those outside the joint limits are dropped. The answers of seeded solves one target
   after the other (what ``ik_node`` would command) are added: at an exact alignment they hold the
   split of the coupled joints that continues.
2. Dynamic programming over consecutive targets picks one solution per target: first the smallest
   achievable largest joint-space step (Euclidean, [rad]) of the whole path (a bottleneck path,
   from the seed when there is one), then, among the paths whose every step stays within it, the
   least summed squared joint motion. Where that plan still takes a step far larger than its usual
   one, chains of seeded solves from both sides of the step join the samples, with the splits of
   the coupled joints where a chain sits exactly at an alignment (the swivel samples hold one split
   there), and the programme runs again.

This is the discrete dynamic programming over a grid of the redundancy parameter of E. Ferrentino
and P. Chiacchio, "On the optimal resolution of inverse kinematics for redundant manipulators using
a topological analysis", Journal of Mechanisms and Robotics 12(3), 2020, with the swivel angle of
Tolani et al. (2000) as that parameter. A target the arm cannot reach within its limits takes
the closed form's nearest pose seeded with the previous row (its row fails, with the reason; a
malformed one holds the previous row), and the path is planned over the other rows.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from ik_solvers.solvers.checks import check_seed
from ik_solvers.solvers.errors import InvalidTargetError
from ik_solvers.solvers.geometric.arm7.follow import at_swivels
from ik_solvers.solvers.results import BatchResult
from ik_solvers.spatial import pose_error

SWIVELS = 256  # swivel grid per branch and elbow root, before refinement
FINE_STEP = 0.02  # [rad] refine a grid interval until no joint moves more than this across a piece
MAX_PIECES = 32  # at most this many pieces per grid interval (next to an alignment joints spin)
WRAP = 3.0  # [rad] a neighbour difference this large is a joint's wrap at ±π, not a fast turn
BOUND_OFFSETS = np.array([-0.01, -0.003, -1e-6, 1e-6, 0.003, 0.01])  # [rad] samples next to a limit swivel
REPAIRS = 3  # rounds of repair at most
REPAIR_FLOOR, REPAIR_FACTOR = 0.1, 3.0  # [rad], [1]: a step above both (× the median step) is repaired
REACH = 100  # rows a repair chain runs at most
SPLITS = 48  # first-joint values sampled where a repair chain sits exactly at an alignment
ALIGNED = 1e-9  # |sin(θ2 - α)| of a triple's middle joint at or below this: the alignment
BRANCHES = ((True, True), (True, False), (False, True), (False, False))  # (shoulder, wrist) first branch


def solve_path(solver, targets: np.ndarray, seed: np.ndarray | None = None) -> BatchResult:
    """Solve targets (N, 4, 4) as one path from ``seed`` (7,) [rad] (the arm's configuration now;
    None: start anywhere). Returns a BatchResult over the rows; ``continuous`` is False where a
    joint moves more than the solver's ``jump_limit`` from the previous row (no sampled path avoids
    it), and that row's message says which joint and how far."""
    start = None if seed is None else check_seed(solver.chain, seed)
    fallback = solver.solve_batch(targets)  # checks the targets; which rows can be met
    targets = np.asarray(targets, dtype=float)
    turns = solver.chain.rest_configuration() if start is None else start
    good = np.flatnonzero(fallback.success)
    q = np.empty((len(targets), 7))
    if good.size:
        q[good] = _plan(solver, targets[good], start, turns)
    previous = turns
    for row in range(len(targets)):
        if not fallback.success[row]:
            q[row] = _nearest_pose(solver, targets[row], previous)
        previous = q[row]
    return _result(solver, targets, q, start, fallback)


def _plan(solver, targets: np.ndarray, start: np.ndarray | None, turns: np.ndarray) -> np.ndarray:
    """(N, 7) one solution per target (all of them reachable): the dynamic programme over the
    sampled solutions, then repairs. Where the plan still takes a step much larger than its usual
    one, chains of seeded solves run forward from the row before the step and backward from the
    row after it (up to ``REACH`` rows; a run of such steps gets one chain into it and one out of
    it) and join the samples; the programme runs again. Next to an exact alignment the chains
    hold the splits of the coupled joints that the samples miss."""
    chains = _chain(solver, targets, turns)
    sets = [
        np.vstack([_solutions(solver, target, turns), answer[None]])
        for target, answer in zip(targets, chains)
    ]
    q = _programme(sets, start)
    for _ in range(REPAIRS):
        before = _previous_rows(q, start)
        steps = np.linalg.norm(q - before, axis=1)
        large = np.flatnonzero(steps > max(REPAIR_FLOOR, REPAIR_FACTOR * np.median(steps)))
        if large.size == 0:
            break
        for first, last in _runs(large):  # a run of large steps: one chain into it, one out of it
            ahead = np.arange(first, min(first + REACH, len(targets)))
            behind = np.arange(last - 1, max(last - 1 - REACH, -1), -1)
            for rows, seed in ((ahead, before[first]), (behind, q[last])):
                for index, answer in zip(rows, _chain(solver, targets[rows], seed)):
                    found = [answer[None], *_splits(solver, targets[index], answer)]
                    sets[index] = np.vstack([sets[index], *found])
        q = _programme(sets, start)
    return q


def _previous_rows(q: np.ndarray, start: np.ndarray | None) -> np.ndarray:
    """(N, 7) the row before each row of q: the seed before the first (itself without a seed)."""
    return np.vstack([q[:1] if start is None else start[None], q[:-1]])


def _runs(rows: np.ndarray) -> list[tuple[int, int]]:
    """(first, last) of each run of consecutive indices in the sorted ``rows``."""
    breaks = np.flatnonzero(np.diff(rows) > 1)
    return list(zip(rows[np.r_[0, breaks + 1]], rows[np.r_[breaks, len(rows) - 1]]))


def _splits(solver, target: np.ndarray, q: np.ndarray) -> list[np.ndarray]:
    """Where q (7,) has its shoulder or wrist exactly at the alignment, only the sum of that triple's
    first and third joints is fixed: the solutions with the first joint at ``SPLITS`` values across
    its range (a seeded solve keeps the seed's first joint there). A path that rests at the alignment
    while it trades the two joints needs these; the swivel samples hold one split each."""
    geo, found = solver.geometry, []
    for first, triple in ((0, geo.shoulder), (4, geo.wrist)):
        if abs(math.sin(q[first + 1] - triple.alpha)) > ALIGNED:
            continue
        for value in np.linspace(triple.lower[0], triple.upper[0], SPLITS):
            seed = q.copy()
            seed[first] = value
            found.append(solver.solve(target, seed).q[None])
    return found


def _programme(sets: list[np.ndarray], start: np.ndarray | None) -> np.ndarray:
    """(N, 7) one row of each set: the smallest largest step, then the least summed squared motion."""
    chosen = _least_motion(sets, start, _bottleneck(sets, start))
    return np.array([found[i] for found, i in zip(sets, chosen)])


def _nearest_pose(solver, target: np.ndarray, previous: np.ndarray) -> np.ndarray:
    """A row that cannot be met: the seeded closed form's nearest pose from the previous row's
    answer; a malformed target (NaN, not a rotation) holds the previous answer."""
    try:
        return solver.solve(target, previous).q
    except InvalidTargetError:
        return previous


def _chain(solver, targets: np.ndarray, seed: np.ndarray) -> list[np.ndarray]:
    """(N of (7,)) seeded solves one target after the other from ``seed``, as ``ik_node`` gets them."""
    answers = []
    for target in targets:
        seed = solver.solve(target, seed).q
        answers.append(seed)
    return answers


def _solutions(solver, target: np.ndarray, seed: np.ndarray) -> np.ndarray:
    """(M, 7) exact solutions within the limits at ``target``: swivel samples × branches × elbow roots.

    ``seed`` only settles the 2π-turn of joints whose range is wider than a turn."""
    grid = np.linspace(-math.pi, math.pi, SWIVELS, endpoint=False)
    found = []
    for arm, bounds in solver.elbow_constructions(target, seed):
        inside = (np.asarray(bounds)[:, None] + BOUND_OFFSETS[None, :]).ravel()
        for branches in BRANCHES:
            psi = np.concatenate([_refined(grid, at_swivels(solver.geometry, arm, branches, grid)), inside])
            q = at_swivels(solver.geometry, arm, branches, psi)
            found.append(q[solver.chain.within_limits(q, 1e-10)])
    return np.vstack(found) if found else np.zeros((0, 7))


def _refined(grid: np.ndarray, q: np.ndarray) -> np.ndarray:
    """The grid with each interval cut into pieces across which no joint moves more than FINE_STEP."""
    step = np.abs(np.diff(np.vstack([q, q[:1]]), axis=0)).max(axis=1)
    pieces = np.clip(np.ceil(step / FINE_STEP), 1, MAX_PIECES).astype(int)
    pieces[step > WRAP] = 1
    width = 2.0 * math.pi / len(grid)
    offsets = np.concatenate([np.arange(p) / p for p in pieces])
    return np.repeat(grid, pieces) + width * offsets


def _squared_steps(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Squared joint-space distances [rad²] between every row of a (m, 7) and of b (M, 7): (m, M)."""
    return np.maximum((a * a).sum(axis=1)[:, None] + (b * b).sum(axis=1)[None, :] - 2.0 * a @ b.T, 0.0)


def _bottleneck(sets: list[np.ndarray], start: np.ndarray | None) -> float:
    """The smallest achievable largest squared step [rad²] over the whole path (backward minimax)."""
    worst = np.zeros(len(sets[-1]))
    for there, here in itertools.pairwise(sets[::-1]):  # from the last pair back
        worst = np.maximum(_squared_steps(here, there), worst[None, :]).min(axis=1)
    if start is None:
        return float(worst.min())
    return float(np.maximum(_squared_steps(start[None], sets[0])[0], worst).min())


def _least_motion(sets: list[np.ndarray], start: np.ndarray | None, limit: float) -> list[int]:
    """Indices, one per set, of the path whose every squared step is ≤ ``limit`` [rad²] with the
    least summed squared joint motion (forward pass, then back along the pointers)."""
    allowed = limit * (1.0 + 1e-9) + 1e-18
    cost = np.zeros(len(sets[0])) if start is None else _squared_steps(start[None], sets[0])[0]
    cost[cost > allowed] = np.inf
    pointers = []
    for here, there in itertools.pairwise(sets):
        steps = _squared_steps(there, here)
        total = np.where(steps <= allowed, steps + cost[None, :], np.inf)
        back = total.argmin(axis=1)
        cost = total[np.arange(len(there)), back]
        pointers.append(back)
    chosen = [int(np.argmin(cost))]
    for back in reversed(pointers):
        chosen.append(int(back[chosen[-1]]))
    return chosen[::-1]


def _result(solver, targets: np.ndarray, q: np.ndarray, start, fallback: BatchResult) -> BatchResult:
    """Rows judged as ``solve_batch`` judges them; continuity from one row to the next."""
    chain = solver.chain
    position, orientation = pose_error(targets, chain.fk(q))
    met = (position <= solver.tolerance) & (orientation <= solver.tolerance) & chain.within_limits(q, 1e-9)
    change = np.abs(q - _previous_rows(q, start))
    continuous = change.max(axis=1) <= solver.jump_limit
    after_met = np.concatenate([[True], met[:-1]])
    messages = []
    for row, ok in enumerate(met):
        message = "" if ok else fallback.messages[row]
        if not continuous[row]:
            joint = int(change[row].argmax())
            cause = "no sampled path through these targets avoids it"
            if not (ok and after_met[row]):
                cause = "next to a row that cannot be met"
            message += (
                f"{'; ' if message else ''}{chain.joint_names[joint]} moves {change[row, joint]:.2f} rad "
                f"from the previous row: {cause}"
            )
        messages.append(message)
    return BatchResult(
        met, q, position, orientation, np.zeros(len(q), dtype=int), tuple(messages), continuous
    )
