"""The Newton search behind :meth:`ik_solvers.whole_body.stance.StanceSolver.solve`.

A candidate is a torso position (x, y) [m] with both legs solved exactly there. Newton steps on
the torso position use the derivative of the CoM by it (see :mod:`~ik_solvers.whole_body.stance`);
a step into a place the legs cannot reach is halved, then tried along x and y alone.

The first guess carries the last solve over: its CoM (in the torso frame), moved by what the
soles' motion in the torso frame does to the legs (first order: ΔCoM = J_c,leg J_leg⁻¹ Δsole per
leg), and one Newton step with the last derivative. Along a walk this lands within tolerance
in one round most of the time.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

SMALLEST_STEP = 1e-7  # [m] a blocked step halved below this ends the search


@dataclass(frozen=True)
class StanceResult:
    """One stance solve.

    Attributes:
        success: both legs exact and within limits, and the CoM within tolerance of its target.
        com_reachable: the CoM target was met; False: the nearest feasible pose found is returned.
        torso_pose: (4, 4) the torso (root link) in the world [m].
        joint_names: the left leg's then the right leg's joints.
        q: (12,) their positions [rad], in ``joint_names`` order; finite, within limits.
        com: (3,) the centre of mass in the world [m]. com_target: (2,) its horizontal target [m].
        com_error: horizontal distance [m] from ``com`` to ``com_target``.
        iterations: leg-solve rounds used. message: why it failed, or how it succeeded.
    """

    success: bool
    com_reachable: bool
    torso_pose: np.ndarray
    joint_names: tuple[str, ...]
    q: np.ndarray
    com: np.ndarray
    com_target: np.ndarray
    com_error: float
    iterations: int
    message: str

    @property
    def positions(self) -> dict[str, float]:
        """Leg joint name → position [rad]."""
        return dict(zip(self.joint_names, self.q.tolist()))


@dataclass(frozen=True)
class Candidate:
    """Both legs solved at torso position ``p`` (2,) [m]: legs' q (12,), CoM in the world (3,) and
    in the torso frame (3,), its Jacobian by the leg joints (3, 12), the soles in the torso frame."""

    error: float
    p: np.ndarray
    q: np.ndarray
    com: np.ndarray
    local: np.ndarray
    jacobian: np.ndarray
    targets: tuple[np.ndarray, np.ndarray]


@dataclass(frozen=True)
class Linearised:
    """A solved stance and its first-order model, for the next solve's first guess.

    Attributes:
        candidate: the stance. derivative: (2, 2) dc_xy / dp_xy.
        sensitivities: per leg (3, 6), the CoM's motion in the torso frame per sole twist
            (linear, angular) in the torso frame.
    """

    candidate: Candidate
    derivative: np.ndarray
    sensitivities: tuple[np.ndarray, np.ndarray]


class StanceSearch:
    """One solve: its inputs and the best candidate so far (see the module docstring)."""

    def __init__(self, solver, left, right, rotation, height, target, q) -> None:
        self.solver, self.legs = solver, solver.legs
        self.rotation, self.height, self.target, self.q = rotation, height, target, q
        self.legs.set_soles(left, right)
        self.rounds = 0
        self.best: Candidate | None = None
        self.linearised: Linearised | None = None  # of ``best``, once computed
        self.failed = None

    def run(self):
        """The :class:`StanceResult` of this solve."""
        p, step = self._first_guess(), None
        while self.rounds < self.solver.max_iterations:
            found = self._evaluate(p)
            if found is not None and (self.best is None or found.error < self.best.error):
                self.best = found
                if found.error <= self.solver.tolerance:
                    break
                step = self._newton_step()
            elif self.best is None:
                if step is not None or not np.allclose(p, self.legs.hips_over_soles(self.rotation)):
                    p, step = self.legs.hips_over_soles(self.rotation), np.zeros(2)
                    continue
                break
            else:
                step = 0.5 * step
                if np.linalg.norm(step) < SMALLEST_STEP:
                    step = self._slide()
                    if step is None:
                        break
            p = self.best.p + step
        return self._result()

    def _first_guess(self) -> np.ndarray:
        last = self.solver.last
        if last is None:
            return self.legs.hips_over_soles(self.rotation)
        before = last.candidate
        targets = self.legs.targets(self._torso(before.p))
        local = before.local.copy()
        for sensitivity, old, new in zip(last.sensitivities, before.targets, targets):
            local += sensitivity @ _twist(old, new)
        miss = self.target - before.p - (self.rotation @ local)[:2]
        return before.p + _solve2(last.derivative, miss)

    def _evaluate(self, p: np.ndarray) -> Candidate | None:
        """Both legs at torso position p; the candidate, or None where a leg fails."""
        self.rounds += 1
        pose = self._torso(p)
        ok, q = self.legs.solve(pose, self.q)
        if not ok:
            if self.best is None:
                self.failed = (p, q.copy(), self.legs.message)
            return None
        local, jacobian = self.legs.com_local()
        com = self.rotation @ local + pose[:3, 3]
        error = float(np.hypot(com[0] - self.target[0], com[1] - self.target[1]))
        return Candidate(error, p, q.copy(), com, local, jacobian, self.legs.last_targets)

    def _linearise(self) -> Linearised:
        if self.linearised is None or self.linearised.candidate is not self.best:
            best = self.best
            derivative, sensitivities = self.legs.linearise(best.q, self.rotation, best.jacobian)
            self.linearised = Linearised(best, derivative, sensitivities)
        return self.linearised

    def _newton_step(self) -> np.ndarray:
        return -_solve2(self._linearise().derivative, self.best.com[:2] - self.target)

    def _slide(self) -> np.ndarray | None:
        """A step along x or y alone (the Newton step's part, halved), if one lowers the error."""
        full = self._newton_step()
        for axis in (0, 1):
            step = np.zeros(2)
            step[axis] = full[axis]
            while abs(step[axis]) >= SMALLEST_STEP and self.rounds < self.solver.max_iterations:
                found = self._evaluate(self.best.p + step)
                if found is not None and found.error < self.best.error - SMALLEST_STEP:
                    self.best = found
                    return self._newton_step()
                step *= 0.5
        return None

    def _torso(self, p: np.ndarray) -> np.ndarray:
        pose = np.eye(4)
        pose[:3, :3] = self.rotation
        pose[:2, 3], pose[2, 3] = p, self.height
        return pose

    def _result(self) -> StanceResult:
        solver, names = self.solver, self.solver.joint_names
        if self.best is None:
            p, q, message = self.failed
            pose = self._torso(p)
            self.q[self.legs.columns] = q
            com = solver.com.position(self.q, pose)
            error = float(np.hypot(*(com[:2] - self.target)))
            message = f"the legs cannot reach the soles from any torso position tried: {message}"
            return StanceResult(False, False, pose, names, q, com, self.target, error, self.rounds, message)
        best = self.best
        # the model changes slowly: the last one serves again when this solve needed no Newton step
        if self.linearised is None and solver.last is not None:
            last = solver.last
            solver.last = Linearised(best, last.derivative, last.sensitivities)
        else:
            solver.last = self._linearise()
        self.legs.remember(best.q)
        reached = best.error <= solver.tolerance
        message = (
            f"stance solved: legs exact, CoM {best.error * 1e3:.3f} mm from its target"
            if reached
            else f"CoM target out of reach within the legs' reach and joint limits: the nearest feasible "
            f"stance found leaves the CoM {best.error * 1e3:.2f} mm from it"
        )
        pose = self._torso(best.p)
        return StanceResult(
            reached, reached, pose, names, best.q, best.com, self.target, best.error, self.rounds, message
        )


def _twist(old: np.ndarray, new: np.ndarray) -> np.ndarray:
    """(6,) first-order motion from pose ``old`` to ``new`` (4, 4): translation, rotation vector."""
    turn = new[:3, :3] @ old[:3, :3].T
    angular = 0.5 * np.array([turn[2, 1] - turn[1, 2], turn[0, 2] - turn[2, 0], turn[1, 0] - turn[0, 1]])
    return np.concatenate([new[:3, 3] - old[:3, 3], angular])


def _solve2(matrix: np.ndarray, vector: np.ndarray) -> np.ndarray:
    """x with matrix (2, 2) @ x = vector (2,), by Cramer's rule (numpy's solver costs 10x more
    at this size); the derivative is near the identity, never singular in practice."""
    (a, b), (c, d) = matrix.tolist()
    u, v = vector.tolist()
    determinant = a * d - b * c
    return np.array([(d * u - b * v) / determinant, (a * v - c * u) / determinant])
