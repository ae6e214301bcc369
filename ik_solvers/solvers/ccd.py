"""Cyclic coordinate descent (seed 003's CCD): one joint at a time, tip to base, each turned to its
best angle for the weighted position and orientation error.

One sweep uses a single FK pass: the Jacobian's columns give each revolute joint's world axis a
and a × (p − r), all a turn about that joint needs; after each turn the tip pose, the error and
the remaining columns are updated in closed form. Prismatic joints are left where they are.

For joint axis a, lever u = a × (p − r) and w = a × u, turning by θ moves the tip by
sinθ u + (1 − cosθ) w. With position error e and the rotation error R_e (target · actualᵀ),
the weighted cost wp|e'|² + wo(3 − tr R_e') is minimal at θ = atan2(P, Q), where
P = 2wp e·u + 2wo a·s (s: vector of R_e's skew part) and
Q = 2wp (|u|² − e·w) + wo (tr R_e − aᵀR_e a).
"""

from __future__ import annotations

import numpy as np

from ik_solvers.chain import Chain


def ccd_sweep(
    chain: Chain,
    q: np.ndarray,
    jacobian: np.ndarray,
    position_error: np.ndarray,
    relative: np.ndarray,
    weights: tuple[float, float],
) -> np.ndarray:
    """(K, n) joint step of one CCD sweep; the swept configuration stays within the limits.

    Args:
        chain: the chain (limits, joint types).
        q: (K, n) configurations.
        jacobian: (K, 6, n) geometric Jacobians at q, base frame.
        position_error: (K, 3) target minus tip position [m].
        relative: (K, 3, 3) rotation error, target rotation times the tip rotation transposed.
        weights: (wp, wo) weights of squared position [1/m²] and orientation terms.
    """
    position_weight, orientation_weight = weights
    levers = jacobian[:, :3, :].copy()  # (K, 3, n), updated as the tip moves
    axes = jacobian[:, 3:, :]
    error, relative = position_error.copy(), relative.copy()
    step = np.zeros_like(q)
    for i in range(chain.n - 1, -1, -1):
        if chain.prismatic[i]:
            continue
        axis, lever = axes[:, :, i], levers[:, :, i]
        turned = np.cross(axis, lever)  # w = a × u
        skew_part = 0.5 * (relative - relative.swapaxes(-1, -2))
        skew_vector = np.stack([skew_part[:, 2, 1], skew_part[:, 0, 2], skew_part[:, 1, 0]], axis=-1)
        along = np.einsum("ki,kij,kj->k", axis, relative, axis)
        p = 2 * position_weight * _dot(error, lever) + 2 * orientation_weight * _dot(axis, skew_vector)
        q_term = 2 * position_weight * (_dot(lever, lever) - _dot(error, turned)) + orientation_weight * (
            np.trace(relative, axis1=-2, axis2=-1) - along
        )
        angle = np.arctan2(p, q_term)
        if not chain.continuous[i]:
            angle = np.clip(q[:, i] + angle, chain.lower[i], chain.upper[i]) - q[:, i]
        step[:, i] = angle
        sin, one_minus_cos = np.sin(angle)[:, None], (1.0 - np.cos(angle))[:, None]
        moved = sin * lever + one_minus_cos * turned
        error -= moved
        levers += np.cross(axes, moved[:, :, None], axis=1)
        relative = relative @ _rotation(axis, sin, one_minus_cos).swapaxes(-1, -2)
    return step


def _dot(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.einsum("ki,ki->k", a, b)


def _rotation(axis: np.ndarray, sin: np.ndarray, one_minus_cos: np.ndarray) -> np.ndarray:
    """(K, 3, 3) rotations about unit axes (K, 3) by angles given as sin and 1 − cos (K, 1)."""
    x, y, z = axis[:, 0], axis[:, 1], axis[:, 2]
    zero = np.zeros_like(x)
    k = np.stack([zero, -z, y, z, zero, -x, -y, x, zero], axis=-1).reshape(-1, 3, 3)
    return np.eye(3) + sin[..., None] * k + one_minus_cos[..., None] * (k @ k)
