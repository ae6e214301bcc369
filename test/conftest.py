"""Shared fixtures: an isolated, loopback-only ROS 2 environment for every test session.

At import (before any test imports rclpy) this module
- keeps DDS discovery on loopback (``ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST``),
- sends ROS logs to ``log/ros`` inside the repository (``ROS_LOG_DIR``),
- reserves a ``ROS_DOMAIN_ID`` that no concurrent test session, hand-started demo or benchmark on
  this machine holds (:mod:`ik_solvers.node.domains`: a bound local port per domain id, held for
  the session), and tells the processes it starts that it holds it for them.

Subprocesses started through the fixtures inherit the same environment.
"""

from __future__ import annotations

import contextlib
import os
import random
from dataclasses import dataclass
from pathlib import Path

import pytest
from ros_helpers import ProcessRunner

from ik_solvers.node import domains

REPO_ROOT = Path(__file__).resolve().parent.parent
_SESSION_RESOURCES = contextlib.ExitStack()


def _reserve_domain_id() -> int:
    """A ROS domain id in 1..100 that no other run on this machine holds (another test session, a
    demo started by hand, a benchmark: ik_solvers.node.domains, ros-domain-coordinator's scheme),
    held for the session; tried from a random one on, so that concurrent sessions rarely race."""
    offset = random.randrange(len(domains.TEST_DOMAINS))
    candidates = [*domains.TEST_DOMAINS[offset:], *domains.TEST_DOMAINS[:offset]]
    return domains.reserve(candidates, _SESSION_RESOURCES)


def _configure_ros_environment() -> None:
    """Set the variables that rclpy reads at initialisation; see the module docstring."""
    os.environ["ROS_AUTOMATIC_DISCOVERY_RANGE"] = "LOCALHOST"
    os.environ.pop("ROS_STATIC_PEERS", None)
    log_dir = Path(os.environ.setdefault("ROS_LOG_DIR", str(REPO_ROOT / "log" / "ros")))
    log_dir.mkdir(parents=True, exist_ok=True)
    domain = str(_reserve_domain_id())
    os.environ["ROS_DOMAIN_ID"] = os.environ[domains.HELD_VARIABLE] = domain  # children: held for them


_configure_ros_environment()


def pytest_report_header(config: pytest.Config) -> str:
    """Show the session's ROS settings at the top of the test report."""
    return (
        f"ROS_DOMAIN_ID={os.environ['ROS_DOMAIN_ID']} "
        f"ROS_AUTOMATIC_DISCOVERY_RANGE={os.environ['ROS_AUTOMATIC_DISCOVERY_RANGE']} "
        f"ROS_LOG_DIR={os.environ['ROS_LOG_DIR']}"
    )


def pytest_unconfigure(config: pytest.Config) -> None:
    """Release the domain id reservation."""
    _SESSION_RESOURCES.close()


@pytest.fixture
def rclpy_context():
    """An initialised rclpy Context of its own, shut down after the test.

    Create nodes and executors with ``context=rclpy_context``.
    """
    rclpy = pytest.importorskip("rclpy")
    context = rclpy.Context()
    rclpy.init(context=context, domain_id=int(os.environ["ROS_DOMAIN_ID"]))
    try:
        yield context
    finally:
        context.try_shutdown()


@pytest.fixture
def executor(rclpy_context):
    """A single-threaded executor in ``rclpy_context``; nodes added to it are destroyed after."""
    from rclpy.executors import SingleThreadedExecutor

    executor = SingleThreadedExecutor(context=rclpy_context)
    try:
        yield executor
    finally:
        for node in executor.get_nodes():
            executor.remove_node(node)
            node.destroy_node()
        executor.shutdown()


@pytest.fixture
def make_node(rclpy_context, executor):
    """Factory ``make_node(name) -> rclpy.node.Node`` in the test's context, spun by ``executor``."""
    from rclpy.node import Node

    def make(name: str, **kwargs) -> Node:
        node = Node(name, context=rclpy_context, **kwargs)
        executor.add_node(node)
        return node

    return make


@pytest.fixture
def processes(tmp_path: Path):
    """A :class:`ros_helpers.ProcessRunner`; every process it started is stopped after the test."""
    runner = ProcessRunner(log_dir=tmp_path)
    try:
        yield runner
    finally:
        runner.stop_all()


@dataclass
class RosSession:
    """rclpy context, executor, node factory and process runner shared by one test module."""

    context: object
    executor: object
    processes: ProcessRunner

    def make_node(self, name: str, **kwargs):
        """A node in this session's context, spun by its executor."""
        from rclpy.node import Node

        node = Node(name, context=self.context, **kwargs)
        self.executor.add_node(node)
        return node


@pytest.fixture(scope="module")
def ros_module(tmp_path_factory):
    """A :class:`RosSession` for a whole module: start a node process once, test it many times."""
    rclpy = pytest.importorskip("rclpy")
    from rclpy.executors import SingleThreadedExecutor

    context = rclpy.Context()
    rclpy.init(context=context, domain_id=int(os.environ["ROS_DOMAIN_ID"]))
    session = RosSession(
        context,
        SingleThreadedExecutor(context=context),
        ProcessRunner(tmp_path_factory.mktemp("processes")),
    )
    try:
        yield session
    finally:
        session.processes.stop_all()
        for node in session.executor.get_nodes():
            session.executor.remove_node(node)
            node.destroy_node()
        session.executor.shutdown()
        context.try_shutdown()


@pytest.fixture(scope="session")
def colcon_workspace(tmp_path_factory):
    """The repository built by ``colcon build`` in a temporary workspace, once per session.

    Skips where the venv has no colcon; under ``CI=true`` that is a failure instead.
    """
    from workspaces import COLCON_NOT_READY, COLCON_READY, colcon_build

    if not COLCON_READY:
        if os.environ.get("CI") == "true":
            pytest.fail(COLCON_NOT_READY)
        pytest.skip(COLCON_NOT_READY)
    return colcon_build(tmp_path_factory.mktemp("colcon") / "ws")
