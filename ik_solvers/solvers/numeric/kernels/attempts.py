"""The attempts of many targets, round by round, in compiled code (no Python loop over targets).

Each target owns K slots (``parallel_restarts``). Slot 0 starts from the target's seed; after
``seed_iterations`` rounds (or when the seed attempt wears out), the other slots start from the
target's restarts: next to the seed, from the solver's stored configurations whose tip poses are
nearest the target, then from random in-limit configurations (:mod:`.starts`). A slot whose attempt stalls (``patience`` rounds without bringing its error energy
below 90 % of its best) or runs out of iterations is refilled with the target's next restart. In each round every active slot takes one
iteration. A target is done at the first round in which any of its slots meets the tolerances;
among the slots that do, the one nearest the seed wins; T_FROM_SEED records whether the seed's own
attempt (slot 0 before its first refill) won. A target's course depends only on its
own slots, so its answer does not depend on the rest of the batch, nor on how the rounds are
split between calls (the Python driver calls :func:`run_rounds` repeatedly to check its clock).

The state of N targets lives in the arrays of :func:`new_state`, indexed by the S_*, E_* and T_*
constants.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ik_solvers.compiled.jit import borrowing, compiled
from ik_solvers.solvers.numeric.fk_kernel import fk_jacobian
from ik_solvers.solvers.numeric.kernels.model import (
    I_MAX_ITERATIONS,
    I_PATIENCE,
    I_ROWS,
    I_SEED_ITERATIONS,
    P_ORIENTATION_TOLERANCE,
    P_POSITION_TOLERANCE,
    named,
)
from ik_solvers.solvers.numeric.kernels.pose_error import pose_error
from ik_solvers.solvers.numeric.kernels.starts import NEAREST, NOT_SEARCHED, Starts, restart
from ik_solvers.solvers.numeric.kernels.steps import (
    StepBuffers,
    joint_step,
    project,
    step_workspace,
    wrap_angle,
)

PROGRESS = 0.9  # an iteration makes progress when it brings the error energy below 90 % of the best
S_ACTIVE, S_AGE, S_STALE = 0, 1, 2  # slot counts (N, K, 3)
E_BEST, E_ATTEMPT = 0, 1  # slot energies (N, K, 2): over all the slot's attempts, over the current one
T_PENDING, T_NEXT_RESTART, T_RESTARTS, T_ROUNDS, T_FINISHED, T_CONVERGED = 0, 1, 2, 3, 4, 5  # (N, 8)
T_SEED_WORN, T_FROM_SEED = 6, 7


class AttemptState(NamedTuple):
    """The attempts of N targets with K slots each, n joints (updated in place by the kernels)."""

    slot_q: np.ndarray  # (N, K, n) each slot's current configuration
    best_q: np.ndarray  # (N, K, n) each slot's lowest-energy configuration so far
    slot_energy: np.ndarray  # (N, K, 2) E_* energies
    slot_counts: np.ndarray  # (N, K, 3) S_* counts
    target_counts: np.ndarray  # (N, 8) T_* counts and flags
    answer_q: np.ndarray  # (N, n) the converged configuration (the seed until then)
    answer_error: np.ndarray  # (N, 2) its position [m] and orientation [rad] errors
    nearest: np.ndarray  # (N, NEAREST) the pose-table entries its restarts start from (-2: not searched yet)


def new_state(seeds: np.ndarray, slots: int) -> AttemptState:
    """Initial state of targets with seeds (N, n) (C-contiguous floats): slot 0 of each starts from
    its seed (:func:`reset`)."""
    count, n = seeds.shape
    state = AttemptState(
        np.empty((count, slots, n)),
        np.empty((count, slots, n)),
        np.empty((count, slots, 2)),
        np.empty((count, slots, 3), dtype=np.int64),
        np.empty((count, 8), dtype=np.int64),
        np.empty((count, n)),
        np.empty((count, 2)),
        np.empty((count, NEAREST), dtype=np.int64),
    )
    reset(tuple(state), seeds)
    return state


@borrowing
def reset(state, seeds):
    """Every target of ``state`` (a plain tuple of an :class:`AttemptState`) starts afresh from its
    seed (seeds (N, n)): slot 0 active at the seed, the other slots idle, no energy, no rounds, no
    restarts, the answer the seed with NaN errors, the pose table not searched."""
    slot_q, best_q, slot_energy, slot_counts, target_counts, answer_q, answer_error, nearest = state
    for t in range(slot_q.shape[0]):
        for s in range(slot_q.shape[1]):
            for j in range(slot_q.shape[2]):
                slot_q[t, s, j] = best_q[t, s, j] = seeds[t, j]
            slot_energy[t, s, E_BEST] = slot_energy[t, s, E_ATTEMPT] = np.inf
            for c in range(slot_counts.shape[2]):
                slot_counts[t, s, c] = 0
        slot_counts[t, 0, S_ACTIVE] = 1
        for c in range(target_counts.shape[1]):
            target_counts[t, c] = 0
        target_counts[t, T_PENDING] = 1
        for j in range(answer_q.shape[1]):
            answer_q[t, j] = seeds[t, j]
        answer_error[t, 0] = answer_error[t, 1] = np.nan
        for i in range(nearest.shape[1]):
            nearest[t, i] = NOT_SEARCHED


class Workspace(NamedTuple):
    """Buffers of one iteration for n joints."""

    pose: np.ndarray  # (3, 4) the tip pose
    jacobian: np.ndarray  # (6, n) the geometric Jacobian
    scratch: np.ndarray  # (3, 3, 4) FK scratch
    error: np.ndarray  # (6,) the pose error
    relative: np.ndarray  # (3, 3) the rotation error
    step: np.ndarray  # (n,) the joint step
    following: np.ndarray  # (n,) the next configuration
    buffers: StepBuffers  # the step's own buffers
    distances: np.ndarray  # (NEAREST,) the pose-table search's scratch


@compiled
def workspace(n):
    """A :class:`Workspace` for n joints."""
    return Workspace(
        np.empty((3, 4)),
        np.empty((6, n)),
        np.empty((3, 3, 4)),
        np.empty(6),
        np.empty((3, 3)),
        np.empty(n),
        np.empty(n),
        step_workspace(n),
        np.empty(NEAREST),
    )


@borrowing
def iterate(model, q, target, work):
    """One iteration from q (n,) towards target (4, 4): evaluate q, and unless it converged, step
    into work.following. Returns (converged, position error [m], orientation error [rad], energy)."""
    pose, jacobian, scratch, error, relative, step, following, buffers, _ = work
    weights, params, ints = model.weights.rows, model.params, model.ints
    fk_jacobian(model.terms, q, pose, jacobian, scratch)
    angle = pose_error(target, pose, error, relative)
    position_error = np.sqrt(error[0] ** 2 + error[1] ** 2 + error[2] ** 2)
    rows = ints[I_ROWS]
    converged = position_error <= params[P_POSITION_TOLERANCE]
    if rows == 6:
        converged = converged and angle <= params[P_ORIENTATION_TOLERANCE]
    energy = 0.0
    for r in range(rows):
        energy += 0.5 * (error[r] * weights[r]) ** 2
    if not converged:
        joint_step(model, q, jacobian, error, relative, energy, step, buffers)
        project(model, q, step, following)
    return converged, position_error, angle, energy


@compiled
def run_rounds(model, targets, seeds, starts, state, which, rounds):
    """Up to ``rounds`` rounds for each target index in ``which`` that is not finished yet.

    model: :func:`~.model.plain` of the :class:`~.model.KernelModel`. targets (N, 4, 4), seeds
    (N, n), starts: a plain tuple of the solver's :class:`~.starts.Starts`, state: a plain tuple of
    the :class:`AttemptState` from :func:`new_state` (updated in place).
    """
    work = workspace(seeds.shape[1])
    _run_rounds(named(model), targets, seeds, Starts(*starts), AttemptState(*state), which, rounds, work)


@borrowing
def _run_rounds(model, targets, seeds, starts, state, which, rounds, work):
    """:func:`run_rounds` with its buffers ``work`` from :func:`workspace`."""
    for t in which:
        _rounds_of(model, targets[t], seeds[t], starts, state, t, rounds, work)


@borrowing
def run_single(model, target, seeds, starts, state, work, rounds, fresh):
    """:func:`run_rounds` of one target (4, 4) from seeds (1, n), state: a plain tuple of an
    :class:`AttemptState` of one target, first :func:`reset` when ``fresh``, work: a plain tuple
    of a :func:`workspace` (a single solve reuses its state's and its buffers' arrays: allocating
    them, and counting references to them, costs more than its iterations near a seed).

    Returns:
        (finished, converged, from the seed's own attempt, rounds, restarts) of the target so far.
    """
    state = AttemptState(*state)
    if fresh:
        reset(state, seeds)
    pose, jacobian, scratch, error, relative, step, following, buffers, distances = work
    work = Workspace(
        pose, jacobian, scratch, error, relative, step, following, StepBuffers(*buffers), distances
    )
    _rounds_of(named(model), target, seeds[0], Starts(*starts), state, 0, rounds, work)
    counts = state.target_counts[0]
    return (
        counts[T_FINISHED] != 0,
        counts[T_CONVERGED] != 0,
        counts[T_FROM_SEED] != 0,
        counts[T_ROUNDS],
        counts[T_RESTARTS],
    )


@borrowing
def _rounds_of(model, target, seed, starts, state, t, rounds, work):
    """Up to ``rounds`` rounds of target t (4, 4) from its seed (n,), until it is finished."""
    for _ in range(rounds):
        if state.target_counts[t, T_FINISHED]:
            return
        _round(model, target, seed, starts, state, t, work)


@borrowing
def _round(model, target, seed, starts, state, t, work):
    """Every active slot of target t takes one iteration; then finish, or refill worn slots."""
    slot_q, best_q, slot_energy, slot_counts, target_counts, answer_q, answer_error, _ = state
    continuous = model.limits.continuous
    target_counts[t, T_ROUNDS] += 1
    winner, nearest = -1, np.inf
    for s in range(slot_q.shape[1]):
        if not slot_counts[t, s, S_ACTIVE]:
            continue
        q = slot_q[t, s]
        converged, position_error, angle, energy = iterate(model, q, target, work)
        if energy < slot_energy[t, s, E_BEST]:
            slot_energy[t, s, E_BEST] = energy
            _copy(q, best_q[t, s])
        if energy < PROGRESS * slot_energy[t, s, E_ATTEMPT]:
            slot_energy[t, s, E_ATTEMPT] = energy
            slot_counts[t, s, S_STALE] = 0
        else:
            slot_counts[t, s, S_STALE] += 1
        if converged:
            distance = 0.0
            for j in range(q.shape[0]):
                difference = q[j] - seed[j]
                distance += (wrap_angle(difference) if continuous[j] else difference) ** 2
            if distance < nearest:
                winner, nearest = s, distance
                _copy(q, answer_q[t])
                answer_error[t, 0], answer_error[t, 1] = position_error, angle
        else:
            _copy(work.following, q)
        slot_counts[t, s, S_AGE] += 1
    if winner >= 0:
        for s in range(slot_q.shape[1]):
            slot_counts[t, s, S_ACTIVE] = 0
        target_counts[t, T_PENDING] = 0
        target_counts[t, T_CONVERGED] = 1
        target_counts[t, T_FINISHED] = 1
        target_counts[t, T_FROM_SEED] = winner == 0 and target_counts[t, T_SEED_WORN] == 0
        return
    _relaunch(model, target, seed, starts, state, t, work.distances)


@borrowing
def _relaunch(model, target, seed, starts, state, t, distances):
    """Refill worn-out slots; launch the restart slots once the seed phase of target t ended."""
    slot_q, slot_energy, slot_counts, target_counts = (
        state.slot_q,
        state.slot_energy,
        state.slot_counts,
        state.target_counts,
    )
    ints = model.ints
    slots = slot_q.shape[1]
    expand = target_counts[t, T_PENDING] and (
        slot_counts[t, 0, S_AGE] >= ints[I_SEED_ITERATIONS] or _worn(slot_counts, ints, t, 0)
    )
    if expand:
        target_counts[t, T_PENDING] = 0
    active = False
    for s in range(slots):
        if _worn(slot_counts, ints, t, s) or (expand and s > 0):
            available = target_counts[t, T_NEXT_RESTART] < starts.random.shape[0]
            slot_counts[t, s, S_ACTIVE] = available
            if available:
                if s == 0:
                    target_counts[t, T_SEED_WORN] = 1
                k = target_counts[t, T_NEXT_RESTART]
                restart(model, target, seed, starts, state.nearest[t], k, distances, slot_q[t, s])
                target_counts[t, T_NEXT_RESTART] += 1
                target_counts[t, T_RESTARTS] += 1
                slot_counts[t, s, S_AGE] = 0
                slot_counts[t, s, S_STALE] = 0
                slot_energy[t, s, E_ATTEMPT] = np.inf
        active = active or slot_counts[t, s, S_ACTIVE] != 0
    if not active:
        target_counts[t, T_FINISHED] = 1


@borrowing
def _worn(slot_counts, ints, t, s):
    """Whether the active slot s of target t ran out of iterations or stalled."""
    return slot_counts[t, s, S_ACTIVE] != 0 and (
        slot_counts[t, s, S_AGE] >= ints[I_MAX_ITERATIONS] or slot_counts[t, s, S_STALE] >= ints[I_PATIENCE]
    )


@borrowing
def _copy(source, destination):
    """destination (n,) = source (n,) (array assignment would need numba's runtime)."""
    for j in range(source.shape[0]):
        destination[j] = source[j]
