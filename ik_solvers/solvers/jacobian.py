"""Numeric IK on any serial chain: Jacobian pseudoinverse, weighted pseudoinverse, damped least
squares, Jacobian transpose and cyclic coordinate descent (seeds 002 and 003).

Each iteration takes one FK pass (pose and geometric Jacobian together), measures the 6D error,
steps the joints by the method's step (plus seed 002's null-space term when secondary goals are
set), bounds the step norm and projects onto the joint limits (continuous joints wrap). Attempts
that stall are restarted from random in-limit configurations within the time budget; see
:mod:`ik_solvers.solvers.lockstep`. Batches run in lockstep with numpy.

Errors are normalised before they are weighed against each other: position by the chain's length
L (the sum of its link offsets) [m], orientation as is [rad].
"""

from __future__ import annotations

import time

import numpy as np

from ik_solvers.chain import Chain
from ik_solvers.solvers.base import BatchResult, IKResult, check_seed, check_targets, register_solver
from ik_solvers.solvers.ccd import ccd_sweep
from ik_solvers.solvers.jacobian_options import JacobianOptions, joint_weight_matrix, parse_options
from ik_solvers.solvers.jacobian_steps import StepSettings, inverse_step
from ik_solvers.solvers.lockstep import Evaluation, Lockstep, Schedule
from ik_solvers.solvers.nullspace import SecondaryGoals, wrap_angle
from ik_solvers.spatial import _log_near_pi, pose_error

# Iterations without 10 % progress before an attempt is abandoned: the first-order methods creep.
FAST_PATIENCE, SLOW_PATIENCE, SLOW_METHODS = 5, 30, ("transpose", "ccd")
# R.reshape(9) @ VEE_AND_TRACE = (vee of R's skew part, trace R / 2) = (sinθ·axis, cosθ + 1/2).
VEE_AND_TRACE = np.zeros((9, 4))
VEE_AND_TRACE[[7, 2, 3], [0, 1, 2]], VEE_AND_TRACE[[5, 6, 1], [0, 1, 2]] = 0.5, -0.5
VEE_AND_TRACE[[0, 4, 8], 3] = 0.5


@register_solver("jacobian")
class JacobianSolver:
    """Iterative IK for a :class:`~ik_solvers.chain.Chain`, configured by :class:`JacobianOptions`.

    Targets are (4, 4) poses of the tip link in the chain's base frame [m]; ``q`` follows
    ``chain.joint_names`` [rad or m]. Unknown or out-of-range options raise
    :class:`~ik_solvers.solvers.jacobian_options.InvalidOptionError`.
    """

    def __init__(self, chain: Chain, **options: object) -> None:
        self.chain = chain
        self.options: JacobianOptions = parse_options(chain, options)
        opts = self.options
        self.length = chain_length(chain)
        self._rows = slice(0, 3) if opts.task == "position" else slice(0, 6)
        weights = (opts.position_weight, opts.orientation_weight) if opts.task == "weighted" else (1.0, 1.0)
        self._row_weights = np.repeat([weights[0] / self.length, weights[1]], 3)[self._rows]
        self._ccd_weights = (self._row_weights[0] ** 2, 0.0 if opts.task == "position" else weights[1] ** 2)
        self._settings = _step_settings(chain, opts)
        self._goals = SecondaryGoals(chain, opts)
        self._lower = np.where(chain.continuous, -np.inf, chain.lower)
        self._upper = np.where(chain.continuous, np.inf, chain.upper)
        self._wraps = bool(chain.continuous.any())
        self._restarts = chain.random_configurations(
            opts.max_restarts, np.random.default_rng(opts.random_seed)
        )

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
        batch = self._run(check_targets(target)[None], check_seed(self.chain, seed)[None], budget=1)
        return batch[0]

    def solve_batch(
        self, targets: np.ndarray, seeds: np.ndarray | None = None, poles: object = None
    ) -> BatchResult:
        """N solves in lockstep; the time budget is N times ``timeout``. Same answers as :meth:`solve`.

        Args:
            targets: (N, 4, 4) tip poses in the chain's base frame [m].
            seeds: (N, n) starts, or None. poles: ignored.
        """
        targets = check_targets(targets, batched=True)
        seeds = check_seed(self.chain, seeds, count=len(targets))
        return self._run(targets, seeds, budget=len(targets))

    def _run(self, targets: np.ndarray, seeds: np.ndarray, budget: int) -> BatchResult:
        opts = self.options
        deadline = None if opts.timeout is None else time.perf_counter() + opts.timeout * budget
        slots = 1 if opts.max_restarts == 0 else opts.parallel_restarts
        patience = SLOW_PATIENCE if opts.method in SLOW_METHODS else FAST_PATIENCE
        schedule = Schedule(
            slots, opts.seed_iterations, opts.max_iterations, self._restarts, deadline, patience
        )
        rotations, positions = targets[:, :3, :3], targets[:, :3, 3]

        def advance(q: np.ndarray, which: np.ndarray) -> tuple[Evaluation, np.ndarray]:
            return self._advance(q, rotations[which], positions[which])

        outcome = Lockstep(seeds, schedule, self._distance).run(advance)
        return self._results(targets, outcome)

    def _advance(
        self, q: np.ndarray, rotation: np.ndarray, position: np.ndarray
    ) -> tuple[Evaluation, np.ndarray]:
        """Evaluate configurations q (r, n) against targets and take one step from each."""
        if len(q) == 1:
            pose, jacobian = self.chain.fk_and_jacobian(q[0])
            pose, jacobian = pose[None], jacobian[None]
        else:
            pose, jacobian = self.chain.fk_and_jacobian(q)
        error, angle, relative = pose_residual(rotation, position, pose)
        position_error = np.sqrt(np.einsum("ki,ki->k", error[:, :3], error[:, :3]))
        converged = position_error <= self.options.position_tolerance
        if self._rows.stop == 6:
            converged &= angle <= self.options.orientation_tolerance
        weighted = error[:, self._rows] * self._row_weights
        energy = 0.5 * np.einsum("ki,ki->k", weighted, weighted)
        step = self._step(q, jacobian, error, relative, weighted, energy)
        return Evaluation(position_error, angle, energy, converged), self._project(q, step)

    def _step(self, q, jacobian, error, relative, weighted, energy) -> np.ndarray:
        method = self.options.method
        if method == "ccd":
            return ccd_sweep(self.chain, q, jacobian, error[:, :3], relative, self._ccd_weights)
        scaled = jacobian[:, self._rows, :] * self._row_weights[:, None]
        return inverse_step(method, scaled, weighted, energy, self._settings, self._goals.direction(q))

    def _project(self, q: np.ndarray, step: np.ndarray) -> np.ndarray:
        """q + step, scaled by step_size, its norm bounded by max_step, clipped into the limits."""
        opts = self.options
        norm = np.sqrt(np.einsum("ki,ki->k", step, step))
        scale = opts.step_size * np.minimum(1.0, opts.max_step / np.maximum(norm, 1e-300))
        moved = np.minimum(np.maximum(q + step * scale[:, None], self._lower), self._upper)
        if self._wraps:
            moved[:, self.chain.continuous] = wrap_angle(moved[:, self.chain.continuous])
        return moved

    def _distance(self, q: np.ndarray, seeds: np.ndarray) -> np.ndarray:
        """(r,) distance [rad or m] between configurations, continuous joints the short way round."""
        difference = np.where(self.chain.continuous, wrap_angle(q - seeds), q - seeds)
        return np.linalg.norm(difference, axis=-1)

    def _results(self, targets: np.ndarray, outcome) -> BatchResult:
        opts = self.options
        success = outcome.converged
        position_error, orientation_error = outcome.position_error, outcome.orientation_error
        left = np.flatnonzero(~success)
        if left.size:
            position_error[left], orientation_error[left] = pose_error(
                targets[left], self.chain.fk(outcome.q[left])
            )
        messages = tuple(
            f"converged in {iterations} iterations ({restarts} restarts)"
            if ok
            else f"no solution within tolerance ({opts.position_tolerance:g} m, {opts.orientation_tolerance:g} rad) "
            f"after {iterations} iterations and {restarts} restarts: closest pose found is {p:.3g} m and "
            f"{o:.3g} rad away (target out of reach, blocked by joint limits, or the budget ran out)"
            for ok, iterations, restarts, p, o in zip(
                success, outcome.iterations, outcome.restarts, position_error, orientation_error
            )
        )
        return BatchResult(
            success.copy(), outcome.q, position_error, orientation_error, outcome.iterations, messages
        )


def _step_settings(chain: Chain, options: JacobianOptions) -> StepSettings:
    if options.joint_weights is None:
        return StepSettings(options, None, None)
    weight = joint_weight_matrix(chain, options.joint_weights)
    root = np.linalg.inv(np.linalg.cholesky(weight)).T  # L⁻ᵀ with W = L Lᵀ
    return StepSettings(options, np.linalg.inv(weight), root)


def chain_length(chain: Chain) -> float:
    """[m] length of the polyline through the joint origins and the tip at q = 0 (at least 1 mm)."""
    points = chain._frames(np.zeros(chain.n))[:, :3, 3]  # (n + 1, 3): joints, then the tip
    return max(float(np.linalg.norm(np.diff(points, axis=0), axis=1).sum()), 1e-3)


def pose_residual(
    rotation: np.ndarray, position: np.ndarray, pose: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Error of poses (r, 4, 4) against target rotations (r, 3, 3) and positions (r, 3).

    Returns:
        error: (r, 6) target minus tip position [m], then the rotation vector of the rotation
            error [rad], both in the base frame (what the geometric Jacobian maps steps to).
        angle: (r,) rotation error angle [rad].
        relative: (r, 3, 3) rotation error, target rotation times the tip rotation transposed.
    """
    relative = rotation @ pose[:, :3, :3].swapaxes(-1, -2)
    parts = relative.reshape(-1, 9) @ VEE_AND_TRACE  # (r, 4): sin(angle)·axis, then cos(angle)
    sin = np.sqrt(np.einsum("ki,ki->k", parts[:, :3], parts[:, :3]))
    angle = np.arctan2(sin, parts[:, 3] - 0.5)
    error = np.empty((len(pose), 6))
    error[:, :3] = position - pose[:, :3, 3]
    error[:, 3:] = parts[:, :3] * (angle / np.maximum(sin, 1e-300))[:, None]
    near_pi = (sin < 1e-6) & (angle > 1.0)  # the axis is lost in the skew part: take it from the rest
    if near_pi.any():
        error[near_pi, 3:] = _log_near_pi(relative[near_pi], angle[near_pi])
    return error, angle, relative
