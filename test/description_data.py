"""Paths of the robot descriptions in test/descriptions/ (see the README of each)."""

from __future__ import annotations

from pathlib import Path
from xml.etree import ElementTree

DESCRIPTIONS = Path(__file__).resolve().parent / "descriptions"
OP3 = DESCRIPTIONS / "op3_description"
OP3_XACRO = OP3 / "urdf" / "robotis_op3.urdf.xacro"
MAKER_BOT = DESCRIPTIONS / "maker_bot_description"
MAKER_BOT_XACRO = MAKER_BOT / "urdf" / "maker_bot.urdf.xacro"
MAKER_BOT_MUJOCO = MAKER_BOT / "urdf" / "maker_bot_mujoco.urdf"
WOLFGANG = DESCRIPTIONS / "wolfgang_description" / "urdf" / "robot.urdf"
NAO = DESCRIPTIONS / "nao_description" / "urdf" / "nao.urdf"
UNITREE_H1_2 = DESCRIPTIONS / "unitree_h1_2" / "h1_2_handless.urdf"
OP3_JOINTS = 20  # actuated: 6 per leg, 3 per arm, 2 in the neck
OP3_LEFT_LEG = ("l_hip_yaw", "l_hip_roll", "l_hip_pitch", "l_knee", "l_ank_pitch", "l_ank_roll")


def without_geometry(urdf: str) -> str:
    """``urdf`` with every link's ``<visual>`` and ``<collision>`` taken out (most of the OP3's
    meshes are not in the test data: see descriptions/op3_description/README.md)."""
    robot = ElementTree.fromstring(urdf)
    for link in robot.findall("link"):
        for element in link.findall("visual") + link.findall("collision"):
            link.remove(element)
    return ElementTree.tostring(robot, encoding="unicode")


def op3_with_the_meshes_we_have() -> str:
    """The expanded OP3 URDF, its meshes as absolute ``file://`` URIs, the collisions of the meshes
    absent from the test data (all but the feet) left out, as ``ik_demo --drop-missing-meshes``
    does; visuals are dropped by the simulator anyway."""
    from ik_solvers.description import load_description
    from ik_solvers.sim.mujoco_urdf import without_missing_meshes

    return without_missing_meshes(load_description(OP3_XACRO)).self_contained()
