"""Which geometric solver fits a chain: structure detection from the chain's geometry at q = 0.

Nothing here looks at joint or link names. Each joint's axis *line* (direction and a point on it,
in the chain's base frame) is read from the chain at q = 0: the Jacobian's angular rows are the
axis directions, and its linear columns ``v = ω × (tip - p)`` give the foot of the perpendicular
from the tip onto each axis, ``tip + ω × v``. Intersections, parallels and offsets follow.

Each ``*_structure`` function returns the geometry its solver needs, or raises
:class:`StructureMismatch` whose message says what this chain lacks.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ik_solvers.chain import Chain
from ik_solvers.solvers.errors import StructureMismatch

ANGLE_TOLERANCE = 1e-6  # |cos| or |sin| below this counts as orthogonal / parallel
LENGTH_TOLERANCE = 1e-6  # [m] lines closer than this intersect

LEG_DESCRIPTION = (
    "biped leg: 6 revolute joints — hip yaw and hip roll axes intersecting at right angles, three "
    "parallel pitch axes orthogonal to the roll axis, then a foot roll axis orthogonal to them"
)
ARM7_DESCRIPTION = (
    "7-DoF arm: 7 revolute joints — three shoulder axes meeting in one point, an elbow axis "
    "perpendicular to the upper arm and forearm, three wrist axes meeting in one point"
)
PLANAR_DESCRIPTION = "planar two-link arm: 2 revolute joints with parallel, distinct axes"


@dataclass(frozen=True)
class AxisLines:
    """Joint axis lines at q = 0 in the chain's base frame.

    Attributes:
        directions: (n, 3) unit axes. points: (n, 3) a point on each axis [m].
        tip: (4, 4) the tip pose at q = 0.
    """

    directions: np.ndarray
    points: np.ndarray
    tip: np.ndarray


def axis_lines(chain: Chain) -> AxisLines:
    """The chain's joint axis lines at q = 0, from one FK and Jacobian pass."""
    tip, jacobian = chain.fk_and_jacobian(np.zeros(chain.n))
    directions = jacobian[3:].T
    points = tip[:3, 3] + np.cross(directions, jacobian[:3].T)
    return AxisLines(directions, points, tip)


def require(condition: bool, structure: str, reason: str) -> None:
    """Raise :class:`StructureMismatch` for ``structure`` with ``reason`` unless ``condition``."""
    if not condition:
        raise StructureMismatch(f"not a {structure}: {reason}")


def require_revolute(chain: Chain, count: int, structure: str) -> AxisLines:
    """Axis lines of a chain of exactly ``count`` revolute joints."""
    require(
        chain.n == count,
        structure,
        f"it needs {count} movable joints, this chain has {chain.n} ({', '.join(chain.joint_names)})",
    )
    prismatic = [name for name, p in zip(chain.joint_names, chain.prismatic) if p]
    require(not prismatic, structure, f"joints {prismatic} are prismatic, all must be revolute")
    return axis_lines(chain)


def line_gap(p1: np.ndarray, w1: np.ndarray, p2: np.ndarray, w2: np.ndarray) -> float:
    """Shortest distance [m] between the lines p1 + t w1 and p2 + t w2."""
    normal = np.cross(w1, w2)
    size = np.linalg.norm(normal)
    offset = p2 - p1
    if size < ANGLE_TOLERANCE:
        return float(np.linalg.norm(offset - np.dot(offset, w1) * w1))
    return float(abs(np.dot(offset, normal)) / size)


def meeting_point(p1: np.ndarray, w1: np.ndarray, p2: np.ndarray, w2: np.ndarray) -> np.ndarray:
    """The point of line (p1, w1) closest to the non-parallel line (p2, w2)."""
    normal = np.cross(w1, w2)
    t = np.dot(np.cross(p2 - p1, w2), normal) / np.dot(normal, normal)
    return p1 + t * w1


def orthogonal(a: np.ndarray, b: np.ndarray) -> bool:
    return abs(float(np.dot(a, b))) < ANGLE_TOLERANCE


def parallel(a: np.ndarray, b: np.ndarray) -> bool:
    return float(np.linalg.norm(np.cross(a, b))) < ANGLE_TOLERANCE


def names(chain: Chain, *indices: int) -> str:
    return ", ".join(f"'{chain.joint_names[i]}'" for i in indices)


def leg_structure(chain: Chain) -> AxisLines:
    """Check the biped leg structure (hip yaw, roll, three pitches, foot roll); return the axis lines (see :mod:`ik_solvers.solvers.geometric.leg`).

    Joints 1-2 (hip yaw, hip roll): orthogonal axes that intersect. Joints 3-5: pitch axes parallel
    to each other, orthogonal to the roll axis, not parallel to the yaw axis, on distinct lines.
    Joint 6: foot roll axis orthogonal to the pitch axes. Lengths and offsets may be anything.
    """
    what = "biped leg"
    lines = require_revolute(chain, 6, what)
    w, p = lines.directions, lines.points
    require(orthogonal(w[0], w[1]), what, f"hip axes {names(chain, 0, 1)} are not orthogonal")
    gap = line_gap(p[0], w[0], p[1], w[1])
    require(gap < LENGTH_TOLERANCE, what, f"hip axes {names(chain, 0, 1)} miss each other by {gap:.3g} m")
    require(
        orthogonal(w[1], w[2]),
        what,
        f"pitch axis {names(chain, 2)} is not orthogonal to roll {names(chain, 1)}",
    )
    require(
        abs(float(np.dot(w[2], np.cross(w[0], w[1])))) > 0.5,
        what,
        f"pitch axis {names(chain, 2)} is nearly parallel to the yaw axis {names(chain, 0)}",
    )
    for i in (3, 4):
        require(parallel(w[2], w[i]), what, f"pitch axes {names(chain, 2, i)} are not parallel")
    for i, j in ((2, 3), (3, 4)):
        gap = line_gap(p[i], w[i], p[j], w[j])
        require(gap > LENGTH_TOLERANCE, what, f"pitch axes {names(chain, i, j)} coincide (no link length)")
    require(orthogonal(w[2], w[5]), what, f"foot roll {names(chain, 5)} is not orthogonal to the pitch axes")
    return lines


def planar_structure(chain: Chain) -> AxisLines:
    """Check for two parallel, distinct revolute axes; return the axis lines."""
    what = "planar two-link arm"
    lines = require_revolute(chain, 2, what)
    w, p = lines.directions, lines.points
    require(parallel(w[0], w[1]), what, f"axes {names(chain, 0, 1)} are not parallel")
    gap = line_gap(p[0], w[0], p[1], w[1])
    require(gap > LENGTH_TOLERANCE, what, f"axes {names(chain, 0, 1)} coincide (no first link)")
    return lines


def arm7_structure(chain: Chain) -> AxisLines:
    """Check the 7-DoF SRS arm structure (Tolani et al. 2000); return the axis lines.

    Shoulder (joints 1-3) and wrist (joints 5-7): axes meeting in one point, consecutive axes
    orthogonal. Elbow (joint 4): perpendicular to the shoulder→elbow and elbow→wrist segments.
    """
    what = "7-DoF arm"
    lines = require_revolute(chain, 7, what)
    w, p = lines.directions, lines.points
    centres = []
    for group, label in (((0, 1, 2), "shoulder"), ((4, 5, 6), "wrist")):
        a, b, c = group
        for i, j in ((a, b), (b, c)):
            require(orthogonal(w[i], w[j]), what, f"{label} axes {names(chain, i, j)} are not orthogonal")
        centre = meeting_point(p[a], w[a], p[b], w[b])
        for i in group:
            gap = float(np.linalg.norm(np.cross(centre - p[i], w[i])))
            require(
                gap < LENGTH_TOLERANCE, what, f"{label} axes {names(chain, *group)} do not meet in one point"
            )
        centres.append(centre)
    shoulder, wrist = centres
    for centre, label in ((shoulder, "shoulder"), (wrist, "wrist")):
        reach = float(np.linalg.norm(np.cross(centre - p[3], w[3])))
        require(
            reach > LENGTH_TOLERANCE, what, f"the {label} centre lies on the elbow axis {names(chain, 3)}"
        )
    require(
        abs(float(np.dot(wrist - shoulder, w[3]))) < LENGTH_TOLERANCE,
        what,
        f"elbow axis {names(chain, 3)} is not perpendicular to the shoulder→elbow and elbow→wrist "
        "segments (the shoulder and wrist centres must lie in one plane normal to it)",
    )
    return lines


def sign(value: float) -> float:
    """+1.0 or -1.0 (zero counts as +1)."""
    return -1.0 if value < 0.0 else 1.0
