"""Simulation of a URDF robot in MuJoCo (no ROS here).

Importing this package selects MuJoCo's headless EGL backend for offscreen rendering when the
EGL library is present and ``MUJOCO_GL`` is not set (MuJoCo reads it when first imported), and
sends MuJoCo's warnings to Python logging instead of a ``MUJOCO_LOG.TXT`` in the working
directory (:mod:`ik_solvers.sim.mujoco_log`).
"""

import ctypes.util
import os

if "MUJOCO_GL" not in os.environ and ctypes.util.find_library("EGL"):
    os.environ["MUJOCO_GL"] = "egl"

from ik_solvers.sim.mujoco_log import route_mujoco_warnings  # after MUJOCO_GL is set

route_mujoco_warnings()
