"""Divergent component of motion (capture point) of the linear inverted pendulum, and where to step.

For a CoM c at height z_c with velocity ċ and the ZMP p (horizontal, world frame):

    ω = √(g / z_c),   ξ = c + ċ / ω,   ξ̇ = ω (ξ − p)

(J. Pratt, J. Carff, S. Drakunov, A. Goswami, "Capture point: a step toward humanoid push
recovery", IEEE-RAS Humanoids 2006; J. Englsberger, C. Ott, A. Albu-Schäffer, "Three-dimensional
bipedal walking control based on divergent component of motion", IEEE Transactions on Robotics
31(2), 2015). ξ runs away from the ZMP; with p held it is ξ(t) = p + (ξ(0) − p) e^{ωt}.

A DCM error e = ξ − ξ_ref that the ZMP can meet inside the support polygon can be stopped there;
the rest grows as e^{ωt} and is what the next footstep must take by the end of the swing (the
step adjustment of M. Khadiv,
A. Herzog, S. A. A. Moosavian, L. Righetti, "Step timing adjustment: a step toward generating
robust gaits", IEEE-RAS Humanoids 2016, in its closed form for a fixed step time: the landing
moves with the DCM it will meet, so that the DCM's offset from the new stance is the planned one).
Units: m, s.
"""

from __future__ import annotations

import math

import numpy as np

GRAVITY = 9.81  # [m/s²]


def natural_frequency(com_height: float) -> float:
    """ω = √(g / z_c) [1/s] for a CoM height z_c [m] > 0."""
    if not com_height > 0.0:
        raise ValueError(f"the CoM height must be > 0 m for the pendulum's frequency, got {com_height}")
    return math.sqrt(GRAVITY / com_height)


def dcm(com: np.ndarray, velocity: np.ndarray, omega: float) -> np.ndarray:
    """ξ = c + ċ / ω: (2,) [m] of the CoM (2,) [m] and its velocity (2,) [m/s]."""
    return np.asarray(com, dtype=float)[:2] + np.asarray(velocity, dtype=float)[:2] / omega


def dcm_after(xi: np.ndarray, zmp: np.ndarray, omega: float, seconds: float) -> np.ndarray:
    """ξ after ``seconds`` [s] with the ZMP held at ``zmp`` (2,) [m]."""
    return zmp + (xi - zmp) * math.exp(omega * max(seconds, 0.0))


def landing_offset(error: np.ndarray, absorbed: np.ndarray, omega: float, remaining: float) -> np.ndarray:
    """How far (2,) [m] the swing's landing moves: the part of the DCM error (2,) [m] that the
    ZMP cannot take within the support (``absorbed`` (2,) [m], its largest shift towards the
    error), grown over the ``remaining`` [s] of the swing: (e − δp) e^{ωT}."""
    return (np.asarray(error, dtype=float) - absorbed) * math.exp(omega * max(remaining, 0.0))


def clip_to_polygon(points: np.ndarray, polygon: np.ndarray, margin: float = 0.0) -> np.ndarray:
    """Each point (2,) or row of (m, 2) [m] itself when it lies at least ``margin`` [m] inside the
    convex polygon (k, 2) (counter-clockwise corners), else moved onto the violated edges shrunk
    by the margin (projections onto the most violated half-plane, a few times: exact for the
    rectangles and hulls of rectangles here); a polygon narrower than twice the margin gives
    its centroid."""
    return clip_to_half_planes(points, *half_planes(polygon, margin))


def half_planes(polygon: np.ndarray, margin: float = 0.0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The convex polygon (k, 2) (counter-clockwise corners) [m] shrunk by ``margin`` [m] as
    half-planes n·x <= offset: (outward unit normals (k, 2), offsets (k,) [m], its centroid (2,))."""
    polygon = np.asarray(polygon, dtype=float)
    edges = np.concatenate([polygon[1:], polygon[:1]]) - polygon
    normals = np.stack([edges[:, 1], -edges[:, 0]], axis=1) / np.hypot(edges[:, 0], edges[:, 1])[:, None]
    offsets = (normals * polygon).sum(axis=1) - margin
    return normals, offsets, polygon.mean(axis=0)


def clip_to_half_planes(
    points: np.ndarray, normals: np.ndarray, offsets: np.ndarray, centre: np.ndarray
) -> np.ndarray:
    """:func:`clip_to_polygon` with the polygon given by :func:`half_planes` (computed once for
    many calls)."""
    points = np.array(points, dtype=float)
    flat = points.reshape(-1, 2)
    rows = np.arange(len(flat))
    for _ in range(4):
        violation = flat @ normals.T - offsets
        worst = violation.argmax(axis=1)
        amount = violation[rows, worst]
        if amount.max() <= 1e-12:
            return flat.reshape(points.shape)
        flat -= np.maximum(amount, 0.0)[:, None] * normals[worst]
    outside = (flat @ normals.T - offsets > 1e-9).any(axis=1)
    flat[outside] = centre
    return flat.reshape(points.shape)


def convex_hull(points: np.ndarray) -> np.ndarray:
    """(k, 2) counter-clockwise hull of points (m, 2) (A. M. Andrew's monotone chain, 1979)."""
    ordered = sorted(map(tuple, np.asarray(points, dtype=float)))

    def half(sequence) -> list:
        chain: list = []
        for p in sequence:
            while len(chain) >= 2 and _cross(chain[-2], chain[-1], p) <= 0.0:
                chain.pop()
            chain.append(p)
        return chain

    lower, upper = half(ordered), half(reversed(ordered))
    return np.array(lower[:-1] + upper[:-1])


def _cross(o, a, b) -> float:
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])
