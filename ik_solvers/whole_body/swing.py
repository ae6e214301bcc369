"""Swing-foot trajectory: lift, travel, land flat, with zero velocity and acceleration at both ends.

Horizontal position and yaw follow the minimum-jerk profile s(τ) = 10τ³ − 15τ⁴ + 6τ⁵ (Flash and
Hogan, "The coordination of arm movements", J. Neuroscience 1985); the lift follows
z(τ) = h · 64 τ³ (1 − τ)³, which peaks at h for τ = 1/2. The sole stays level (roll = pitch = 0)
all the way, so it leaves and meets the ground flat; τ ∈ [0, 1] is the swing's time fraction.
"""

from __future__ import annotations

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


def sole_matrix(x: float, y: float, z: float, yaw: float) -> np.ndarray:
    """(4, 4) level sole pose at (x, y, z) [m] heading ``yaw`` [rad]."""
    c, s = np.cos(yaw), np.sin(yaw)
    return np.array([[c, -s, 0.0, x], [s, c, 0.0, y], [0.0, 0.0, 1.0, z], [0.0, 0.0, 0.0, 1.0]])
