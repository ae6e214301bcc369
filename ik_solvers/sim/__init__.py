"""Simulation of a URDF robot in MuJoCo (no ROS here).

Importing this package selects MuJoCo's headless EGL backend for offscreen rendering when the
EGL library is present and ``MUJOCO_GL`` is not set (MuJoCo reads it when first imported).
"""

import ctypes.util
import os

if "MUJOCO_GL" not in os.environ and ctypes.util.find_library("EGL"):
    os.environ["MUJOCO_GL"] = "egl"
