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
"""

from __future__ import annotations

import mujoco
import numpy as np

OMEGA_DT = 0.5  # largest servo natural frequency times timestep [rad]


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
