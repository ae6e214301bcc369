"""The ``main`` of a node executable: build the node, spin it until SIGINT/SIGTERM; a start-up
error becomes one line ``<name>: cannot start: <reason>`` on stderr and exit code 1, never a
traceback (a parameter refused by :mod:`ik_solvers.node.node_parameters`, a robot description
that does not load). A node whose constructor fails is destroyed there and then, while ROS still
runs (:func:`build_node`): what it had made (parameter services, publishers, its DDS entities) is
not left to the garbage collector to free at a random moment around or after ROS's shutdown.

The process then ends at once (:func:`end_process`), without the interpreter's finalization: once
the node is destroyed and ROS shut down, nothing is left to do, yet tearing down the modules start-up
imported (numba, scipy, MuJoCo, the robot model) cost ik_node 0.6-0.8 s of wall time after its last
callback at load 11, a process of many that launch stops at once, and 3-4 s at load 24-26, close to
the stop deadline (4.5 s) and launch's SIGTERM (5 s). Ended at once: 0.07 s at load 11.
"""

from __future__ import annotations

import atexit
import os
import sys
from typing import NoReturn, TypeVar

import rclpy
from rclpy.context import Context
from rclpy.executors import ExternalShutdownException
from rclpy.node import Node
from rclpy.signals import SignalHandlerOptions

from ik_solvers.model import ModelError
from ik_solvers.node import stop_signals
from ik_solvers.node.description_parameters import START_ERRORS as DESCRIPTION_ERRORS
from ik_solvers.node.description_parameters import start_failure

# What stops a node at start-up: rcl refusing the command line, a parameter, the robot model
START_ERRORS: tuple[type[Exception], ...] = (*DESCRIPTION_ERRORS, ModelError, ValueError)
AnyNode = TypeVar("AnyNode", bound=Node)


def build_node(node_class: type[AnyNode], *args: object) -> AnyNode:
    """``node_class(*args)`` built in two steps, so that a constructor that raises leaves no
    half-built node behind: the node is made, then initialised; when its ``__init__`` raises after
    rclpy's ``Node.__init__`` went to its end, the node is destroyed (its services, publishers,
    subscriptions, timers and DDS entities, :meth:`Node.destroy_node`) before the error goes on.

    Without it the half-built node lives on in the error's traceback and in its own reference
    cycles (parameter services that hold it): rclpy's shutdown destroys it only if the collector
    has not freed it first, object by object, in no set order; and the node keeps the ROS context it
    was made in alive, to be finalised whenever the collector next walks (or never).
    """
    node = node_class.__new__(node_class)
    try:
        node.__init__(*args)
    except BaseException:
        if hasattr(node, "_type_description_service"):  # the last thing rclpy's Node.__init__
            node.destroy_node()  # makes before its context tracks the node: it went to its end
        raise
    return node


def run_node(
    name: str,
    node_class: type[Node],
    args: list[str] | None = None,
    start_errors: tuple[type[Exception], ...] = START_ERRORS,
    stop_errors: tuple[type[Exception], ...] = (),
) -> NoReturn:
    """Run a ``node_class()`` (:func:`build_node`) until SIGINT/SIGTERM (at most ``STOP_DEADLINE`` [s] after it:
    :mod:`ik_solvers.node.stop_signals`), destroy it, shut ROS down and end the process with its
    exit code (0, or 1 on an error below): :func:`end_process`.

    Args:
        name: the executable's name, first on its error lines.
        node_class: the node's class, built without arguments (after ``rclpy.init``).
        args: ROS arguments (None: the process's).
        start_errors: raised by its constructor: one line ``cannot start: …``, exit code 1.
        stop_errors: raised while spinning: one line ``stopped: …``, exit code 1.
    """
    context = rclpy.get_default_context()  # the one rclpy.init initialises: after its shutdown,
    # rclpy makes a new default context, and the nodes hold this one
    end_process(_run(name, node_class, context, args, start_errors, stop_errors), context)


def _run(
    name: str,
    node_class: type[Node],
    context: Context,
    args: list[str] | None,
    start_errors: tuple[type[Exception], ...],
    stop_errors: tuple[type[Exception], ...],
) -> int:
    """:func:`run_node` up to the process's end; its exit code."""
    stop_signals.install(stop_signals.STOP_DEADLINE)
    command_line = sys.argv if args is None else args
    try:
        with rclpy.init(args=args, context=context, signal_handler_options=SignalHandlerOptions.NO):
            try:
                node = build_node(node_class)
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


def end_process(code: int, context: Context) -> NoReturn:
    """End the process with exit ``code`` now, after ROS's shutdown: the ROS ``context`` the nodes
    ran in finalised (``rcl_context_fini``), the ``atexit`` functions run (``logging``'s flush among
    them), stdout and stderr flushed; the interpreter's finalization (module teardown, the
    collector's last walk) skipped, :func:`os._exit`."""
    context.destroy()
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    os._exit(code)
