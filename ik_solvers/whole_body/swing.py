"""Swing-foot trajectory: lift, travel, land flat, with zero velocity and acceleration at both ends.

Horizontal position and yaw follow the minimum-jerk profile s(τ) = 10τ³ − 15τ⁴ + 6τ⁵ (Flash and
Hogan, "The coordination of arm movements", J. Neuroscience 1985); the lift follows
z(τ) = h · 64 τ³ (1 − τ)³, which peaks at h for τ = 1/2. The sole stays level (roll = pitch = 0)
all the way, so it leaves and meets the ground flat; τ ∈ [0, 1] is the swing's time fraction.

A swing redirected in the air (a stop: :func:`redirect`) lands elsewhere at the same time: from
the moment ``since`` it is redirected to its landing it is the planned swing plus w times the
change of landing (horizontally and in yaw), w = s(u), u the fraction of that time. Position,
velocity and acceleration stay continuous when it is redirected, and it lands at zero velocity
and acceleration.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np


def minimum_jerk(tau: float) -> float:
    """s(τ) of the module docstring, τ clipped to [0, 1]."""
    tau = min(max(tau, 0.0), 1.0)
    return tau * tau * tau * (10.0 + tau * (-15.0 + 6.0 * tau))


def lift(tau: float, height: float) -> float:
    """z(τ) [m] above the ground of the module docstring, τ clipped to [0, 1]."""
    tau = min(max(tau, 0.0), 1.0)
    return 64.0 * height * (tau * (1.0 - tau)) ** 3


def wrap_angle(angle: float) -> float:
    """The angle [rad] wrapped into [-pi, pi)."""
    return (angle + np.pi) % (2.0 * np.pi) - np.pi


def swing_pose(start: np.ndarray, end: np.ndarray, tau: float, height: float) -> np.ndarray:
    """(x, y, z, yaw) of the swinging sole at fraction τ, from planar (x, y, yaw) start to end."""
    s = minimum_jerk(tau)
    x, y = start[:2] + s * (end[:2] - start[:2])
    yaw = start[2] + s * wrap_angle(end[2] - start[2])
    return np.array([x, y, lift(tau, height), yaw])


def swing_state(step: Any, time: float, height: float) -> np.ndarray:
    """(x, y, z, yaw) of a :class:`~ik_solvers.whole_body.footsteps.Footstep`'s sole at ``time``
    [s] (clipped to the swing), lifted at most ``height`` [m]; redirected ones as the module says."""
    if step.planned is None:
        return swing_pose(step.start, step.end, (time - step.lift) / (step.land - step.lift), height)
    planned = swing_state(step.planned, time, height)
    change = step.end - step.planned.end
    weight = minimum_jerk((time - step.since) / (step.land - step.since))
    return planned + weight * np.array([change[0], change[1], 0.0, wrap_angle(change[2])])


def redirect(step: Any, landing: np.ndarray, since: float) -> Any:
    """The swing ``step`` (a Footstep under way at ``since`` [s]) redirected to land at ``landing``
    (x, y, yaw) [m, rad] at its planned time: a Footstep with ``planned`` = ``step`` (the module
    docstring); ``step`` itself when ``landing`` is its own."""
    change = landing - step.end
    change[2] = wrap_angle(change[2])
    if np.allclose(change, 0.0, atol=1e-9):
        return step
    return replace(step, end=np.asarray(landing, dtype=float), planned=step, since=since)


def sole_matrix(x: float, y: float, z: float, yaw: float) -> np.ndarray:
    """(4, 4) level sole pose at (x, y, z) [m] heading ``yaw`` [rad]."""
    c, s = np.cos(yaw), np.sin(yaw)
    return np.array([[c, -s, 0.0, x], [s, c, 0.0, y], [0.0, 0.0, 1.0, z], [0.0, 0.0, 0.0, 1.0]])
