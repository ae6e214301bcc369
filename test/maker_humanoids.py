"""Humanoid descriptions written the way other makers write them, for the tests of ik_solvers.limbs.

Nothing here uses the packaged robot's names: the root is ``torso`` (or a ``base_footprint`` frame
on the floor, the ``pelvis`` fixed above it), joints are named ``LHipYaw``, ``RElbow``…,
the feet carry no sole frame, and their collision geometry is a box, an upright cylinder, four
contact spheres, one sphere, a mesh, or nothing. Arms have 3, 5 or 7 joints; a head (neck yaw,
head pitch) sits on the torso. The legs have the packaged humanoid's joint structure (hip yaw,
roll, pitch; knee; ankle pitch, roll) and sizes, so that the walk tuned on it fits them.

Run as a script to write ``test/descriptions/mesh_feet.urdf`` and its STL foot mesh.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from xml.dom import minidom

from humanoid_factory import box_inertial

DESCRIPTIONS = Path(__file__).resolve().parent / "descriptions"
FOOT_SIZE = (0.16, 0.08, 0.02)  # [m] the foot plate: length, width, thickness
FOOT_CENTRE = (0.02, 0.0, -0.03)  # [m] in the ankle-roll link frame: the sole plane is at z = -0.04
SOLE_Z = FOOT_CENTRE[2] - FOOT_SIZE[2] / 2
LEG_HEIGHT = 0.06 + 0.035 + 0.03 + 0.20 + 0.20 - SOLE_Z  # [m] torso origin over the soles, legs straight
AXES = {"x": "1 0 0", "y": "0 1 0", "z": "0 0 1"}


@dataclass(frozen=True)
class MakerSpec:
    """A maker's humanoid.

    Attributes:
        foot: "box", "cylinder" (upright, radius 4 cm), "spheres" (four of radius 1 cm under the
            plate's corners), "sphere" (one, a point foot), "mesh" (``mesh_file``) or "none".
        arm_joints: 3 (shoulder pitch, roll; elbow), 5 (+ shoulder yaw, wrist yaw) or 7 (SRS).
        root_on_floor: the root is a massless ``base_footprint`` on the floor under the pelvis.
        head: a neck yaw and head pitch chain on the torso.
        mesh_file: the foot mesh as the URDF names it (relative to the URDF file, or absolute).
        fingers: fingers on each hand, two pitch joints each (0: a rigid hand).
        toe: a toe pitch joint at the front of each foot plate (a 7th leg joint).
    """

    name: str = "maker"
    foot: str = "box"
    arm_joints: int = 7
    root_on_floor: bool = False
    head: bool = True
    mesh_file: str = "meshes/foot.stl"
    fingers: int = 0
    toe: bool = False


def _f(values) -> str:
    return " ".join(f"{v:.6g}" for v in values)


def _geometry(kind: str, size, mesh_file: str = "") -> str:
    if kind == "box":
        return f'<box size="{_f(size)}"/>'
    if kind == "cylinder":
        return f'<cylinder radius="{size[0]:.6g}" length="{size[1]:.6g}"/>'
    if kind == "sphere":
        return f'<sphere radius="{size[0]:.6g}"/>'
    return f'<mesh filename="{mesh_file}" scale="{_f(size)}"/>'


def _collision(kind: str, size, xyz, mesh_file: str = "") -> str:
    return f'<collision><origin xyz="{_f(xyz)}"/><geometry>{_geometry(kind, size, mesh_file)}</geometry></collision>'


def _link(name: str, mass: float, size, xyz=(0, 0, 0), collisions: str | None = None) -> str:
    if collisions is None:
        collisions = _collision("box", size, xyz)
    visual = f'<visual><origin xyz="{_f(xyz)}"/><geometry>{_geometry("box", size)}</geometry></visual>'
    return f'<link name="{name}">{box_inertial(mass, size, xyz)}{visual}{collisions}</link>'


def _joint(name, parent, child, xyz, axis=None, limits=(0.0, 0.0), servo=(10.6, 4.8)) -> str:
    body = f'<parent link="{parent}"/><child link="{child}"/><origin xyz="{_f(xyz)}"/>'
    if axis is None:
        return f'<joint name="{name}" type="fixed">{body}</joint>'
    limit = (
        f'<limit lower="{limits[0]:.6g}" upper="{limits[1]:.6g}" effort="{servo[0]}" velocity="{servo[1]}"/>'
    )
    return f'<joint name="{name}" type="revolute">{body}<axis xyz="{AXES[axis]}"/>{limit}</joint>'


def _mirrored(limits, axis: str, side: str) -> tuple[float, float]:
    return (-limits[1], -limits[0]) if side == "R" and axis in "xz" else limits


def _feet(spec: MakerSpec) -> str:
    x, y, _ = FOOT_CENTRE
    length, width, thickness = FOOT_SIZE
    if spec.foot == "box":
        return _collision("box", FOOT_SIZE, FOOT_CENTRE)
    if spec.foot == "cylinder":
        return _collision("cylinder", (0.04, thickness), FOOT_CENTRE)
    if spec.foot == "spheres":
        corners = [
            (x + sx * (length / 2 - 0.01), sy * (width / 2 - 0.01)) for sx in (-1, 1) for sy in (-1, 1)
        ]
        return "".join(_collision("sphere", (0.01,), (cx, cy, SOLE_Z + 0.01)) for cx, cy in corners)
    if spec.foot == "sphere":
        return _collision("sphere", (0.02,), (x, y, SOLE_Z + 0.02))
    if spec.foot == "mesh":
        return _collision("mesh", (1.0, 1.0, 1.0), FOOT_CENTRE, spec.mesh_file)
    return ""


def _leg(spec: MakerSpec, side: str, parent: str) -> list[str]:
    s = 1.0 if side == "L" else -1.0
    joints = [  # name, axis, origin, limits, child (mass, size, centre)
        ("HipYaw", "z", (0, s * 0.06, -0.06), (-1.0, 1.0), (0.15, (0.04, 0.04, 0.03), (0, 0, -0.015))),
        ("HipRoll", "x", (0, 0, -0.035), (-0.6, 0.9), (0.20, (0.05, 0.04, 0.04), (0, s * 0.01, -0.01))),
        ("HipPitch", "y", (0, s * 0.02, -0.03), (-1.9, 0.7), (0.45, (0.05, 0.05, 0.2), (0, 0, -0.1))),
        ("Knee", "y", (0, 0, -0.2), (0.0, 2.5), (0.35, (0.045, 0.045, 0.2), (0, 0, -0.1))),
        ("AnklePitch", "y", (0, 0, -0.2), (-1.3, 1.3), (0.10, (0.04, 0.04, 0.03), (0, 0, 0))),
        ("AnkleRoll", "x", (0, 0, 0), (-0.7, 0.7), (0.20, FOOT_SIZE, FOOT_CENTRE)),
    ]
    parts = []
    for index, (name, axis, xyz, limits, (mass, size, centre)) in enumerate(joints):
        child = f"{side}{name}Link" if index < 5 else f"{side.lower()}_foot"
        collisions = _feet(spec) if index == 5 else None
        parts.append(_link(child, mass, size, centre, collisions))
        parts.append(_joint(f"{side}{name}", parent, child, xyz, axis, _mirrored(limits, axis, side)))
        parent = child
    if spec.toe:
        toe = f"{side.lower()}_toe"
        x, _, z = FOOT_CENTRE
        front = (0.02, FOOT_SIZE[1], FOOT_SIZE[2])
        parts.append(_link(toe, 0.02, front, (0.01, 0, 0)))
        parts.append(_joint(f"{side}ToePitch", parent, toe, (x + FOOT_SIZE[0] / 2, 0, z), "y", (-0.5, 0.5)))
    return parts


ARM_JOINTS = {  # joint count → [(name, axis, origin)]: origins as offsets from the previous joint
    3: [("ShoulderPitch", "y", (0, 0, 0)), ("ShoulderRoll", "x", (0, 0, 0)), ("Elbow", "y", (0, 0, -0.15))],
    5: [
        ("ShoulderPitch", "y", (0, 0, 0)),
        ("ShoulderRoll", "x", (0, 0, 0)),
        ("ShoulderYaw", "z", (0, 0, 0)),
        ("Elbow", "y", (0, 0, -0.15)),
        ("WristYaw", "z", (0, 0, -0.14)),
    ],
}
ARM_JOINTS[7] = ARM_JOINTS[5] + [("WristPitch", "y", (0, 0, 0)), ("WristRoll", "x", (0, 0, 0))]  # SRS
ARM_LIMITS = {"x": (-0.4, 2.9), "y": (-3.0, 1.3), "z": (-2.0, 2.0)}


def _arm(spec: MakerSpec, side: str) -> list[str]:
    s = 1.0 if side == "L" else -1.0
    parts, parent = [], "torso"
    for index, (name, axis, xyz) in enumerate(ARM_JOINTS[spec.arm_joints]):
        xyz = (0, s * 0.13, 0.22) if index == 0 else xyz
        limits = (-2.6, 0.0) if name == "Elbow" else _mirrored(ARM_LIMITS[axis], axis, side)
        child = f"{side}{name}Link"
        size = (0.035, 0.035, 0.14) if name == "Elbow" else (0.03, 0.03, 0.03)
        centre = (0, 0, -0.07) if name == "Elbow" else (0, 0, 0)
        parts.append(_link(child, 0.2 if name == "Elbow" else 0.08, size, centre))
        parts.append(_joint(f"{side}{name}", parent, child, xyz, axis, limits, (4.1, 4.8)))
        parent = child
    hand = f"{side.lower()}_hand"
    parts.append(_link(hand, 0.08, (0.02, 0.06, 0.06), (0, 0, -0.03)))
    parts.append(_joint(f"{side}HandFixed", parent, hand, (0, 0, -0.14 if spec.arm_joints == 3 else 0.0)))
    for finger in range(spec.fingers):
        link, y = hand, (finger - (spec.fingers - 1) / 2) * 0.02
        for phalanx in range(2):
            child = f"{side}Finger{finger}_{phalanx}"
            parts.append(_link(child, 0.01, (0.01, 0.01, 0.025), (0, 0, -0.0125)))
            xyz = (0, y, -0.06) if phalanx == 0 else (0, 0, -0.025)
            parts.append(
                _joint(f"{side}Finger{finger}Joint{phalanx}", link, child, xyz, "y", (0.0, 1.5), (0.5, 6.0))
            )
            link = child
    return parts


def _head() -> list[str]:
    return [
        _link("NeckLink", 0.1, (0.03, 0.03, 0.05), (0, 0, 0.025)),
        _joint("HeadYaw", "torso", "NeckLink", (0, 0, 0.3), "z", (-2.0, 2.0), (1.5, 6.0)),
        _link("head", 0.4, (0.1, 0.1, 0.1), (0, 0, 0.06)),
        _joint("HeadPitch", "NeckLink", "head", (0, 0, 0.05), "y", (-0.6, 0.6), (1.5, 6.0)),
    ]


def maker_urdf(spec: MakerSpec | None = None) -> str:
    """URDF XML of ``spec``'s robot (see the module docstring)."""
    spec = spec or MakerSpec()
    parts = [f'<robot name="{spec.name}">', "<!-- exported by a maker's CAD plug-in -->"]
    if spec.root_on_floor:
        parts += ['<link name="base_footprint"/>', _link("pelvis", 0.6, (0.08, 0.16, 0.06))]
        parts.append(_joint("base_joint", "base_footprint", "pelvis", (0, 0, LEG_HEIGHT)))
        parts.append(_link("torso", 1.4, (0.10, 0.20, 0.26), (0, 0, 0.15)))
        parts.append(_joint("waist_fixed", "pelvis", "torso", (0, 0, 0)))
        hips = "pelvis"
    else:
        parts.append(_link("torso", 2.0, (0.10, 0.20, 0.30), (0, 0, 0.12)))
        hips = "torso"
    for side in ("L", "R"):
        parts += _leg(spec, side, hips) + _arm(spec, side)
    if spec.head:
        parts += _head()
    xml = "".join(parts + ["</robot>"])
    return '<?xml version="1.0"?>\n' + minidom.parseString(xml).documentElement.toprettyxml(indent="  ")


def write_mesh_feet(folder: Path = DESCRIPTIONS) -> Path:
    """Write ``mesh_feet.urdf`` and its foot mesh (an STL plate with a bevelled toe) into ``folder``."""
    import trimesh

    plate = trimesh.creation.box(extents=FOOT_SIZE)
    vertices = plate.vertices.copy()
    top_front = (vertices[:, 0] > 0) & (vertices[:, 2] > 0)
    vertices[top_front, 0] -= 0.02  # the toe is bevelled: the top face is shorter than the sole
    mesh = trimesh.Trimesh(vertices, plate.faces)
    (folder / "meshes").mkdir(parents=True, exist_ok=True)
    mesh.export(folder / "meshes" / "foot.stl")
    path = folder / "mesh_feet.urdf"
    path.write_text(maker_urdf(MakerSpec(name="mesh_feet", foot="mesh")))
    return path


if __name__ == "__main__":
    print(write_mesh_feet(Path(sys.argv[1]) if len(sys.argv) > 1 else DESCRIPTIONS))
