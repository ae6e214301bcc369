"""Both legs of a stance: exact IK of each sole from a torso pose, and the CoM's derivative.

Each leg is the chain torso → sole, solved by the geometric (closed-form) solver, or by the
numeric one where the leg fits no closed form; seeded with its last solution so that it keeps
its branch from one tick to the next.
"""

from __future__ import annotations

import numpy as np

from ik_solvers.model import RobotModel
from ik_solvers.solvers import UnsupportedChainError, make_solver
from ik_solvers.whole_body.center_of_mass import CenterOfMass

IDENTITY_COLUMNS = np.eye(3)[:, :2]  # dc/dp of the torso's own x, y


def leg_solver(chain):
    """The closed-form solver of ``chain``, else the numeric one (damped least squares)."""
    try:
        return make_solver("geometric", chain)
    except UnsupportedChainError:
        return make_solver("jacobian", chain, method="dls", tolerance=1e-9)


class LegPair:
    """The two legs (left then right) from the torso (the model's root) to their soles."""

    def __init__(self, model: RobotModel, com: CenterOfMass, left_sole: str, right_sole: str) -> None:
        self.com = com
        self.chains = (model.chain(model.root, left_sole), model.chain(model.root, right_sole))
        self.sole_links = (left_sole, right_sole)
        self.solvers = tuple(leg_solver(chain) for chain in self.chains)
        self.joint_names = self.chains[0].joint_names + self.chains[1].joint_names
        self.columns = np.array([com.index(name) for name in self.joint_names])
        self.sizes = (self.chains[0].n, self.chains[1].n)
        self._hips = np.array([_hip_point(chain) for chain in self.chains])  # (2, 3) torso frame
        self._com_buffers = (np.empty(3), np.empty((3, com.n)))
        self.reset()

    def reset(self) -> None:
        """No seeds: the next solves take each leg's default branch (the straight-standing one)."""
        self._seeds = [None, None]

    def remember(self, q: np.ndarray) -> None:
        """Seed the next solves with q (both legs, ``joint_names`` order)."""
        self._seeds = [q[: self.sizes[0]].copy(), q[self.sizes[0] :].copy()]

    def set_soles(self, left: np.ndarray, right: np.ndarray) -> None:
        """The soles' world poses (4, 4) for the following :meth:`solve` calls."""
        self._soles = (left, right)

    def hips_over_soles(self, rotation: np.ndarray) -> np.ndarray:
        """(2,) torso x, y putting the hips' midpoint over the soles' midpoint [m]."""
        soles = 0.5 * (self._soles[0][:2, 3] + self._soles[1][:2, 3])
        return soles - (rotation @ self._hips.mean(axis=0))[:2]

    def targets(self, torso: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Both soles (4, 4) in the frame of the torso at world pose ``torso`` (4, 4)."""
        inverse = np.eye(4)
        inverse[:3, :3] = torso[:3, :3].T
        inverse[:3, 3] = -inverse[:3, :3] @ torso[:3, 3]
        return inverse @ self._soles[0], inverse @ self._soles[1]

    def solve(self, torso: np.ndarray, q: np.ndarray) -> tuple[bool, np.ndarray]:
        """Both legs for the torso's world pose (4, 4); their joints written into the full q.

        Returns (both exact and in limits, the legs' q (12,)); :attr:`message` says why not,
        :attr:`last_targets` holds the soles in the torso frame.
        """
        ok, parts, self.message = True, [], ""
        self.last_targets = self.targets(torso)
        for solver, target, seed in zip(self.solvers, self.last_targets, self._seeds):
            result = solver.solve(target, seed=seed)
            parts.append(result.q)
            if not result.success:
                ok, self.message = False, f"{solver.chain.tip_link}: {result.message}"
        legs = np.concatenate(parts)
        q[self.columns] = legs
        self._q = q
        return ok, legs

    def com_local(self) -> tuple[np.ndarray, np.ndarray]:
        """CoM (3,) and its joint Jacobian (3, n) in the torso frame at the last solved q."""
        com, jacobian = self._com_buffers
        self.com.local_single(self._q, com, jacobian)
        return com.copy(), jacobian[:, self.columns].copy()

    def linearise(
        self, legs: np.ndarray, rotation: np.ndarray, com_jacobian: np.ndarray
    ) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray]]:
        """First-order model of the CoM at the legs' q (12,), soles held fixed in the world.

        Args:
            rotation: (3, 3) the torso in the world. com_jacobian: (3, 12) the CoM's Jacobian by
                the leg joints, torso frame.
        Returns:
            (2, 2) derivative of the CoM's world x, y by the torso's world x, y; per leg (3, 6),
            the CoM's motion in the torso frame per sole twist (linear; angular) in the torso frame.
        """
        motion = np.zeros((6, 2))
        motion[:3] = -rotation.T[:, :2]  # the soles move by -Rᵀ dp in the torso frame
        total, start, sensitivities = IDENTITY_COLUMNS.copy(), 0, []
        for chain, size in zip(self.chains, self.sizes):
            jacobian = chain.jacobian(legs[start : start + size])
            try:
                inverse = np.linalg.inv(jacobian)
            except np.linalg.LinAlgError:  # a stretched knee: least squares
                inverse = np.linalg.pinv(jacobian)
            sensitivity = com_jacobian[:, start : start + size] @ inverse
            sensitivities.append(sensitivity)
            total += rotation @ (sensitivity @ motion)
            start += size
        return total[:2], tuple(sensitivities)


def _hip_point(chain) -> np.ndarray:
    """(3,) the first joint's origin in the torso frame at q = 0 [m] (the hip)."""
    return chain.joint_frames(np.zeros(chain.n))[0][:3, 3]
