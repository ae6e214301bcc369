"""The console scripts' entry points (setup.py): each takes SIGINT and SIGTERM over before it
imports its program, so that a stop during the imports ends the process quietly, exit code 0, as a
ROS 2 node stopped at any time does.

Importing a node's module (rclpy, numba, scipy, MuJoCo, the messages) takes about a second on a
quiet 2-core machine and 4 s and more at load 8; the node's own signal handling
(:mod:`ik_solvers.node.stop_signals`) starts only after that. A Ctrl-C in that window, e.g. launch
stopping its processes right after it started them, ended the process with Python's
``KeyboardInterrupt`` traceback and exit code -2 (SIGTERM: killed, -15), which launch reports as a
node that did not finish cleanly. Here the first signal during the imports ends the process at
once (:func:`os._exit` after flushing stdout and stderr): nothing has started yet (no ROS context,
no bus opened, no child process), so there is nothing to stop; a kernel compile cut short is
rebuilt at the next start (:mod:`ik_solvers.compiled.cache`). Once the program's module is
imported, the signals' previous handlers are put back and its ``main`` runs as it would without
this module (the nodes install their own handling first thing).

This module imports only the standard library, and ``ik_solvers/__init__.py`` imports its public
API lazily: the handlers are in place before the first heavy import. What is left unguarded is the
interpreter's own start-up (and the ROS wheels' re-execution of it), about 0.1 s.
"""

from __future__ import annotations

import importlib
import os
import signal
import sys
from collections.abc import Callable
from functools import partial

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
STOPPED_EXIT_CODE = 0  # what a ROS 2 node stopped by SIGINT or SIGTERM returns


def start(module: str) -> int:
    """Import ``module`` with a stop signal ending the process quietly meanwhile, then return its
    ``main()`` (the program's exit code)."""
    previous = {stop: signal.signal(stop, _stop_during_imports) for stop in STOP_SIGNALS}
    main: Callable[[], int] = importlib.import_module(module).main
    for stop, handler in previous.items():
        signal.signal(stop, handler)
    return main()


def _stop_during_imports(signum: int, frame) -> None:
    """End the process now, exit code ``STOPPED_EXIT_CODE``: nothing of the program runs yet."""
    for stop in STOP_SIGNALS:
        signal.signal(stop, signal.SIG_IGN)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, RuntimeError, ValueError):  # closed, or interrupted in the middle of a write
            pass
    os._exit(STOPPED_EXIT_CODE)


ik_demo = partial(start, "ik_solvers.demo.ik_demo")
ik_node = partial(start, "ik_solvers.node.ik_node")
servo_bridge = partial(start, "ik_solvers.hardware.servo_bridge_node")
servo_bus_emulator = partial(start, "ik_solvers.hardware.emulator.main")
servo_ros2_control = partial(start, "ik_solvers.hardware.ros2_control")
sim_node = partial(start, "ik_solvers.sim.sim_node")
walk_node = partial(start, "ik_solvers.walk.walk_node")
