"""Serial kinematic chains: forward kinematics and the geometric Jacobian, single and batched.

A chain's movable joints each contribute a local transform ``A + f(q) B + g(q) C`` with constant
4x4 matrices: for a revolute joint (Rodrigues' formula) ``f = sin q``, ``g = 1 - cos q``,
``B = A K``, ``C = A K²`` with K the skew matrix of the joint axis; for a prismatic joint
``f = q``, ``g = 0``. ``A`` holds the fixed URDF transforms before the joint. One configuration
goes through a compiled kernel (:mod:`ik_solvers.solvers.numeric.fk_kernel`, a few µs); a batch is a few array
operations and one product per joint on column blocks, with no Python loop over configurations.

Poses are 4x4 homogeneous transforms of the tip link in the base link frame [m]. ``q`` holds the
movable joints' positions in :attr:`Chain.joint_names` order [rad for revolute, m for prismatic].
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ik_solvers.solvers.numeric.fk_kernel import fk_jacobian

MOVABLE_TYPES = ("revolute", "continuous", "prismatic")
BATCH_BLOCK = 2048  # configurations per block in batched FK: keeps the working set in cache


class KinematicTerms(NamedTuple):
    """The constant terms of the module docstring, as the compiled kernels take them.

    Attributes:
        a: (n + 1, 4, 4) fixed transform before each movable joint, then joint n to the tip.
        b, c: (n, 4, 4) the terms multiplied by f(q_i) and g(q_i).
        axes: (n, 3) joint axes in their joint frames. prismatic: (n,) bool.
    """

    a: np.ndarray
    b: np.ndarray
    c: np.ndarray
    axes: np.ndarray
    prismatic: np.ndarray


@dataclass(frozen=True)
class Joint:
    """One URDF joint: its type, links, fixed origin (4x4, in the parent link) and limits."""

    name: str
    type: str
    parent: str
    child: str
    origin: np.ndarray  # (4, 4) joint frame in the parent link frame at q = 0
    axis: np.ndarray  # (3,) unit axis in the joint frame
    lower: float  # [rad] or [m]
    upper: float  # [rad] or [m]
    velocity: float  # [rad/s] or [m/s]; inf when the URDF gives none
    effort: float  # [N m] or [N]; inf when the URDF gives none
    mimic: str = ""  # the joint this one follows (URDF <mimic>), "" when it moves on its own


def skew(vector: np.ndarray) -> np.ndarray:
    """(3, 3) matrix K with K @ v == vector × v."""
    x, y, z = vector
    return np.array([[0.0, -z, y], [z, 0.0, -x], [-y, x, 0.0]])


class Chain:
    """The serial chain of joints from ``base_link`` down to ``tip_link``.

    Attributes:
        joint_names: movable joints from base to tip; the order of ``q``.
        lower, upper: (n,) position limits [rad or m]; continuous joints get [-pi, pi].
        velocity_limits, effort_limits: (n,) from the URDF [rad/s or m/s, N m or N].
        continuous, prismatic: (n,) boolean masks of those joint types.
        axes: (n, 3) joint axes, each in its own joint frame.
    """

    def __init__(self, base_link: str, tip_link: str, joints: list[Joint]) -> None:
        self.base_link = base_link
        self.tip_link = tip_link
        movable = [j for j in joints if j.type in MOVABLE_TYPES]
        self.joints: tuple[Joint, ...] = tuple(movable)
        self.joint_names: tuple[str, ...] = tuple(j.name for j in movable)
        self.n: int = len(movable)
        self.lower = np.array([j.lower for j in movable], dtype=float)
        self.upper = np.array([j.upper for j in movable], dtype=float)
        self.velocity_limits = np.array([j.velocity for j in movable], dtype=float)
        self.effort_limits = np.array([j.effort for j in movable], dtype=float)
        self.continuous = np.array([j.type == "continuous" for j in movable], dtype=bool)
        self.prismatic = np.array([j.type == "prismatic" for j in movable], dtype=bool)
        self.axes = np.array([j.axis for j in movable], dtype=float).reshape(self.n, 3)
        self._has_prismatic = bool(self.prismatic.any())
        self._build_terms(joints)

    def __repr__(self) -> str:
        return f"Chain({self.base_link!r} -> {self.tip_link!r}, joints={list(self.joint_names)})"

    def _build_terms(self, joints: list[Joint]) -> None:
        """Constant terms A, B, C per movable joint, plus the tip as a last motionless term."""
        n = self.n
        a, b, c = np.zeros((n + 1, 4, 4)), np.zeros((n + 1, 4, 4)), np.zeros((n + 1, 4, 4))
        pending, i = np.eye(4), 0
        for joint in joints:
            pending = pending @ joint.origin
            if joint.type not in MOVABLE_TYPES:
                continue
            motion_b, motion_c = np.zeros((4, 4)), np.zeros((4, 4))
            if joint.type == "prismatic":
                motion_b[:3, 3] = joint.axis
            else:
                k = skew(joint.axis)
                motion_b[:3, :3], motion_c[:3, :3] = k, k @ k
            a[i], b[i], c[i] = pending, pending @ motion_b, pending @ motion_c
            pending, i = np.eye(4), i + 1
        a[n] = pending
        self._a, self._b, self._c = a, b[:n], c[:n]
        # Contiguous copies for the compiled single-q FK, as a plain tuple: numba types a named
        # tuple argument from Python about 1 µs slower (a third of the call).
        self._terms = tuple(self.kinematic_terms())
        self._scan_steps = [1 << s for s in range(max(n, 1).bit_length())]
        # Batched form: per term, the transposed 4x12 block [A | B | C] acting on columns.
        self._abc_columns = np.concatenate([a, b, c], axis=2).transpose(0, 2, 1).copy()

    def kinematic_terms(self) -> KinematicTerms:
        """The constant terms of the module docstring, for compiled kernels (contiguous copies)."""
        return KinematicTerms(
            self._a.copy(), self._b.copy(), self._c.copy(), self.axes.copy(), self.prismatic.copy()
        )

    def _motion_terms(self, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """f(q), g(q) of the class docstring, same shape as q."""
        if not self._has_prismatic:
            return np.sin(q), 1.0 - np.cos(q)
        return np.where(self.prismatic, q, np.sin(q)), np.where(self.prismatic, 0.0, 1.0 - np.cos(q))

    def _frames(self, q: np.ndarray) -> np.ndarray:
        """(n + 1, 4, 4): frame of each movable joint after its motion, then the tip, in the base.

        Prefix products by a parallel scan (log2(n + 1) stacked products instead of n + 1).
        """
        f, g = self._motion_terms(q)
        frames = self._a.copy()
        frames[: self.n] += f[:, None, None] * self._b + g[:, None, None] * self._c
        for step in self._scan_steps:
            frames[step:] = frames[:-step] @ frames[step:]
        return frames

    def joint_frames(self, q: np.ndarray) -> np.ndarray:
        """(n, 4, 4) frame of each movable joint, after its own motion, in the base frame.

        Joint i's axis is ``frames[i, :3, :3] @ axes[i]`` through the point ``frames[i, :3, 3]``.
        """
        q = self._check_q(q)
        if q.ndim != 1:
            raise ValueError(f"joint_frames takes one configuration of shape ({self.n},), got {q.shape}")
        return self._frames(q)[: self.n]

    def fk(self, q: np.ndarray) -> np.ndarray:
        """Pose of the tip link in the base frame.

        Args:
            q: (n,) joint positions, or (N, n) for a batch.
        Returns:
            (4, 4) for one configuration, (N, 4, 4) for a batch.
        """
        q = self._check_q(q)
        if q.ndim == 1:
            return self._single(q)[0]
        return self._batched(q, with_jacobian=False)[0]

    def fk_and_jacobian(self, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Tip pose and geometric Jacobian from one FK pass.

        Args:
            q: (n,) joint positions, or (N, n) for a batch.
        Returns:
            pose: (4, 4) or (N, 4, 4), the tip in the base frame.
            jacobian: (6, n) or (N, 6, n); rows 0-2 the tip's linear velocity [m/s], rows 3-5 its
            angular velocity [rad/s], both in the base frame, per unit velocity of each joint.
        """
        q = self._check_q(q)
        if q.ndim == 1:
            return self._single(q)
        return self._batched(q, with_jacobian=True)

    def _single(self, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Pose (4, 4) and Jacobian (6, n) of one configuration, by the compiled kernel: at a few
        joints numpy's per-call overhead would cost ten times the arithmetic."""
        pose, jacobian = np.empty((4, 4)), np.empty((6, self.n))
        pose[3] = (0.0, 0.0, 0.0, 1.0)
        fk_jacobian(self._terms, np.ascontiguousarray(q), pose[:3], jacobian, np.empty((3, 3, 4)))
        return pose, jacobian

    def jacobian(self, q: np.ndarray) -> np.ndarray:
        """Geometric Jacobian, (6, n) or (N, 6, n); see :meth:`fk_and_jacobian`."""
        return self.fk_and_jacobian(q)[1]

    def _batched(self, q: np.ndarray, with_jacobian: bool) -> tuple[np.ndarray, np.ndarray | None]:
        """FK (and Jacobian) of (N, n) configurations, in cache-sized blocks."""
        count = q.shape[0]
        poses = np.empty((count, 4, 4))
        poses[:, 3] = (0.0, 0.0, 0.0, 1.0)
        jacobians = np.empty((count, 6, self.n)) if with_jacobian else None
        for start in range(0, count, BATCH_BLOCK):
            block = slice(start, start + BATCH_BLOCK)
            columns = self._block_columns(q[block], keep_joint_frames=with_jacobian)
            poses[block, :3] = columns[-1].transpose(2, 1, 0)
            if with_jacobian:
                jacobians[block] = self._block_jacobian(columns)
        return poses, jacobians

    def _block_columns(self, q: np.ndarray, keep_joint_frames: bool) -> list[np.ndarray]:
        """Frames of a block as column arrays (4, 3, N): column k, row i, configuration.

        Storing configurations last keeps every operation contiguous; each product with the
        constant [A | B | C] block is one matrix multiplication for the whole block.
        """
        count = q.shape[0]
        f, g = (term.T for term in self._motion_terms(q))  # (n, N) each
        current = np.zeros((4, 3, count))
        current[0, 0] = current[1, 1] = current[2, 2] = 1.0
        kept = []
        for i in range(self.n + 1):
            product = (self._abc_columns[i] @ current.reshape(4, 3 * count)).reshape(3, 4, 3, count)
            current = product[0]
            if i < self.n:
                current += f[i] * product[1] + g[i] * product[2]
                if keep_joint_frames:
                    kept.append(current)
        return kept + [current]

    def _block_jacobian(self, columns: list[np.ndarray]) -> np.ndarray:
        """(N, 6, n) Jacobians from the column arrays of :meth:`_block_columns`."""
        tip = columns[-1][3]  # (3, N)
        jacobian = np.empty((6, self.n, tip.shape[1]))
        for i, frame in enumerate(columns[:-1]):
            axis = np.tensordot(self.axes[i], frame[:3], axes=1)  # (3, N)
            if self.prismatic[i]:
                jacobian[:3, i], jacobian[3:, i] = axis, 0.0
            else:
                jacobian[:3, i], jacobian[3:, i] = _cross(axis, tip - frame[3]), axis
        return jacobian.transpose(2, 0, 1)

    def within_limits(self, q: np.ndarray, tolerance: float = 0.0) -> np.ndarray:
        """True where every joint of q (..., n) is inside [lower, upper] (continuous: always)."""
        q = np.asarray(q, dtype=float)
        inside = (q >= self.lower - tolerance) & (q <= self.upper + tolerance)
        return np.all(inside | self.continuous, axis=-1)

    def rest_configuration(self) -> np.ndarray:
        """(n,) the rest configuration: every joint at 0 [rad or m], or its nearest limit when 0 is outside."""
        return np.clip(np.zeros(self.n), self.lower, self.upper)

    def random_configurations(self, count: int, rng: np.random.Generator) -> np.ndarray:
        """(count, n) configurations drawn uniformly within the joint limits."""
        return rng.uniform(self.lower, self.upper, size=(count, self.n))

    def _check_q(self, q: np.ndarray) -> np.ndarray:
        if type(q) is not np.ndarray or q.dtype != np.float64:
            q = np.asarray(q, dtype=float)
        if q.ndim not in (1, 2) or q.shape[-1] != self.n:
            raise ValueError(
                f"q has shape {q.shape}; expected ({self.n},) or (N, {self.n}) for the joints "
                f"{list(self.joint_names)}"
            )
        return q


def _cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Cross product of (3, N) column arrays."""
    return np.stack([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]])
