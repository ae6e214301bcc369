"""Servo armature chosen from the model so that the position servos integrate stably.

A position servo of stiffness ``kp`` [N m/rad] on a joint whose effective inertia is ``I``
[kg m^2] oscillates at ``omega = sqrt(kp / I)`` [rad/s]. MuJoCo's ``implicitfast`` integrator
treats the servo's damping implicitly but its stiffness explicitly, which stays stable and
accurate while ``omega * timestep`` is small. Light distal links driven by strong servos (a
28 kg humanoid with 100 N m servos: ``kp`` = 5000 N m/rad on a foot of 1e-3 kg m^2) break that
at a 2 ms step and the simulation blows up.

Real servos carry the reflected inertia of their rotor through the gearbox (``J_rotor * N^2``,
MuJoCo's joint ``armature``), 0.005-0.05 kg m^2 for hobby and small humanoid servos. Each joint
here gets the smallest armature that keeps ``omega * timestep <= OMEGA_DT``; joints that are
heavy enough get none. The effective inertia is ``1 / (M^-1)_ii`` at the model's rest
configuration: the inertia that joint ``i`` alone feels when every other degree of freedom
(the floating base included) is free, the smallest and therefore the most demanding one.

An ideal servo's stiffness follows from its URDF effort limit, and some descriptions carry
placeholders there (the ROBOTIS OP3's 1000 N m on a 3.1 kg robot): the stiffness is then absurd
(50 000 N m/rad), and so is the armature that keeps it stable (0.8 kg m^2 per joint, hundreds of
times the leg's own inertia: the OP3's stance foot turned 2.4 deg about the vertical in every left
step and slipped 9 mm). Legs that stiff also fight each other in double support over every
millimetre between where a foot landed and where the plan has it, and the feet slide (the OP3
with a ceiling of its whole weight times its whole size, 850 N m/rad: a third of a degree of turn
per step). No joint carries more than the robot's weight on a lever of half its size
(:func:`effort_ceiling`); an effort limit above that is taken as a placeholder and the ceiling
used instead (docs/simulation.md, "Placeholder effort limits").

The other way round, effort limits that are a real motor's torque can make servos too soft for the
robot's weight (Unitree's G1: 35 N m ankles for 35 kg; the H1-2: 40 N m ankle roll for 67 kg):
the stiffness ``effort / saturation_error`` of such an ankle is only 3-7 times the robot's gravity
moment ``m g z_c`` (mass, CoM height over the lowest point), the stance leg gives way and the
robot falls over the edge of its foot. The joints that carry it standing (those between the root
and the lowest bodies) can be given at least ``ratio * m g z_c`` (:func:`support_stiffness`).

Which robots need it (:func:`weak_support`): a joint of stiffness ``k`` under the robot's whole
gravity moment bends by ``m g z_c / k`` and its CoM moves ``z_c`` times that. Where an effort limit
is below ``WEAK_SUPPORT_EFFORT`` (0.16) times ``m g z_c``, ``k`` at the default 0.02 rad saturation
error is under 8 ``m g z_c``: a bend of 1/8 rad, the CoM 60-120 mm off for a CoM 0.5-1 m high,
more than the half width of any sole here (30-45 mm) and than the walk's ZMP margin (0.3 of the
sole's width), so no open-loop plan and no stabiliser correction (a few cm) keeps it over the
sole. The robots that walk are well above it: the packaged humanoid 0.32 (16 at 0.02 rad: its CoM
0.455 m high moves 28 mm), the factory variants 0.32-0.38, Wolfgang 0.39, the maker bot 0.61, the
OP3 0.99 (the NAO, which cannot stand, 0.19); the G1 is at 0.14, the H1-2 at 0.064. The
threshold is on the effort limit, not the stiffness, so a softer ``saturation_error`` chosen on
purpose is not overridden. Such a robot then gets ``WEAK_SUPPORT_STIFFNESS`` (40) ``m g z_c`` on
every support joint, measured, not derived: 40 walks the G1 and the H1-2 offline (a bend of
1/40 rad, the CoM 18 and 24 mm off), 10 and 20 do not, nor the ankles alone at 40 (their hips
give way too). Real position-controlled legs are set the same way, their gains from the load they
hold rather than from the motor's peak torque.
"""

from __future__ import annotations

import mujoco
import numpy as np

OMEGA_DT = 0.5  # largest servo natural frequency times timestep [rad]
SUPPORT_BAND = 0.01  # [m] geometry this close above the lowest point is on the floor standing
WEAK_SUPPORT_EFFORT = (
    0.16  # a support joint's effort limit below this times m g z_c: too weak (module docstring)
)
WEAK_SUPPORT_STIFFNESS = 40.0  # [1/rad] then every support servo gets at least this times m g z_c


def effort_ceiling(model: mujoco.MjModel, data: mujoco.MjData) -> float:
    """[N m] the robot's weight times half its size (the diagonal of the box around its bodies'
    origins at ``data``'s configuration): more than any of its joints carries standing or walking;
    infinite for a robot without weight or size (no ceiling then).

    Effort limits above this are placeholders (module docstring).
    """
    mujoco.mj_forward(model, data)
    origins = data.xpos[1:]  # body 0 is the world
    size = float(np.linalg.norm(origins.max(axis=0) - origins.min(axis=0)))
    ceiling = float(np.sum(model.body_mass)) * float(np.linalg.norm(model.opt.gravity)) * 0.5 * size
    return ceiling if ceiling > 0.0 else float("inf")


def geom_bottoms(model: mujoco.MjModel, data: mujoco.MjData) -> np.ndarray:
    """(ngeom,) lowest world z [m] of each geom's bounding box corners at ``data``'s configuration
    (as of its last forward pass)."""
    up = data.geom_xmat.reshape(-1, 3, 3)[:, 2, :]  # world z of each geom's axes
    centres = data.geom_xpos[:, 2] + np.sum(up * model.geom_aabb[:, :3], axis=1)
    return centres - np.sum(np.abs(up) * model.geom_aabb[:, 3:], axis=1)


def support_stiffness(model: mujoco.MjModel, data: mujoco.MjData, ratio: float) -> dict[str, float]:
    """Least stiffness [N m/rad] of the joints that carry the robot standing, by joint name.

    ``ratio * m * g * z_c``: m the robot's mass, z_c the height of its centre of mass over its
    lowest geometry at ``data``'s configuration; the joints are those between the root and the
    bodies whose geometry lies within ``SUPPORT_BAND`` of that lowest point (the feet). Empty
    for ``ratio`` 0 or a robot without geometry.
    """
    mujoco.mj_forward(model, data)
    robot = model.geom_bodyid > 0  # the world's geoms (the floor) are not the robot's
    if ratio <= 0.0 or not np.any(robot):
        return {}
    bottoms = geom_bottoms(model, data)[robot]
    lowest = float(bottoms.min())
    height = float(data.subtree_com[0][2]) - lowest
    floor = ratio * float(np.sum(model.body_mass)) * float(np.linalg.norm(model.opt.gravity)) * height
    joints: dict[str, float] = {}
    for body in set(model.geom_bodyid[robot][bottoms < lowest + SUPPORT_BAND].tolist()):
        while body > 0:
            for joint in range(model.body_jntadr[body], model.body_jntadr[body] + model.body_jntnum[body]):
                joints[model.joint(joint).name] = floor
            body = int(model.body_parentid[body])
    return joints


def weak_support(efforts: dict[str, float], gravity: dict[str, float], ratio: float) -> bool:
    """Whether a motor carrying the robot is too weak for its weight: some joint's effort limit
    [N m] in ``efforts`` below ``ratio`` times its ``gravity`` moment ``m g z_c`` [N m] (both by
    joint name; see :func:`support_stiffness`). Never for ``ratio`` 0."""
    return any(effort < ratio * gravity[name] for name, effort in efforts.items())


def effective_inertias(model: mujoco.MjModel, data: mujoco.MjData, dofs: np.ndarray) -> np.ndarray:
    """(n,) effective inertia [kg m^2] of each dof in ``dofs`` at ``data``'s configuration.

    ``1 / (M^-1)_ii`` of the joint-space inertia matrix M (armature included).
    """
    mujoco.mj_forward(model, data)
    inertia = np.zeros((model.nv, model.nv))
    mujoco.mj_fullM(model, data, inertia)
    return 1.0 / np.diag(np.linalg.inv(inertia))[dofs]


def stabilising_armature(
    stiffness: np.ndarray, inertia: np.ndarray, timestep: float, omega_dt: float = OMEGA_DT
) -> np.ndarray:
    """(n,) armature [kg m^2] that brings ``sqrt(kp / (I + a)) * timestep`` down to ``omega_dt``.

    Args:
        stiffness: (n,) servo stiffness kp [N m/rad].
        inertia: (n,) effective joint inertia [kg m^2] without added armature.
        timestep: physics step [s].
        omega_dt: the largest allowed ``omega * timestep`` [rad].
    """
    needed = stiffness * (timestep / omega_dt) ** 2
    return np.maximum(needed - inertia, 0.0)
