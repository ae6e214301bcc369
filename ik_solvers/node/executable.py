"""The ``main`` of a node executable: build the node, spin it until SIGINT/SIGTERM; a start-up
error becomes one line ``<name>: cannot start: <reason>`` on stderr and exit code 1, never a
traceback (a parameter refused by :mod:`ik_solvers.node.node_parameters`, a robot description
that does not load)."""

from __future__ import annotations

import sys
from collections.abc import Callable

import rclpy
from rclpy.executors import ExternalShutdownException
from rclpy.node import Node
from rclpy.signals import SignalHandlerOptions

from ik_solvers.model import ModelError
from ik_solvers.node import stop_signals
from ik_solvers.node.description_parameters import START_ERRORS as DESCRIPTION_ERRORS
from ik_solvers.node.description_parameters import start_failure

# What stops a node at start-up: rcl refusing the command line, a parameter, the robot model
START_ERRORS: tuple[type[Exception], ...] = (*DESCRIPTION_ERRORS, ModelError, ValueError)


def run_node(
    name: str,
    make: Callable[[], Node],
    args: list[str] | None = None,
    start_errors: tuple[type[Exception], ...] = START_ERRORS,
    stop_errors: tuple[type[Exception], ...] = (),
) -> int:
    """Run the node ``make()`` builds until SIGINT/SIGTERM (at most ``STOP_DEADLINE`` [s] after it:
    :mod:`ik_solvers.node.stop_signals`), destroy it; the process's exit code.

    Args:
        name: the executable's name, first on its error lines.
        make: builds the node (after ``rclpy.init``).
        args: ROS arguments (None: the process's).
        start_errors: raised by ``make``: one line ``cannot start: …``, exit code 1.
        stop_errors: raised while spinning: one line ``stopped: …``, exit code 1.
    """
    stop_signals.install(stop_signals.STOP_DEADLINE)
    command_line = sys.argv if args is None else args
    try:
        with rclpy.init(args=args, signal_handler_options=SignalHandlerOptions.NO):
            try:
                node = make()
            except start_errors as error:
                return start_failure(name, error, command_line)
            try:
                stop_signals.spin_until_stopped(node)
            finally:  # its DDS entities before the context's: what rclpy's shutdown expects
                node.destroy_node()
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
    except start_errors as error:  # rcl refusing the command line in rclpy.init
        return start_failure(name, error, command_line)
    except stop_errors as error:
        print(f"{name}: stopped: {error}", file=sys.stderr)
        return 1
    return 0
