"""The leg's hip gimbal: hip roll at ±π/2, the pitch axes along the hip yaw axis (floats).

There the sole pose fixes the leg plane (normal to the yaw axis) and the roll, not the yaw: turning
the yaw by ψ turns the whole leg below the roll joint in its plane about the hip centre H, and the
pitch joints can take the turn back, a one-parameter family of solutions. The pitch axis' part
across the yaw axis, from which the closed form reads the yaw, is rounding there (~1e-16), so the
yaw it reads is arbitrary, and with it whether the pitch joints stay within their limits.

At the gimbal the yaw is chosen instead: the yaw nearest the preferred one (the seed's, else the
rest configuration's) among those where the yaw, the pitch joints and the knee's reach are all
within their limits. In the leg plane's coordinates (x, z) at yaw 0, with the pitch axis along
ε (= ±1) times the yaw axis, the yaw ψ turns the foot side (the ankle point a₀ from H, the pitch
sum γ₀) to a(ψ) = R(-εψ) a₀ and γ(ψ) = γ₀ - εψ, while the upper leg's axis point u stays. The
feasible yaws are bounded by the yaws where one of them meets a limit, each a root of
k_c cos ψ + k_s sin ψ + k_1 = 0:

- the knee's reach r (reach_min, reach_max): |a(ψ) - u| = r;
- the upper leg at its limit L: the knee point K = u + R(φ_L) l₁ is fixed, |a(ψ) - K| = |l₂|;
- the ankle at its limit L: in the foot's frame the knee point K = a₀ - R(γ₀ - s₅ L) l₂ is
  fixed and the hip side turns by εψ, |K - R(εψ) u| = |l₁|;
- the yaw's own limits.

So the nearest feasible yaw is the preferred one or one of these (at most 14): each is checked
(:func:`feasible`) and the nearest feasible one taken, in the order of :func:`candidates` (the
compiled kernel, :mod:`.kernels.leg_gimbal`, does the same in the same order).
"""

from __future__ import annotations

import math

from ik_solvers.solvers.geometric.vectors import SCALAR, cross, dot, rotate, wrap

ALIGNED = 1e-12  # [1] the pitch axis' part across the yaw axis at or below which the yaw is chosen
SLACK = 1e-10  # [rad] a candidate this near a limit counts as within it (the clip allows 1e-9)
REACH_SLACK = 1e-12  # [m] as leg.REACH_SLACK


def plane_frame(leg, roll: float, pitch_axis, foot_axis, relative) -> tuple[float, tuple, float]:
    """(ε, a₀ (x, z) [m], γ₀ [rad]) of the module docstring; ``relative``: the ankle point from H."""
    w2, c2, s2 = leg._w2, math.cos(roll), math.sin(roll)
    plane_x = rotate(w2, c2, s2, leg._w6)
    plane_z = cross(pitch_axis, plane_x)
    epsilon = 1.0 if dot(pitch_axis, leg._w1) >= 0.0 else -1.0
    ankle = (dot(relative, plane_x), dot(relative, plane_z))
    return epsilon, ankle, math.atan2(dot(foot_axis, plane_z), dot(foot_axis, plane_x))


def _roots(fixed, moving, length: float, epsilon: float) -> list[float]:
    """The yaws ψ in [-π, π] with |R(-εψ) moving - fixed| = length (plane points, [m])."""
    k_c = -2.0 * (fixed[0] * moving[0] + fixed[1] * moving[1])
    k_s = -2.0 * epsilon * (fixed[0] * moving[1] - fixed[1] * moving[0])
    k_1 = dot2(fixed) + dot2(moving) - length * length
    amplitude = math.hypot(k_c, k_s)
    if not (amplitude > 0.0 and abs(k_1) <= amplitude):
        return []
    spread, phase = math.acos(-k_1 / amplitude), math.atan2(k_s, k_c)
    return [_remainder(phase + spread), _remainder(phase - spread)]


def dot2(v) -> float:
    return v[0] * v[0] + v[1] * v[1]


def _remainder(angle: float) -> float:
    """``angle`` in [-2π, 2π] brought into [-π, π]."""
    if angle > math.pi:
        return angle - 2.0 * math.pi
    if angle < -math.pi:
        return angle + 2.0 * math.pi
    return angle


def candidates(leg, epsilon: float, ankle, pitch_sum: float, preferred: float) -> list[float]:
    """The preferred yaw, the yaw's limits, then the yaws where the reach, the upper leg or the
    ankle meets a limit [rad] (the module docstring)."""
    two = leg.two_link
    upper = leg._upper_point
    found = [preferred, leg._lower[0], leg._upper[0]]
    for reach in (two.reach_min, two.reach_max):
        found += _roots(upper, ankle, reach, epsilon)
    sign3, _, sign5 = leg._pitch_signs
    link1, link2 = two.link1, leg._link2
    for limit in (leg._lower[2], leg._upper[2]):
        c, s = math.cos(sign3 * limit), math.sin(sign3 * limit)
        knee = (upper[0] + link1[0] * c - link1[1] * s, upper[1] + link1[0] * s + link1[1] * c)
        found += _roots(knee, ankle, two.length2, epsilon)
    for limit in (leg._lower[4], leg._upper[4]):
        c, s = math.cos(pitch_sum - sign5 * limit), math.sin(pitch_sum - sign5 * limit)
        knee = (ankle[0] - link2[0] * c + link2[1] * s, ankle[1] - link2[0] * s - link2[1] * c)
        found += _roots(knee, upper, two.length1, -epsilon)
    return found


def feasible(leg, yaw: float, epsilon: float, ankle, pitch_sum: float, bend: float, references) -> bool:
    """Whether at ``yaw`` [rad] the yaw, upper leg and ankle are within their limits (wrapped near
    ``references`` as the limit check wraps them) and the ankle within the knee's reach."""
    c, s = math.cos(yaw), epsilon * math.sin(yaw)
    x, z = c * ankle[0] + s * ankle[1], c * ankle[1] - s * ankle[0]
    upper_point, two = leg._upper_point, leg.two_link
    upper, _, phi_upper, phi_knee, distance = two.solve(x - upper_point[0], z - upper_point[1], bend, SCALAR)
    if not two.reach_min - REACH_SLACK <= distance <= two.reach_max + REACH_SLACK:
        return False
    ankle_angle = leg._pitch_signs[2] * (pitch_sum - epsilon * yaw - phi_upper - phi_knee)
    return all(
        leg._lower[i] - SLACK <= wrap(angle, references[i], SCALAR) <= leg._upper[i] + SLACK
        for i, angle in ((0, yaw), (2, upper), (4, ankle_angle))
    )


def gimbal_yaw(leg, roll: float, pitch_axis, foot_axis, relative, bend: float, references, preferred: float):
    """The yaw [rad] at the gimbal: the feasible candidate nearest ``preferred`` (ties: the first),
    else ``preferred``.

    Args:
        leg: the :class:`~ik_solvers.solvers.geometric.leg.LegSolver` (its constants).
        roll: the hip roll [rad]. pitch_axis, foot_axis: unit 3-vectors (base frame).
        relative: the ankle point from the hip centre [m]. bend: the knee's bend (+1 / -1).
        references: per joint, the angle near which the limit check wraps [rad].
    """
    epsilon, ankle, pitch_sum = plane_frame(leg, roll, pitch_axis, foot_axis, relative)
    if feasible(leg, preferred, epsilon, ankle, pitch_sum, bend, references):
        return preferred
    best, nearest = preferred, math.inf
    for yaw in candidates(leg, epsilon, ankle, pitch_sum, preferred)[1:]:
        distance = abs(wrap(yaw, references[0], SCALAR) - preferred)
        if distance < nearest and feasible(leg, yaw, epsilon, ankle, pitch_sum, bend, references):
            best, nearest = yaw, distance
    return best
