"""The robot's centre of mass from the URDF inertials, and its Jacobian, on a floating base.

Every link with an ``<inertial>`` counts, whatever joint (fixed included) attaches it. The root
link (the torso, ``base_link``) is the floating base: its pose in the world is a (4, 4) transform
``base_pose`` (identity: everything in the root link frame).

Jacobian columns (3, 6 + n), all in the world frame: the base's linear velocity (3) [m/s], the
base's angular velocity (3) [rad/s], then the joints in :attr:`CenterOfMass.joint_names` order —
so that ``dc = J @ [v, w, dq]`` with v the velocity of the base origin. For the base part,
``dc/dv = I`` and ``dc/dw = -skew(c - p)`` (p the base origin).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ik_solvers.chain import MOVABLE_TYPES, skew
from ik_solvers.model import RobotModel
from ik_solvers.whole_body import com_kernel

BASE_DOF = 6
_KINDS = {"fixed": com_kernel.FIXED, "revolute": com_kernel.REVOLUTE, "continuous": com_kernel.REVOLUTE}
_KINDS["prismatic"] = com_kernel.PRISMATIC


def build_tree(model: RobotModel, joint_names: tuple[str, ...]) -> tuple[np.ndarray, ...]:
    """The flat tree arrays of :mod:`~ik_solvers.whole_body.com_kernel` (parents first)."""
    children: dict[str, list] = {}
    for joint in model.joints.values():
        children.setdefault(joint.parent, []).append(joint)
    order, joints, stack = [model.root], [None], [model.root]
    while stack:
        for joint in children.get(stack.pop(), []):
            order.append(joint.child)
            joints.append(joint)
            stack.append(joint.child)
    position = {link: k for k, link in enumerate(order)}
    column = {name: i for i, name in enumerate(joint_names)}
    count = len(order)
    parent, kind, index = np.full(count, -1), np.zeros(count, dtype=np.int64), np.full(count, -1)
    origin, axis = np.zeros((count, 3, 4)), np.zeros((count, 3))
    origin[0, :, :3] = np.eye(3)
    for k, joint in enumerate(joints[1:], start=1):
        parent[k], origin[k], axis[k] = position[joint.parent], joint.origin[:3], joint.axis
        kind[k] = _KINDS[joint.type]
        index[k] = column.get(joint.name, -1)
    mass, center = np.zeros(count), np.zeros((count, 3))
    for k, link in enumerate(order):
        inertial = model.inertials.get(link)
        if inertial is not None:
            mass[k], center[k] = inertial.mass, inertial.center
    return parent.astype(np.int64), origin, axis, kind, index.astype(np.int64), mass, center


class CenterOfMass:
    """Centre of mass [m] of a :class:`~ik_solvers.model.RobotModel` and its Jacobian.

    Attributes:
        joint_names: every movable joint of the model, the order of ``q`` (URDF joint order).
        total_mass: [kg], the sum of all links' masses.
        root: the floating-base link (the model's root).

    Raises:
        ValueError: the model has no mass at all (no ``<inertial>`` with a positive mass).
    """

    def __init__(self, model: RobotModel) -> None:
        self.model = model
        self.root = model.root
        self.joint_names: tuple[str, ...] = tuple(
            name for name, joint in model.joints.items() if joint.type in MOVABLE_TYPES
        )
        self.n = len(self.joint_names)
        self._column = {name: i for i, name in enumerate(self.joint_names)}
        self.tree = build_tree(model, self.joint_names)
        self.total_mass = float(self.tree[5].sum())
        if not self.total_mass > 0.0:
            raise ValueError(
                f"robot '{model.name}' has no mass: a centre of mass needs <inertial> blocks with a "
                "positive <mass> on its links"
            )
        links = len(self.tree[0])
        com_kernel.prepare()
        self._scratch = (np.empty((links, 3, 4)), np.empty((links, 4)), np.empty((3, 4)))

    def index(self, name: str) -> int:
        """Position of joint ``name`` in q; ValueError naming the valid joints otherwise."""
        try:
            return self._column[name]
        except KeyError:
            raise ValueError(
                f"unknown joint '{name}'; joints of '{self.model.name}': {', '.join(self.joint_names)}"
            ) from None

    def configuration(self, positions: Mapping[str, float] | None = None) -> np.ndarray:
        """(n,) q with the named joints set [rad or m] and every other joint at 0.

        Raises:
            ValueError: an unknown joint name or a non-finite position.
        """
        q = np.zeros(self.n)
        for name, value in (positions or {}).items():
            value = float(value)
            if not np.isfinite(value):
                raise ValueError(f"joint '{name}' position is {value}; a finite number is required")
            q[self.index(name)] = value
        return q

    def position(self, q: np.ndarray, base_pose: np.ndarray | None = None) -> np.ndarray:
        """Centre of mass in the world: (3,) for q (n,), (N, 3) for q (N, n) [m].

        ``base_pose``: the root link in the world, (4, 4), or (N, 4, 4) with a batch; None = identity.
        """
        return self.position_and_jacobian(q, base_pose)[0]

    def shift(
        self, q: np.ndarray, moved: Mapping[str, float], rest: Mapping[str, float], yaw: float
    ) -> np.ndarray:
        """(2,) [m] how far the joints named in ``moved`` (their angles [rad]) move the CoM from
        where it is with them at ``rest`` (the same names), the other joints as in ``q`` (n,),
        horizontally in the world with the root level at heading ``yaw`` [rad]. The walk's arm
        strategies add it to the CoM target, so that a stance solve counting the arms' mass does
        not move the body back under them."""
        raised, lowered = q.copy(), q.copy()
        for name, angle in moved.items():
            raised[self.index(name)], lowered[self.index(name)] = angle, rest[name]
        local = self.position(raised) - self.position(lowered)
        c, s = np.cos(yaw), np.sin(yaw)
        return np.array([c * local[0] - s * local[1], s * local[0] + c * local[1]])

    def jacobian(self, q: np.ndarray, base_pose: np.ndarray | None = None) -> np.ndarray:
        """(3, 6 + n) or (N, 3, 6 + n); columns as in the module docstring."""
        return self.position_and_jacobian(q, base_pose)[1]

    def position_and_jacobian(
        self, q: np.ndarray, base_pose: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """Centre of mass and its floating-base Jacobian from one pass (see the module docstring).

        Args:
            q: (n,) or (N, n) joint positions in :attr:`joint_names` order.
            base_pose: None, (4, 4) or (N, 4, 4) pose of the root link in the world [m].
        Returns:
            com (3,) or (N, 3) [m]; jacobian (3, 6 + n) or (N, 3, 6 + n).
        """
        q = self._check_q(q)
        single = q.ndim == 1
        rows = q.reshape(-1, self.n)
        com, joint_jacobian = self.local(rows)
        poses = np.broadcast_to(
            np.eye(4) if base_pose is None else np.asarray(base_pose, float), (len(rows), 4, 4)
        )
        if poses.shape[0] != len(rows):
            raise ValueError(
                f"base_pose has shape {np.shape(base_pose)}; expected (4, 4) or ({len(rows)}, 4, 4)"
            )
        rotation, origin = poses[:, :3, :3], poses[:, :3, 3]
        world = np.einsum("nij,nj->ni", rotation, com) + origin
        jacobian = np.empty((len(rows), 3, BASE_DOF + self.n))
        jacobian[:, :, :3] = np.eye(3)
        jacobian[:, :, 3:6] = -np.array([skew(lever) for lever in world - origin])
        jacobian[:, :, 6:] = rotation @ joint_jacobian
        return (world[0], jacobian[0]) if single else (world, jacobian)

    def local(self, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """CoM (N, 3) and its joint Jacobian (N, 3, n) in the root link frame, for q (N, n).

        The compiled kernel without checks or the floating base: for callers in a hot loop.
        """
        com, jacobian = np.empty((len(q), 3)), np.empty((len(q), 3, self.n))
        com_kernel.com_jacobian_batch(self.tree, np.ascontiguousarray(q), *self._scratch, com, jacobian)
        return com, jacobian

    def local_single(self, q: np.ndarray, com: np.ndarray, jacobian: np.ndarray) -> None:
        """One configuration q (n,) into com (3,) and jacobian (3, n), root link frame, unchecked."""
        com_kernel.com_jacobian(self.tree, q, *self._scratch, com, jacobian)

    def _check_q(self, q: np.ndarray) -> np.ndarray:
        q = np.asarray(q, dtype=float)
        if q.ndim not in (1, 2) or q.shape[-1] != self.n:
            raise ValueError(
                f"q has shape {q.shape}; expected ({self.n},) or (N, {self.n}) for the joints "
                f"{list(self.joint_names)}"
            )
        if not np.all(np.isfinite(q)):
            raise ValueError("q has non-finite entries; joint positions must be finite numbers")
        return q
