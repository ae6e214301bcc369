"""Numeric IK on any serial chain: Jacobian pseudoinverse, weighted pseudoinverse, damped least
squares, Jacobian transpose and cyclic coordinate descent (references: ``docs/algorithms.md``).

Each iteration takes one FK pass (pose and geometric Jacobian together), measures the 6D error,
steps the joints by the method's step (plus Liégeois's (1977) null-space term when secondary goals are
set), bounds the step norm and projects onto the joint limits (continuous joints wrap). Attempts
that stall are restarted from random in-limit configurations within the time budget.

The iterations, restarts and the choice of the answer run in compiled kernels
(:mod:`ik_solvers.solvers.numeric.kernels`; see :mod:`~ik_solvers.solvers.numeric.kernels.attempts` for the
schedule), over all targets of a batch in one call. numba cannot read the clock, so this module
calls the kernel for ``ROUNDS_PER_CALL`` rounds at a time and checks the time budget in between.

Errors are normalised before they are weighed against each other: position by the chain's length
L (the sum of its link offsets) [m], orientation as is [rad].

A single solve reuses its buffers (a state of one target, kept between solves) and checks its
target and seed in one compiled call, the closed forms' (:mod:`ik_solvers.solvers.geometric.kernels.inputs`):
near a seed, allocating a state and checking in numpy cost three times the iterations. That check
belongs to the closed forms' kernel set: preparing this set never calls it (numba would write its
cache into the closed forms' folder before their set is prepared, which their set would then
report as a stale cache); the first solve loads it from the closed forms' cache (or, where that
set was never prepared, compiles it, well under a second).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import NamedTuple

import numpy as np

from ik_solvers.chain import Chain, Joint
from ik_solvers.compiled import cache as kernel_cache
from ik_solvers.solvers.checks import check_seed, check_targets, plain_floats
from ik_solvers.solvers.geometric.kernels import inputs
from ik_solvers.solvers.numeric.kernels import attempts
from ik_solvers.solvers.numeric.kernels.attempts import (
    E_BEST,
    T_CONVERGED,
    T_FINISHED,
    T_FROM_SEED,
    T_RESTARTS,
    T_ROUNDS,
    AttemptState,
)
from ik_solvers.solvers.numeric.kernels.model import I_SLOTS, build_model, plain
from ik_solvers.solvers.numeric.kernels.starts import make_starts
from ik_solvers.solvers.numeric.options import JacobianOptions, parse_options
from ik_solvers.solvers.results import DISCONTINUOUS, BatchResult, IKResult
from ik_solvers.spatial import pose_error

# Iterations without 10 % progress before an attempt is abandoned: the first-order methods creep.
FAST_PATIENCE, SLOW_PATIENCE, SLOW_METHODS = 5, 30, ("transpose", "ccd")
# Rounds per kernel call between two looks at the clock: a round costs one iteration per active
# slot (1.5-3 µs each on 6-7 joints), so the budget is overrun by at most about 0.3 ms. From random
# seeds 99 % of targets take fewer rounds than this: one call, no look at the clock. With 16 rounds a
# call, a solve that waited for a CPU on a loaded machine was cut at its next look (0.5-1.1 % of
# random-seed solves on the 7-DoF arms lost at load 20, none with 48).
ROUNDS_PER_CALL = 48


class _Single(NamedTuple):
    """The buffers of one single solve, reused by the next: its state (one target), the same as
    the plain tuple the kernels take, the seed clipped into the limits (1, n) and its row (n,),
    the iterations' workspace (a plain tuple)."""

    state: AttemptState
    plain: tuple
    seeds: np.ndarray
    seed: np.ndarray
    work: tuple

    @staticmethod
    def of(n: int, slots: int) -> _Single:
        seeds = np.zeros((1, n))
        state = attempts.new_state(seeds, slots)
        return _Single(state, tuple(state), seeds, seeds[0], plain(attempts.workspace(n)))


class JacobianSolver:
    """Iterative IK for a :class:`~ik_solvers.chain.Chain`, configured by :class:`JacobianOptions`.

    Targets are (4, 4) poses of the tip link in the chain's base frame [m]; ``q`` follows
    ``chain.joint_names`` [rad or m]. Unknown or out-of-range options raise
    :class:`~ik_solvers.solvers.numeric.options.InvalidOptionError`. Construction runs one tiny
    solve, so that the kernels are compiled (or loaded from numba's cache) before the first real
    solve.
    """

    def __init__(self, chain: Chain, **options: object) -> None:
        self.chain = chain
        self.options: JacobianOptions = parse_options(chain, options)
        opts = self.options
        self.length = chain_length(chain)
        patience = SLOW_PATIENCE if opts.method in SLOW_METHODS else FAST_PATIENCE
        self._model = build_model(chain, opts, self.length, patience)
        self._kernel_model = plain(self._model)  # what run_rounds takes (kernels.model docstring)
        self._slots = int(self._model.ints[I_SLOTS])
        self._starts = plain(make_starts(chain, opts.max_restarts, opts.random_seed))
        self._rest = chain.rest_configuration()
        self._spare: list[_Single] = []  # the states of single solves, reused
        rest_pose = chain.fk(self._rest)
        # the kernels compiled or loaded now; not the input check (module docstring)
        single = _Single.of(chain.n, self._slots)
        single.seeds[0] = self._rest
        self._run_one(rest_pose, single, time.perf_counter())
        self._spare.append(single)
        self._run(rest_pose[None], self._rest[None], budget=1)

    def __repr__(self) -> str:
        return f"JacobianSolver({self.chain!r}, method={self.options.method!r})"

    def solve(self, target: np.ndarray, seed: np.ndarray | None = None, pole: object = None) -> IKResult:
        """Joint positions that put the tip at ``target``.

        Args:
            target: (4, 4) tip pose in the chain's base frame [m].
            seed: (n,) start [rad or m]; None: zero clipped into the limits. Clipped into the limits.
            pole: ignored (the numeric solvers take no elbow or knee hint).
        Returns:
            IKResult; when no attempt met the tolerances within the budget, ``success`` is False and
            ``q`` the configuration with the smallest error found.
        Raises:
            InvalidTargetError: a malformed target or seed.
        """
        start = time.perf_counter()
        try:
            single = self._spare.pop()  # a list's pop is atomic: threads never share one
        except IndexError:
            single = _Single.of(self.chain.n, self._slots)
        try:  # back on the spare list also when the input check refuses (the next run resets them)
            target = self._check_one(target, seed, single.seed)
            converged, from_seed, rounds, restarts = self._run_one(target, single, start)
            if converged:
                q = single.state.answer_q[0].copy()
                position_error, orientation_error = single.state.answer_error[0].tolist()
            else:
                q, position_error, orientation_error = self._closest(target, single.state)
            kept = seed is None or from_seed or self._near_seed(q, single.seed)
        finally:
            self._spare.append(single)
        message = self._message(converged, rounds, restarts, position_error, orientation_error, kept)
        return IKResult.of(converged, q, position_error, orientation_error, rounds, message, kept)

    def _run_one(self, target: np.ndarray, single: _Single, start: float) -> tuple[bool, bool, int, int]:
        """The attempts of one checked target (4, 4) from ``single.seeds``, until it is finished or
        ``timeout`` has passed since ``start`` [s, perf_counter]: (converged, from the seed's own
        attempt, rounds, restarts)."""
        timeout, fresh = self.options.timeout, True
        while True:
            finished, converged, from_seed, rounds, restarts = attempts.run_single(
                self._kernel_model,
                target,
                single.seeds,
                self._starts,
                single.plain,
                single.work,
                ROUNDS_PER_CALL,
                fresh,
            )
            fresh = False
            if finished or (timeout is not None and time.perf_counter() - start > timeout):
                return converged, from_seed, rounds, restarts

    def _check_one(self, target: np.ndarray, seed: np.ndarray | None, clipped: np.ndarray) -> np.ndarray:
        """``target`` as a C-contiguous (4, 4) float array; the seed clipped into the limits (the
        rest configuration without one) into ``clipped`` (n,). One compiled check for the common
        case (float arrays), with the verdicts and messages of :func:`check_targets` and
        :func:`check_seed`.

        Raises:
            InvalidTargetError: a malformed target or seed.
        """
        if not plain_floats(target, (4, 4)):
            target = np.ascontiguousarray(check_targets(target))
        if seed is None:
            seed = self._rest
        elif not plain_floats(seed, self._rest.shape):
            seed = np.ascontiguousarray(check_seed(self.chain, seed))
        code = inputs.check(target.ravel(), seed, True, self.chain.lower, self.chain.upper, clipped)
        if code:
            inputs.refuse_target(code, target.ravel())
        if code == inputs.BAD_SEED:
            check_seed(self.chain, seed)
        return target

    def solve_batch(
        self, targets: np.ndarray, seeds: np.ndarray | None = None, poles: object = None
    ) -> BatchResult:
        """N solves in one kernel call per round of rounds; the time budget is N times ``timeout``.
        Same answers as :meth:`solve` (without a time limit).

        Args:
            targets: (N, 4, 4) tip poses in the chain's base frame [m].
            seeds: (N, n) starts, or None. poles: ignored.
        """
        targets = check_targets(targets, batched=True)
        seeded = seeds is not None
        seeds = check_seed(self.chain, seeds, count=len(targets))
        targets, seeds = np.ascontiguousarray(targets, dtype=float), np.ascontiguousarray(seeds, dtype=float)
        state = self._run(targets, seeds, len(targets))
        return self._results(targets, seeds if seeded else None, state)

    def _run(self, targets: np.ndarray, seeds: np.ndarray, budget: int) -> AttemptState:
        """The attempts of (N, 4, 4) ``targets`` from (N, n) ``seeds`` (C-contiguous floats) until
        each is finished or the budget (``budget`` × timeout) runs out: the final state."""
        timeout = self.options.timeout
        deadline = None if timeout is None else time.perf_counter() + timeout * budget
        state = attempts.new_state(seeds, self._slots)
        which, finished = np.arange(len(targets)), state.target_counts[:, T_FINISHED]
        while True:
            attempts.run_rounds(
                self._kernel_model, targets, seeds, self._starts, tuple(state), which, ROUNDS_PER_CALL
            )
            which = which[finished[which] == 0]
            if not which.size:
                return state
            if deadline is not None and time.perf_counter() > deadline:
                return state

    def _closest(self, target: np.ndarray, state: AttemptState) -> tuple[np.ndarray, float, float]:
        """The lowest-energy configuration any attempt of one unconverged target (4, 4) reached (the
        seed if none ran), and its position [m] and orientation [rad] errors."""
        energy = state.slot_energy[0, :, E_BEST]
        slot = int(np.argmin(energy))
        q = (state.best_q[0, slot] if np.isfinite(energy[slot]) else state.answer_q[0]).copy()
        position_error, orientation_error = (float(x) for x in pose_error(target, self.chain.fk(q)))
        return q, position_error, orientation_error

    def _advance(self, q: np.ndarray, target: np.ndarray) -> np.ndarray:
        """(n,) configuration one iteration after q (n,) towards target (4, 4); q if q converged."""
        work = attempts.workspace(self.chain.n)
        q = np.ascontiguousarray(q, dtype=float)
        converged = attempts.iterate(self._model, q, np.ascontiguousarray(target, dtype=float), work)[0]
        return q.copy() if converged else work.following.copy()

    def _results(self, targets: np.ndarray, seeds: np.ndarray | None, state: AttemptState) -> BatchResult:
        """The answers of the finished state; ``seeds`` (None: unseeded) decide ``continuous``."""
        best_q, slot_energy, target_counts = state.best_q, state.slot_energy, state.target_counts
        q, errors = state.answer_q, state.answer_error
        success = target_counts[:, T_CONVERGED] == 1
        iterations, restarts = target_counts[:, T_ROUNDS].copy(), target_counts[:, T_RESTARTS]
        position_error, orientation_error = errors[:, 0].copy(), errors[:, 1].copy()
        left = np.flatnonzero(~success)
        if left.size:  # the lowest-energy configuration any attempt of the target reached
            energy = slot_energy[left, :, E_BEST]
            slot = np.argmin(energy, axis=1)
            reached = np.isfinite(energy[np.arange(left.size), slot])
            q[left[reached]] = best_q[left[reached], slot[reached]]
            position_error[left], orientation_error[left] = pose_error(targets[left], self.chain.fk(q[left]))
        continuous = self._continuous(q, seeds, target_counts[:, T_FROM_SEED] == 1)
        messages = tuple(
            self._message(*row)
            for row in zip(success, iterations, restarts, position_error, orientation_error, continuous)
        )
        return BatchResult(success, q, position_error, orientation_error, iterations, messages, continuous)

    def _message(self, ok, iterations, restarts, position_error, orientation_error, kept) -> str:
        """The message of one answer: converged, or how far the closest pose found is [m, rad]."""
        opts = self.options
        if ok:
            text = f"converged in {iterations} iterations ({restarts} restarts)"
        else:
            text = (
                f"no solution within tolerance ({opts.position_tolerance:g} m, {opts.orientation_tolerance:g} rad) "
                f"after {iterations} iterations and {restarts} restarts: closest pose found is "
                f"{position_error:.3g} m and {orientation_error:.3g} rad away (target out of reach, blocked by "
                "joint limits, or the budget ran out)"
            )
        text += _task_note(opts.task, self.chain.n)
        return text if kept else text + DISCONTINUOUS

    def _near_seed(self, q: np.ndarray, seed: np.ndarray) -> bool:
        """No joint of q (n,) moved more than ``jump_limit`` from ``seed`` (continuous joints: the
        wrapped difference)."""
        return bool(self._continuous(q[None], seed[None], np.zeros(1, dtype=bool))[0])

    def _continuous(self, q: np.ndarray, seeds: np.ndarray | None, from_seed: np.ndarray) -> np.ndarray:
        """(N,) True where q continues its seed: the seed's own attempt found it, or no joint moved
        more than ``jump_limit`` from the seed (continuous joints: the wrapped difference)."""
        if seeds is None or from_seed.all():  # the common case first: no array work
            return np.ones(len(q), dtype=bool)
        change = q - seeds
        turning = self.chain.continuous
        if turning.any():
            change[:, turning] = (change[:, turning] + np.pi) % (2.0 * np.pi) - np.pi
        return from_seed | (np.abs(change).max(axis=1) <= self.options.jump_limit)


def _task_note(task: str, joints: int) -> str:
    """What a message adds when the orientation is not solved (task "position")."""
    if task != "position":
        return ""
    why = f": {joints} joints cannot set all 6 pose components" if joints < 6 else ""
    return f"; position only, the orientation is not solved{why}"


def chain_length(chain: Chain) -> float:
    """[m] length of the polyline through the joint origins and the tip at q = 0 (at least 1 mm)."""
    zero = np.zeros(chain.n)
    points = np.vstack([chain.joint_frames(zero)[:, :3, 3], chain.fk(zero)[:3, 3]])  # joints, then the tip
    return max(float(np.linalg.norm(np.diff(points, axis=0), axis=1).sum()), 1e-3)


def prepare_kernels() -> None:
    """Compile the kernels, or load them from numba's on-disk cache (about 0.5 s), now.

    The first call after an install compiles them: about 40 s on a slow 2-core machine, said in
    the ``ik_solvers`` log; ``make setup`` and the colcon install pay that once. A partial or
    stale cache is rebuilt, never fatal (:mod:`ik_solvers.compiled.cache`). ``ik_node`` calls this at
    start-up, so a run-time switch to the jacobian solver never stalls a running node.
    """
    kernel_cache.prepare(KERNELS)


def _compile_kernels() -> None:
    """The kernels' types do not depend on the chain: a one-joint chain prepares them for every
    chain and every method."""
    joint = Joint(
        "prepare", "revolute", "base", "tip", np.eye(4), np.array([0.0, 0.0, 1.0]), -1.0, 1.0, 1.0, 1.0
    )
    JacobianSolver(Chain("base", "tip", [joint]))


KERNELS = kernel_cache.KernelSet(
    "the Jacobian solver's kernels",
    "about 40 s on a 2-core machine, once; later starts load them in about 0.5 s",
    (Path(__file__).resolve().parent, Path(__file__).resolve().parent / "kernels"),
    _compile_kernels,
)
