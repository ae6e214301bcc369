"""MuJoCo's warnings go to Python logging instead of a ``MUJOCO_LOG.TXT`` in the working directory.

Without a handler of its own, MuJoCo appends each warning (e.g. "Nan, Inf or huge value in
QACC", the bad-acceleration reset whose counter :mod:`ik_solvers.sim.stability` reads) to
``MUJOCO_LOG.TXT`` in the process's current directory and prints it: a test or a demo started
from the repository root left that file there. :func:`route_mujoco_warnings` installs a
process-wide handler that logs them on the ``mujoco`` logger at WARNING level (on stderr when
nothing else configures logging). MuJoCo's errors already raise ``mujoco.FatalError`` in Python.
"""

from __future__ import annotations

import logging

import mujoco

LOGGER = logging.getLogger("mujoco")


def _log_warning(message: str) -> None:
    LOGGER.warning("MuJoCo: %s", message)


def route_mujoco_warnings() -> None:
    """From now on, this process's MuJoCo warnings are logged on the ``mujoco`` logger, not
    written to a file (``mujoco.set_mju_user_warning``; calling it again changes nothing)."""
    mujoco.set_mju_user_warning(_log_warning)
