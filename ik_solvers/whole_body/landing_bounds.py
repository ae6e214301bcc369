"""How far the stabiliser may move a swing's landing: the regular bound, and a longer recovery step.

The stabiliser moves a swing's landing by the DCM error the ZMP cannot take, grown to touch-down
(:func:`~ik_solvers.whole_body.capture_point.landing_offset`), at most ``step_adjust_ratio`` of
the leg's horizontal reach from its plan (:func:`bounded_offset`). A push forward or back can ask
more: the swinging foot of a robot pushed back must land behind the support sole, 0.2 m or more
behind a plan that had it 0.17 m ahead. :func:`recovery_landing` then lets the landing go as far
along the support sole's axis as the leg reaches around that sole (``recovery_reach_ratio`` of
the leg's horizontal reach, before and behind it), its sideways change still bounded as before
(the sideways pushes' own business). The reach is the leg's horizontal reach at the walking
height (:class:`~ik_solvers.whole_body.walk_geometry.WalkGeometry`, from the URDF); no IK solve
of each landing is made.

No ROS. Units: m; world frame z up (the plan's).
"""

from __future__ import annotations

import numpy as np


def bounded_offset(offset: np.ndarray, bound: float) -> np.ndarray:
    """``offset`` (2,) [m] scaled down to at most ``bound`` [m] long, its direction kept (a landing's
    change here; a capture step's CoM target from the measured CoM in
    :meth:`~ik_solvers.whole_body.capture_step.CaptureStepper.limit`; the stabiliser's lean against
    a tipped sole)."""
    norm = float(np.hypot(*offset))
    return offset * (bound / norm) if norm > bound else np.asarray(offset, dtype=float)


def recovery_landing(
    planned: np.ndarray, offset: np.ndarray, support: np.ndarray, bound: float, reach: float
) -> np.ndarray:
    """(2,) [m] where a landing planned at ``planned`` (2,) and asked to move by ``offset`` (2,)
    goes: within ``bound`` [m] of its plan when that suffices (or ``reach`` is 0); else along the
    ``support`` sole's (4, 4) x axis as far as ``offset`` asks within ``reach`` [m] before or
    behind that sole (never less far than ``bound`` from the plan allows), and across it within
    ``bound`` of the plan's lateral place."""
    planned = np.asarray(planned, dtype=float)
    if float(np.hypot(*offset)) <= bound or reach <= 0.0:
        return planned + bounded_offset(offset, bound)
    origin, forward, lateral = support[:2, 3], support[:2, 0], support[:2, 1]
    wanted = planned + offset - origin
    nominal = np.array([forward @ (planned - origin), lateral @ (planned - origin)])
    low, high = min(-reach, nominal[0] - bound), max(reach, nominal[0] + bound)
    along = min(max(float(forward @ wanted), low), high)
    across = min(max(float(lateral @ wanted), nominal[1] - bound), nominal[1] + bound)
    return origin + along * forward + across * lateral
