"""The walking figures of a :class:`~ik_solvers.walk.walk_log.WalkLog`, from the simulated robot.

No ROS here. Every figure comes from the measured series (the simulator's torso pose and joint
positions: the soles and the CoM by FK), the plan only says which sole is in support:

- fell: the CoM's height fell below ``FALL_HEIGHT`` of its standing height, or the torso tilted more
  than ``FALL_TILT`` [deg], at any instant,
- distance: horizontal displacement of the torso over a stretch [m],
- heading error: the torso's final yaw against the commanded one [deg],
- steps: swings (entries into single support),
- CoM margin: signed distance of the CoM's ground projection inside the support polygon (convex
  hull of the supporting soles' collision rectangles; negative outside) [mm], its minimum,
- torso tilt: angle between the torso's z axis and the vertical [deg], its maximum,
- sole slip: horizontal drift of a supporting sole from where it stood when its support began
  (``SLIP_SETTLE`` [s] after touch-down, while the landing impact settles), its maximum [mm].
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.spatial import ConvexHull

from ik_solvers.limbs.footprint import SoleGeometry
from ik_solvers.walk.walk_log import SUPPORT_CODES, WalkLog

FALL_HEIGHT = 0.6  # fraction of the standing CoM height
FALL_TILT = 30.0  # [deg]
SLIP_SETTLE = 0.05  # [s]
DOUBLE, LEFT, RIGHT = SUPPORT_CODES["double"], SUPPORT_CODES["left"], SUPPORT_CODES["right"]


@dataclass(frozen=True)
class WalkMetrics:
    """The ``walk`` section of the demo's results.json (units in the names)."""

    fell: bool
    distance_m: float
    commanded_distance_m: float
    heading_error_deg: float
    steps: int
    com_margin_min_mm: float
    torso_tilt_max_deg: float
    foot_slip_max_mm: float
    real_time_factor: float


def tilt_degrees(base: np.ndarray) -> np.ndarray:
    """(N,) torso tilt [deg] of (N, 7) poses (x, y, z, qw, qx, qy, qz)."""
    x, y = base[:, 4], base[:, 5]
    return np.degrees(np.arccos(np.clip(1.0 - 2.0 * (x * x + y * y), -1.0, 1.0)))


def yaw(base: np.ndarray) -> np.ndarray:
    """(N,) torso heading [rad] (yaw of its x axis) of (N, 7) poses."""
    w, x, y, z = base[:, 3], base[:, 4], base[:, 5], base[:, 6]
    return np.arctan2(2.0 * (w * z + x * y), 1.0 - 2.0 * (y * y + z * z))


def fell(base: np.ndarray, com: np.ndarray) -> bool:
    """True when the CoM (N, 3) [m] ever dropped below FALL_HEIGHT of its first height (standing)
    or the root's pose (N, 7) tilted more than FALL_TILT. The CoM, not the root: a root frame may
    sit on the floor."""
    return bool(np.any(com[:, 2] < FALL_HEIGHT * com[0, 2]) or np.any(tilt_degrees(base) > FALL_TILT))


def support_polygons(log: WalkLog, soles: np.ndarray, support: np.ndarray) -> list[np.ndarray | None]:
    """Per sample the support polygon's (k, 2) corners (convex hull), None without support."""
    geometry = log.footprints
    polygons = []
    for pair, code in zip(soles, support):
        sides = {DOUBLE: (0, 1), LEFT: (0,), RIGHT: (1,)}.get(int(code), ())
        if not sides:
            polygons.append(None)
            continue
        polygons.append(footprint_hull([geometry[i] for i in sides], [pair[i] for i in sides]))
    return polygons


def footprint_hull(geometry: Sequence[SoleGeometry], poses: Sequence[np.ndarray]) -> np.ndarray:
    """(k, 2) world x, y [m] of the convex hull of the soles' footprints, counter-clockwise: one
    SoleGeometry and one (4, 4) world pose per sole."""
    corners = np.vstack([sole.corners_in_world(pose) for sole, pose in zip(geometry, poses)])
    return corners[ConvexHull(corners).vertices]


def polygon_margin(point: np.ndarray, polygon: np.ndarray) -> float:
    """Signed distance [m] of ``point`` (2,) inside the convex ``polygon`` (k, 2), counter-clockwise
    corners: the distance to the nearest edge line, negative outside."""
    edges = np.roll(polygon, -1, axis=0) - polygon
    normals = np.stack([-edges[:, 1], edges[:, 0]], axis=1) / np.linalg.norm(edges, axis=1)[:, None]
    return float(np.min(np.einsum("ij,ij->i", point - polygon, normals)))


def com_margins(com: np.ndarray, polygons: list[np.ndarray | None]) -> np.ndarray:
    """(N,) CoM margins [m] (NaN where there is no support)."""
    return np.array([np.nan if p is None else polygon_margin(c[:2], p) for c, p in zip(com, polygons)])


def sole_slip(times: np.ndarray, soles: np.ndarray, support: np.ndarray) -> float:
    """Largest horizontal drift [m] of a sole while it supports (see the module docstring)."""
    worst = 0.0
    for side, codes in ((0, (DOUBLE, LEFT)), (1, (DOUBLE, RIGHT))):
        supporting = np.isin(support, codes)
        start = None
        for i, on in enumerate(supporting):
            if not on:
                start = None
                continue
            if start is None:
                start = i
            if times[i] - times[start] < SLIP_SETTLE:
                anchor = soles[i, side, :2, 3]
                continue
            worst = max(worst, float(np.linalg.norm(soles[i, side, :2, 3] - anchor)))
    return worst


def step_count(support: np.ndarray) -> int:
    """Entries into single support."""
    single = np.isin(support, (LEFT, RIGHT))
    return int(np.count_nonzero(single[1:] & ~single[:-1]) + (1 if len(single) and single[0] else 0))


def displacement(times: np.ndarray, base: np.ndarray, start: float, end: float) -> float:
    """Horizontal torso displacement [m] between the samples nearest ``start`` and ``end`` [s]."""
    i, j = (int(np.argmin(np.abs(times - t))) for t in (start, end))
    return float(np.linalg.norm(base[j, :2] - base[i, :2]))


def heading_change(times: np.ndarray, base: np.ndarray, start: float, end: float) -> float:
    """Torso yaw change [rad] from ``start`` to ``end`` [s], unwrapped."""
    headings = np.unwrap(yaw(base))
    i, j = (int(np.argmin(np.abs(times - t))) for t in (start, end))
    return float(headings[j] - headings[i])
