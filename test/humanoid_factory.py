"""Parametric humanoid URDFs for tests: the packaged robot's structure with other dimensions.

The solvers must work unchanged on any robot with the packaged humanoid's joint structure, so the
tests build variants here: other link lengths, another lateral hip offset W, other shoulder and
wrist axis orders, tighter limits. Everything is in metres, radians, kg; REP-103 axes.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from xml.dom import minidom

import numpy as np

AXES = {"x": (1.0, 0.0, 0.0), "y": (0.0, 1.0, 0.0), "z": (0.0, 0.0, 1.0)}
ROLE = {"x": "roll", "y": "pitch", "z": "yaw"}


@dataclass(frozen=True)
class LegDims:
    """Left-leg dimensions [m]; the right leg is the mirror image in the x-z plane."""

    hip_y: float = 0.06  # hip yaw axis from the torso centre, lateral
    hip_z: float = -0.06  # hip yaw axis below the torso origin
    root_z: float = -0.035  # LegRoot roll axis below the hip yaw axis
    hip_gap: float = 0.0  # LegRoot roll axis beside the hip yaw axis (they miss each other by this)
    w: float = 0.02  # lateral offset W from LegRoot to the UpperLeg..Foot line (seed 001)
    upper_z: float = -0.03  # UpperLeg pitch axis below the LegRoot axis
    thigh: float = 0.20  # UpperLeg -> Knee
    shank: float = 0.20  # Knee -> Ankle
    foot_z: float = 0.0  # Foot roll axis below the Ankle pitch axis
    sole_z: float = -0.04  # sole plane below the Foot roll axis (shoe height H)


@dataclass(frozen=True)
class ArmDims:
    """Left-arm dimensions [m] and joint axis orders; the right arm is the mirror image."""

    shoulder_y: float = 0.13
    shoulder_z: float = 0.22
    upper_arm: float = 0.15  # shoulder centre -> elbow
    forearm: float = 0.14  # elbow -> wrist centre
    hand: float = 0.06  # wrist centre -> hand tool point
    shoulder_axes: str = "yxz"  # pitch, roll, yaw: consecutive axes orthogonal, all intersecting
    elbow_axis: str = "y"
    wrist_axes: str = "zyx"
    upper_arm_direction: tuple[float, float, float] = (0.0, 0.0, -1.0)  # shoulder -> elbow at q = 0
    forearm_direction: tuple[float, float, float] = (0.0, 0.0, -1.0)  # elbow -> wrist at q = 0
    tool_offset: tuple[float, float, float] | None = None  # wrist -> hand [m]; None: (0, 0, -hand)
    tool_rpy: tuple[float, float, float] = (0.0, 0.0, 0.0)  # hand frame in the wrist frame [rad]


# Left-side limits (lower, upper) [rad]; right side mirrors roll (x) and yaw (z) joints.
LEG_LIMITS = {
    "hip_joint": (-1.0, 1.0),
    "leg_root": (-0.6, 0.9),
    "upper_leg": (-1.9, 0.7),
    "knee": (0.0, 2.5),
    "ankle": (-1.3, 1.3),
    "foot": (-0.7, 0.7),
}
ARM_LIMIT_BY_AXIS = {"x": (-0.4, 2.9), "y": (-3.0, 1.3), "z": (-2.0, 2.0)}
ELBOW_LIMITS = (-2.6, 0.0)
WRIST_LIMIT_BY_AXIS = {"x": (-1.0, 1.0), "y": (-1.3, 1.3), "z": (-2.2, 2.2)}


@dataclass(frozen=True)
class HumanoidSpec:
    """A whole robot: dimensions, a scale on all limits (tighter < 1), servo ratings."""

    leg: LegDims = field(default_factory=LegDims)
    arm: ArmDims = field(default_factory=ArmDims)
    limit_scale: float = 1.0
    leg_limits: dict[str, tuple[float, float]] | None = None  # left-side leg limits [rad]; None: LEG_LIMITS
    leg_servo: tuple[float, float] = (10.6, 4.8)  # effort [N m], velocity [rad/s]
    arm_servo: tuple[float, float] = (4.1, 4.8)
    wrist_servo: tuple[float, float] = (1.5, 6.0)
    name: str = "humanoid"
    torso_mass: float = 2.0  # [kg] base_link
    mass_scale: float = 1.0  # on every other link's mass (legs, arms, head)

    def scaled(self, **changes: object) -> HumanoidSpec:
        """Return a copy with fields replaced (e.g. ``leg=LegDims(w=0.03)``)."""
        return replace(self, **changes)


def _fmt(values: tuple[float, ...] | np.ndarray) -> str:
    return " ".join(f"{v + 0.0:.6g}" for v in values)  # + 0.0: "0", never "-0"


def box_inertial(mass: float, size: tuple[float, float, float], xyz=(0.0, 0.0, 0.0)) -> str:
    """Inertial block of a solid box: always positive definite and triangle-consistent."""
    sx, sy, sz = size
    ixx = mass * (sy**2 + sz**2) / 12.0
    iyy = mass * (sx**2 + sz**2) / 12.0
    izz = mass * (sx**2 + sy**2) / 12.0
    return (
        f'<inertial><origin xyz="{_fmt(xyz)}" rpy="0 0 0"/><mass value="{mass:.6g}"/>'
        f'<inertia ixx="{ixx:.6g}" ixy="0" ixz="0" iyy="{iyy:.6g}" iyz="0" izz="{izz:.6g}"/>'
        "</inertial>"
    )


def _link(name: str, mass: float, size: tuple[float, float, float], xyz=(0.0, 0.0, 0.0), scale=1.0) -> str:
    mass *= scale
    geometry = f'<geometry><box size="{_fmt(size)}"/></geometry>'
    origin = f'<origin xyz="{_fmt(xyz)}" rpy="0 0 0"/>'
    return (
        f'<link name="{name}">{box_inertial(mass, size, xyz)}'
        f'<visual>{origin}{geometry}<material name="grey"/></visual>'
        f"<collision>{origin}{geometry}</collision></link>"
    )


def _frame(name: str) -> str:
    return f'<link name="{name}"/>'


def _joint(name, kind, parent, child, xyz, axis=None, limits=None, servo=None, rpy=(0, 0, 0)) -> str:
    body = f'<parent link="{parent}"/><child link="{child}"/><origin xyz="{_fmt(xyz)}" rpy="{_fmt(rpy)}"/>'
    if kind != "fixed":
        effort, velocity = servo
        lower, upper = limits
        body += (
            f'<axis xyz="{_fmt(AXES[axis])}"/>'
            f'<limit lower="{lower:.6g}" upper="{upper:.6g}" effort="{effort:.6g}" velocity="{velocity:.6g}"/>'
            '<dynamics damping="0.1" friction="0.0"/>'
        )
    return f'<joint name="{name}" type="{kind}">{body}</joint>'


def _mirror(limits: tuple[float, float], axis: str, side: str, scale: float) -> tuple[float, float]:
    lower, upper = limits[0] * scale, limits[1] * scale
    if side == "r" and axis in ("x", "z"):
        lower, upper = -upper, -lower
    return lower, upper


def _leg(spec: HumanoidSpec, side: str) -> list[str]:
    d, s = spec.leg, 1.0 if side == "l" else -1.0
    p = f"{side}_"
    joints = [  # name, axis, origin in parent, child link box (mass, size, centre)
        ("hip_joint", "z", (0, s * d.hip_y, d.hip_z), (0.15, (0.04, 0.04, 0.03), (0, 0, -0.015))),
        ("leg_root", "x", (0, s * d.hip_gap, d.root_z), (0.20, (0.05, 0.04, 0.04), (0, s * d.w / 2, -0.01))),
        ("upper_leg", "y", (0, s * d.w, d.upper_z), (0.45, (0.05, 0.05, d.thigh), (0, 0, -d.thigh / 2))),
        ("knee", "y", (0, 0, -d.thigh), (0.35, (0.045, 0.045, d.shank), (0, 0, -d.shank / 2))),
        ("ankle", "y", (0, 0, -d.shank), (0.10, (0.04, 0.04, 0.03), (0, 0, 0))),
        ("foot", "x", (0, 0, d.foot_z), (0.20, (0.16, 0.08, 0.02), (0.02, 0, d.sole_z + 0.01))),
    ]
    parts, parent = [], "base_link"
    for name, axis, xyz, (mass, size, centre) in joints:
        child = f"{p}{name}_link"
        limits = _mirror((spec.leg_limits or LEG_LIMITS)[name], axis, side, spec.limit_scale)
        parts.append(_link(child, mass, size, centre, spec.mass_scale))
        parts.append(_joint(p + name, "revolute", parent, child, xyz, axis, limits, spec.leg_servo))
        parent = child
    parts.append(_frame(f"{p}sole"))
    parts.append(_joint(f"{p}sole_fixed", "fixed", parent, f"{p}sole", (0, 0, d.sole_z)))
    return parts


def _numbered(names: list[str]) -> list[str]:
    """Names made unique for Euler-like axis orders (e.g. "zxz": wrist_yaw, wrist_roll, wrist_yaw2)."""
    return [
        name if name not in names[:i] else f"{name}{names[:i].count(name) + 1}"
        for i, name in enumerate(names)
    ]


def _arm(spec: HumanoidSpec, side: str) -> list[str]:
    a, s = spec.arm, 1.0 if side == "l" else -1.0
    p = f"{side}_"
    axes = list(a.shoulder_axes) + [a.elbow_axis] + list(a.wrist_axes)
    names = _numbered([f"shoulder_{ROLE[x]}" for x in a.shoulder_axes]) + ["elbow"]
    names += _numbered([f"wrist_{ROLE[x]}" for x in a.wrist_axes])
    upper = np.asarray(a.upper_arm_direction, dtype=float) * (
        a.upper_arm / np.linalg.norm(a.upper_arm_direction)
    )
    fore = np.asarray(a.forearm_direction, dtype=float) * (a.forearm / np.linalg.norm(a.forearm_direction))
    origins = [
        (0, s * a.shoulder_y, a.shoulder_z),
        (0, 0, 0),
        (0, 0, 0),
        (upper[0], s * upper[1], upper[2]),
        (fore[0], s * fore[1], fore[2]),
        (0, 0, 0),
        (0, 0, 0),
    ]
    small = (0.05, (0.03, 0.03, 0.03), (0, 0, 0))
    bodies = [
        small,
        small,
        (0.25, (0.04, 0.04, a.upper_arm), (0, 0, -a.upper_arm / 2)),
        (0.2, (0.035, 0.035, a.forearm), (0, 0, -a.forearm / 2)),
        small,
        small,
        (0.08, (0.02, 0.06, a.hand), (0, 0, -a.hand / 2)),
    ]
    parts, parent = [], "base_link"
    for i, (name, axis, xyz, (mass, size, centre)) in enumerate(zip(names, axes, origins, bodies)):
        child = f"{p}{name}_link"
        table = ARM_LIMIT_BY_AXIS if i < 3 else WRIST_LIMIT_BY_AXIS
        limits = ELBOW_LIMITS if name == "elbow" else table[axis]
        limits = _mirror(limits, axis, side, spec.limit_scale)
        servo = spec.wrist_servo if i > 3 else spec.arm_servo
        parts.append(_link(child, mass, size, centre, spec.mass_scale))
        parts.append(_joint(p + name, "revolute", parent, child, xyz, axis, limits, servo))
        parent = child
    parts.append(_frame(f"{p}wrist"))
    parts.append(_joint(f"{p}wrist_fixed", "fixed", parent, f"{p}wrist", (0, 0, 0)))
    parts.append(_frame(f"{p}hand"))
    tool = (0.0, 0.0, -a.hand) if a.tool_offset is None else a.tool_offset
    tool = (tool[0], s * tool[1], tool[2])
    rpy = (s * a.tool_rpy[0], a.tool_rpy[1], s * a.tool_rpy[2])
    parts.append(_joint(f"{p}hand_fixed", "fixed", f"{p}wrist", f"{p}hand", tool, rpy=rpy))
    return parts


def humanoid_urdf(spec: HumanoidSpec | None = None) -> str:
    """URDF XML of a humanoid with the packaged robot's joint structure and ``spec``'s sizes."""
    spec = spec or HumanoidSpec()
    parts = [
        '<?xml version="1.0"?>\n',
        f'<robot name="{spec.name}">',
        '<material name="grey"><color rgba="0.6 0.6 0.65 1"/></material>',
        _link("base_link", spec.torso_mass, (0.10, 0.20, 0.30), (0, 0, 0.12)),
        _link("head", 0.4, (0.10, 0.10, 0.10), (0, 0, 0), spec.mass_scale),
        _joint("head_fixed", "fixed", "base_link", "head", (0, 0, 0.33)),
    ]
    for side in ("l", "r"):
        parts += _leg(spec, side) + _arm(spec, side)
    xml = "".join(parts[1:] + ["</robot>"])
    return parts[0] + minidom.parseString(xml).documentElement.toprettyxml(indent="  ")
