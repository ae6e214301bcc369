"""The geometry of a 7-DoF S-R-S arm read from a chain: shoulder and wrist centres, elbow, tool offset.

A chain qualifies when :func:`ik_solvers.solvers.geometric.structure.arm7_structure` accepts it: seven revolute
joints, the first three axes meeting in one point (the shoulder centre S) with consecutive axes
orthogonal, an elbow, the last three axes meeting in one point (the wrist centre). Any fixed tool
offset after the wrist is allowed.

Everything is taken from the zero pose in the base frame (product of exponentials): joint i turns
the part of the arm beyond it about the world axis ``axes[i]`` through the point ``points[i]``, so

    pose(q) = Rot_S(a1, q1) Rot_S(a2, q2) Rot_S(a3, q3) Rot_E(a4, q4) Rot_W(a5, q5) ... pose(0).

With the shoulder rotation Rs = Rot(a1, q1) Rot(a2, q2) Rot(a3, q3) and the wrist rotation Rw likewise,
the wrist centre is ``S + Rs (e + R4 f)`` and the tip rotation ``Rs R4 Rw M`` (M: tip rotation at q = 0).
Lengths in metres, angles in radians, vectors in the chain's base frame.
"""

from __future__ import annotations

import math

import numpy as np

from ik_solvers.chain import Chain
from ik_solvers.solvers.errors import StructureMismatch, UnsupportedChainError
from ik_solvers.solvers.geometric.arm7.axis_triple import AxisTriple
from ik_solvers.solvers.geometric.rotations import JointAxis, matmul
from ik_solvers.solvers.geometric.structure import AxisLines, arm7_structure, meeting_point
from ik_solvers.solvers.geometric.vectors import Ops, add

IDENTITY = ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0))


def _vector(values: np.ndarray) -> tuple[float, float, float]:
    return (float(values[0]), float(values[1]), float(values[2]))


class ArmGeometry:
    """Constants of one S-R-S arm chain; see the module docstring.

    Attributes:
        shoulder, wrist: the joint triples (axes in the base frame at q = 0, limits).
        shoulder_centre: S [m]. elbow_axis: a4 (unit).
        upper_arm: e = E - S, from S to the foot E of the perpendicular from S onto the elbow axis [m].
        forearm_along, forearm_across, forearm_turned: f = W - E at q = 0 split as R4 f =
            along + cos q4 across + sin q4 turned [m].
        tool: the tip position relative to the wrist centre, in the tip frame [m].
        tip_rows: rows of the tip rotation M at q = 0.
        distance_terms: (c0, A, B) with |W - S|² = c0 + A cos q4 + B sin q4 [m²].
        lower, upper: 7 joint limits each [rad] (floats).
        elbow_range: (amplitude R, phase φ) with |W - S|² = c0 + R cos(q4 - φ).
        axes: the seven :class:`JointAxis` (base frame, q = 0).
        elbow_direction: unit direction from the shoulder-wrist line to the elbow at Rs = I, mid elbow.

    Args:
        chain: the arm chain. axis_lines: its axis lines when :func:`arm7_structure` already
            checked them (else it is run here).
    Raises:
        UnsupportedChainError: the chain is no S-R-S arm; the message says what it lacks.
    """

    def __init__(self, chain: Chain, axis_lines: AxisLines | None = None) -> None:
        lines = axis_lines
        if lines is None:
            try:
                lines = arm7_structure(chain)
            except StructureMismatch as mismatch:
                raise UnsupportedChainError(
                    f"{chain!r} is no 7-DoF arm for Arm7Solver: {mismatch}"
                ) from mismatch
        axes, points, pose = lines.directions, lines.points, lines.tip
        centre = meeting_point(points[0], axes[0], points[1], axes[1])
        wrist_centre = meeting_point(points[4], axes[4], points[5], axes[5])
        elbow_axis = axes[3]
        foot = points[3] + elbow_axis * (elbow_axis @ (centre - points[3]))
        upper, forearm = foot - centre, wrist_centre - foot
        along = elbow_axis * (elbow_axis @ forearm)
        self.shoulder = AxisTriple(*map(_vector, axes[:3]), chain.lower[:3], chain.upper[:3])
        self.wrist = AxisTriple(*map(_vector, axes[4:]), chain.lower[4:], chain.upper[4:])
        self.shoulder_centre = _vector(centre)
        self.elbow_axis = _vector(elbow_axis)
        self.upper_arm = _vector(upper)
        self.forearm_along = _vector(along)
        self.forearm_across = _vector(forearm - along)
        self.forearm_turned = _vector(np.cross(elbow_axis, forearm))
        self.tool = _vector(pose[:3, :3].T @ (pose[:3, 3] - wrist_centre))
        self.tip_rows = tuple(_vector(row) for row in pose[:3, :3])
        self.tip_columns = tuple(_vector(column) for column in pose[:3, :3].T)
        self.distance_terms = (
            float(upper @ upper + forearm @ forearm + 2.0 * upper @ along),
            float(2.0 * upper @ (forearm - along)),
            float(2.0 * upper @ np.cross(elbow_axis, forearm)),
        )
        self.lower, self.upper = chain.lower.tolist(), chain.upper.tolist()
        _, cos_part, sin_part = self.distance_terms
        self.elbow_range = (math.hypot(cos_part, sin_part), math.atan2(sin_part, cos_part))
        self.axes = tuple(JointAxis(axis) for axis in axes)
        self.elbow_direction = self._natural_elbow_direction()

    def shoulder_to_wrist(self, c4, s4) -> tuple:
        """v = e + R4 f, the shoulder-to-wrist vector with Rs = I [m], for cos q4, sin q4 (floats or columns)."""
        u, p, a, t = self.upper_arm, self.forearm_along, self.forearm_across, self.forearm_turned
        return tuple(u[i] + p[i] + a[i] * c4 + t[i] * s4 for i in range(3))

    def forward(self, q, ops: Ops) -> tuple[tuple, tuple]:
        """Tip pose of q (7 floats or columns) in the base frame: (rotation columns, position [m])."""
        cosines, sines = [ops.cos(x) for x in q], [ops.sin(x) for x in q]
        rotation = self.axes[0].matrix(cosines[0], sines[0], ops)
        for i in range(1, 7):
            rotation = self.axes[i].times(rotation, cosines[i], sines[i], ops)
            if i == 2:
                reach = ops.matvec(rotation, self.shoulder_to_wrist(cosines[3], sines[3]))
        if self.tip_columns != IDENTITY:
            rotation = matmul(rotation, self.tip_columns, ops)
        return rotation, add(add(self.shoulder_centre, reach), ops.matvec(rotation, self.tool))

    def _natural_elbow_direction(self) -> tuple[float, float, float]:
        """Unit direction from the shoulder-wrist line to the elbow, at Rs = I and mid elbow limits.

        The default elbow direction when neither a pole nor a seed says where the elbow goes.
        """
        middle = 0.5 * (self.lower[3] + self.upper[3])
        v = np.array(self.shoulder_to_wrist(math.cos(middle), math.sin(middle)))
        v /= np.linalg.norm(v)
        e = np.array(self.upper_arm)
        across = e - v * (e @ v)
        if np.linalg.norm(across) < 1e-9 * np.linalg.norm(e):
            across = np.cross(self.elbow_axis, v)
        return _vector(across / np.linalg.norm(across))
