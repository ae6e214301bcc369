"""URDF ``<mimic>`` joints in MuJoCo: tied to the joint they follow, not servoed.

A mimic joint (a NAO's finger following its hand joint, a gripper's second jaw) moves as
``q = multiplier · q_followed + offset`` [rad or m]; the URDF often gives it no ``<limit>`` (no
effort limit), as nothing drives it. MuJoCo's URDF import drops ``<mimic>``; here each becomes a
joint equality constraint (polynomial coefficients ``offset, multiplier``), so the joint moves with
the one it follows and gets no servo of its own.
"""

from __future__ import annotations

from xml.etree import ElementTree

import mujoco


def tie_mimic_joints(spec: mujoco.MjSpec, robot: ElementTree.Element) -> set[str]:
    """Add an equality constraint to ``spec`` for each ``<mimic>`` joint of the URDF ``robot``
    whose joint and followed joint are both in the simulated model; return their names."""
    tied = set()
    for joint in robot.findall("joint"):
        mimic = joint.find("mimic")
        if mimic is None:
            continue
        name, followed = joint.get("name"), mimic.get("joint")
        if spec.joint(name) is None or spec.joint(followed) is None:
            continue
        equality = spec.add_equality()
        equality.type, equality.objtype = mujoco.mjtEq.mjEQ_JOINT, mujoco.mjtObj.mjOBJ_JOINT
        equality.name1, equality.name2 = name, followed
        equality.data[:2] = (float(mimic.get("offset", "0")), float(mimic.get("multiplier", "1")))
        tied.add(name)
    return tied
