"""A test-side client of a running ik_node process: publishers, subscriptions, service calls.

The node runs as its console script in a subprocess (real DDS, the session's own domain id); the
client is an rclpy node of the test process, spun by the test module's executor.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
from diagnostic_msgs.msg import DiagnosticArray
from geometry_msgs.msg import PointStamped, PoseStamped
from parameter_client import ParameterClient
from rcl_interfaces.srv import ListParameters
from rclpy.qos import QoSProfile
from ros_helpers import DEFAULT_TIMEOUT, call_service, spin_until, wait_for_matching
from sensor_msgs.msg import JointState

from ik_solvers.spatial import matrix_to_quaternion
from ik_solvers_interfaces.msg import WholeBodyTarget
from ik_solvers_interfaces.srv import SolveIK, SolveIKPath

REPO_ROOT = Path(__file__).resolve().parent.parent
CONFIG = REPO_ROOT / "config" / "ik_solvers.yaml"
CHAINS = ("left_leg", "right_leg", "left_arm", "right_arm")
NODE_NAME = "ik_node"


def node_arguments(*parameters: str, namespace: str = "", config: Path | None = CONFIG) -> list[str]:
    """ROS arguments for the ik_node: the packaged config, ``name:=value`` overrides, a namespace."""
    arguments = ["--ros-args"]
    if config is not None:
        arguments += ["--params-file", str(config)]
    for parameter in parameters:
        arguments += ["-p", parameter]
    if namespace:
        arguments += ["-r", f"__ns:={namespace}"]
    return arguments


def pose_stamped(pose: np.ndarray, frame: str = "", stamp=None) -> PoseStamped:
    """PoseStamped of a (4, 4) pose in ``frame``."""
    message = PoseStamped()
    message.header.frame_id = frame
    if stamp is not None:
        message.header.stamp = stamp
    p = message.pose.position
    p.x, p.y, p.z = (float(v) for v in pose[:3, 3])
    o = message.pose.orientation
    o.x, o.y, o.z, o.w = (float(v) for v in matrix_to_quaternion(pose[:3, :3]))
    return message


class IKNodeClient:
    """Talks to one ik_node process through DDS; records what it publishes."""

    def __init__(self, session, process: subprocess.Popen, namespace: str = "", chains=CHAINS) -> None:
        self.session, self.process, self.executor = session, process, session.executor
        self.prefix = f"{namespace}/" if namespace else ""
        self.node = session.make_node(f"ik_test_client{namespace.replace('/', '_')}")
        self.commands: list[JointState] = []
        self.diagnostics: list[DiagnosticArray] = []
        qos = QoSProfile(depth=1000)
        self.node.create_subscription(JointState, f"{self.prefix}joint_commands", self.commands.append, qos)
        self.node.create_subscription(DiagnosticArray, "/diagnostics", self.diagnostics.append, 10)
        self.targets = {
            c: self.node.create_publisher(PoseStamped, f"{self.prefix}{c}/target_pose", 10) for c in chains
        }
        self.poles = {
            c: self.node.create_publisher(PointStamped, f"{self.prefix}{c}/pole_target", 10) for c in chains
        }
        self.joint_states = self.node.create_publisher(JointState, "/joint_states", 10)
        self.solve_client = self.node.create_client(SolveIK, f"{self.prefix}solve_ik")
        self.path_client = self.node.create_client(SolveIKPath, f"{self.prefix}solve_ik_path")
        node_path = f"{namespace}/{NODE_NAME}" if namespace else f"/{NODE_NAME}"
        self.parameters = ParameterClient(self.node, self.executor, node_path)
        self.list_client = self.node.create_client(ListParameters, f"{node_path}/list_parameters")

    def listen_whole_body(self) -> None:
        """Publish ``whole_body/target`` (:attr:`whole_body`) and record ``whole_body/torso_pose``
        (:attr:`torso_poses`); wait until the node hears the targets."""
        self.torso_poses: list[PoseStamped] = []
        self.node.create_subscription(
            PoseStamped, f"{self.prefix}whole_body/torso_pose", self.torso_poses.append, 100
        )
        self.whole_body = self.node.create_publisher(WholeBodyTarget, f"{self.prefix}whole_body/target", 10)
        assert wait_for_matching(self.executor, self.whole_body), self.output()

    def output(self) -> str:
        """What the node process printed so far."""
        return self.session.processes.output(self.process)

    def wait_ready(self) -> None:
        """Spin until the service answers and every topic matched; fail with the node's output."""
        ready = spin_until(
            self.executor, lambda: self.solve_client.service_is_ready() or self.process.poll() is not None
        )
        assert ready and self.process.poll() is None, f"ik_node did not start:\n{self.output()}"
        for publisher in [*self.targets.values(), *self.poles.values()]:
            assert wait_for_matching(self.executor, publisher), f"no match:\n{self.output()}"
        assert self.parameters.wait_ready()

    def call(self, request: SolveIK.Request) -> SolveIK.Response:
        """Call solve_ik and wait for the answer."""
        return self._call(self.solve_client, request)

    def call_path(self, request: SolveIKPath.Request) -> SolveIKPath.Response:
        """Call solve_ik_path and wait for the answer."""
        assert spin_until(self.executor, self.path_client.service_is_ready), self.output()
        return self._call(self.path_client, request)

    def set_parameters(self, **values) -> list:
        """Set node parameters (dots written as '__' in keyword names); the SetParametersResults."""
        return self.parameters.set(**values)

    def parameter_names(self) -> set[str]:
        """Every parameter the node has declared."""
        return set(self._call(self.list_client, ListParameters.Request()).result.names)

    def _call(self, client, request):
        response = call_service(self.executor, client, request)
        assert response is not None, f"no answer from {client.srv_name}:\n{self.output()}"
        return response

    def send_target(self, chain: str, pose: np.ndarray, frame: str = "", stamp=None) -> None:
        """Publish a target pose (4, 4) in ``frame`` for ``chain``."""
        self.targets[chain].publish(pose_stamped(pose, frame, stamp))

    def wait_for_command(self, condition, timeout: float = DEFAULT_TIMEOUT) -> JointState | None:
        """Spin until a joint_commands message received from now on satisfies ``condition``."""
        scanned, found = len(self.commands), []

        def check() -> bool:
            nonlocal scanned
            while not found and scanned < len(self.commands):
                if condition(self.commands[scanned]):
                    found.append(self.commands[scanned])
                scanned += 1
            return bool(found)

        spin_until(self.executor, check, timeout)
        return found[0] if found else None

    def spin(self, seconds: float) -> None:
        """Spin for ``seconds`` (to collect what the node publishes meanwhile)."""
        spin_until(self.executor, lambda: False, seconds)


def positions_of(message: JointState, names) -> np.ndarray | None:
    """Positions of ``names`` in a JointState, or None when one is missing."""
    by_name = dict(zip(message.name, message.position))
    if not all(name in by_name for name in names):
        return None
    return np.array([by_name[name] for name in names])
