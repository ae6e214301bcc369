"""ik_node's whole-body interface: soles in a world frame, support, CoM, torso → leg commands.

A walking controller sends ``whole_body/target`` (ik_solvers_interfaces/msg/WholeBodyTarget: both
soles' poses in a world-fixed frame, the support state, an optional CoM target and offset, the
torso's orientation and height). The node solves the stance
(:class:`ik_solvers.whole_body.StanceSolver`: torso pose in the world and both legs' joints, the
CoM over its target, the arms' current positions counted in the CoM) and commands the two leg
chains exactly as a per-chain target would: same joint and velocity limits, latest target wins,
a failed solve holds the last command. The torso pose it chose is published on
``whole_body/torso_pose`` (geometry_msgs/PoseStamped in the world frame).

The legs are the ones found in the robot's tree (:mod:`ik_solvers.limbs`), from the root (the
floating base) to their soles; the node's chains that command exactly their joints (``left_leg``
and ``right_leg`` by default) carry the commands. When the robot cannot stand (no two 6-DoF legs,
no sole frames, no mass) or no chains command the legs, the interface is off and one log line
says why; per-chain IK is unaffected.
Parameter ``whole_body.world_frame`` (string, default ``odom``): the world frame of targets whose
header names none; a target in another frame is refused. Targets pass the per-chain targets' stamp
check (``max_target_age``, :class:`~ik_solvers.node.target_age.TargetAge`); soles swapped or
crossed are refused, a CoM target outside both soles' footprints is warned of
(:mod:`ik_solvers.node.whole_body_checks`). Refusals and stance solves are counted in both legs'
diagnostics (``refused_inputs``, ``solves``, ``failures``, ``last_error``).

A walking controller's stabiliser may also command arm joints (the far arm raised against a push,
:mod:`ik_solvers.whole_body.far_arm`) on ``whole_body/arm_command`` (sensor_msgs/JointState, by
name): the latest such command is applied once, with the next whole-body target solved, to the
goals of the arm chains that hold those joints (their other joints kept at their goal), and counted
in the stance's CoM as every arm position is. Joints of no chain, of the legs, or not finite are
refused by name; positions are clipped to the joints' limits.

Parameter ``whole_body.servo_model`` (string, default ``ideal``; read at start-up): the legs'
servos, as sim_node's ``servo_model`` names them (a model, or a YAML file of them per joint:
:mod:`ik_solvers.sim.servo_models`). For real servos the leg commands carry each servo's expected
deflection under the stance's load (:class:`~ik_solvers.whole_body.servo_compliance.ComplianceCompensation`;
the ground's reaction through the cart-table ZMP of the CoM targets received,
:class:`~ik_solvers.whole_body.servo_compliance.CartTableZmp`); ``ideal``: none. A selection that
names an unknown model or file stops the node at start-up, saying what is accepted.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np
from geometry_msgs.msg import PoseStamped
from rclpy.node import Node
from sensor_msgs.msg import JointState

from ik_solvers.control.commander import Commander, Limb, RequestError
from ik_solvers.control.statistics import shortened
from ik_solvers.limbs import Body
from ik_solvers.node import messages
from ik_solvers.node.messages import MessageError
from ik_solvers.node.target_age import TargetAge
from ik_solvers.node.whole_body_checks import com_outside_support, crossed_soles
from ik_solvers.spatial import matrix_to_quaternion
from ik_solvers.whole_body import StanceSolver
from ik_solvers.whole_body.servo_compliance import CartTableZmp, ComplianceCompensation, Support
from ik_solvers_interfaces.msg import WholeBodyTarget

SUPPORTS = {
    WholeBodyTarget.SUPPORT_DOUBLE: "double",
    WholeBodyTarget.SUPPORT_LEFT: "left",
    WholeBodyTarget.SUPPORT_RIGHT: "right",
}
DEFAULT_WORLD_FRAME = "odom"


class WholeBodyInterface:
    """Subscribes ``whole_body/target`` on ``node``; sets the leg limbs' goals through ``accept``.

    Args:
        node: the ik_node (topics are created on it, relative to its namespace).
        commander: the node's commander (limbs, measured and commanded joint positions).
        body: the robot's limbs and soles (its model is the commander's).
        accept: called with [(limb, goal (n,) [rad])] and the target's stamp (None: unstamped);
            shapes and publishes the commands.
        refuse: logs a refusal's reason or a warning (throttled); the interface counts refusals
            and stance solves in both legs' stats.
        target_age: the node's stamp check, shared with the per-chain targets.
    """

    def __init__(
        self,
        node: Node,
        commander: Commander,
        body: Body,
        accept: Callable[[list[tuple[Limb, np.ndarray]], object], None],
        refuse: Callable[[str], None],
        target_age: TargetAge,
    ) -> None:
        self.commander, self.accept, self.refuse, self.target_age = commander, accept, refuse, target_age
        self.world_frame = node.declare_parameter("whole_body.world_frame", DEFAULT_WORLD_FRAME).value
        self.servo_model = str(node.declare_parameter("whole_body.servo_model", "ideal").value)
        self.compensation = None
        self.solve_time = 0.0  # [s] of the last stance solve
        problem = self._set_up(body)
        if problem:
            node.get_logger().info(f"whole-body interface off: {problem}")
            return
        self.torso_publisher = node.create_publisher(PoseStamped, "whole_body/torso_pose", 10)
        self.arm_command: dict[str, float] = {}  # joint → [rad], applied with the next target
        node.create_subscription(JointState, "whole_body/arm_command", self.on_arm_command, 1)
        node.create_subscription(WholeBodyTarget, "whole_body/target", self.on_target, 1)
        self.clock = node.get_clock()

    def _set_up(self, body: Body) -> str:
        """Build the stance solver and find the leg limbs; why not, or "" when done."""
        if body.sole_links is None:
            return f"robot '{body.model.name}' cannot stand: {body.whole_body_problem}"
        try:
            self.solver = StanceSolver(body.model, *body.sole_links)
        except ValueError as error:  # no mass, or legs no solver can take
            return str(error)
        self.legs = self._leg_limbs()
        if self.legs is None:
            legs = " and ".join(f"[{', '.join(chain.joint_names)}]" for chain in self.solver.legs.chains)
            return f"no chains command exactly the legs' joints {legs}"
        self.arms = self._arms()
        if self.servo_model != "ideal":
            from ik_solvers.sim.servo_models import joint_servo_models  # MuJoCo only for real servos

            models = joint_servo_models(self.servo_model, self.solver.com.joint_names)
            self.compensation = ComplianceCompensation.from_servo_models(self.solver, models)
            self.zmp = CartTableZmp()
        return ""

    def _leg_limbs(self) -> tuple[Limb, Limb] | None:
        """The limbs commanding the left and right legs' joints, in the stance solver's order."""
        names = self.solver.joint_names
        half = len(names) // 2
        found = []
        for joints in (names[:half], names[half:]):
            limb = next((m for m in self.commander.limbs.values() if m.chain.joint_names == joints), None)
            if limb is None:
                return None
            found.append(limb)
        return found[0], found[1]

    def on_target(self, message: WholeBodyTarget) -> None:
        """Solve the stance for ``message``; command the legs and publish the torso pose."""
        try:
            self.target_age.check(message.header.stamp)
            request = self._request(message)
        except (MessageError, RequestError, ValueError) as error:
            self._count_refusal(f"whole-body target refused: {error}")
            return
        warning = com_outside_support(
            self.solver.soles, request["left_sole"], request["right_sole"], self._com(request)
        )
        if warning:
            self.refuse(f"whole-body target: {warning}")
        start = time.perf_counter()
        result = self.solver.solve(**request, joints=self.commander.positions())
        self.solve_time = time.perf_counter() - start
        failure = f"whole-body target: no stance, holding the last command: {result.message}"
        for leg in self.legs:
            leg.stats.record_solve(result.success, self.solve_time, failure)
        stamp = None if messages.is_unstamped(message.header.stamp) else message.header.stamp
        if not result.success:
            self.refuse(failure)
            self._hold(stamp)
            return
        legs = result.q if self.compensation is None else result.q + self._deflections(request, result, stamp)
        half = len(legs) // 2
        goals = [(self.legs[0], legs[:half]), (self.legs[1], legs[half:]), *self._arm_goals()]
        self.accept(goals, stamp)
        self.torso_publisher.publish(self._torso_pose(result.torso_pose, stamp))

    def on_arm_command(self, message: JointState) -> None:
        """Keep ``message``'s arm joint positions for the next target; refuse it whole when a
        name is no arm chain's joint or a position is not finite."""
        arms = {name for limb in self.arms for name in limb.chain.joint_names}
        try:
            positions, unknown, non_finite = messages.joint_positions(message, arms)
        except MessageError as error:
            self._count_refusal(f"arm command refused: {error}")
            return
        if unknown or non_finite:
            names = [shortened(n, 40) for n in message.name if n not in positions][:5]
            self._count_refusal(
                f"arm command refused: {names} are not finite positions of the arm chains' joints "
                f"({', '.join(sorted(arms)) or 'none'})"
            )
            return
        self.arm_command = positions

    def _arms(self) -> list[Limb]:
        """The node's chains that share no joint with the legs."""
        legs = set(self.solver.joint_names)
        return [m for m in self.commander.limbs.values() if legs.isdisjoint(m.chain.joint_names)]

    def _arm_goals(self) -> list[tuple[Limb, np.ndarray]]:
        """The arm command's goals, consumed: each chain's goal (else its measured state) with the
        commanded joints replaced, clipped to their limits; chains of neither are left as they are."""
        if not self.arm_command:
            return []
        goals = []
        for limb in self.arms:
            names = limb.chain.joint_names
            base = self.commander.seed(limb)
            if base is None or not any(name in self.arm_command for name in names):
                continue
            goal = np.array([self.arm_command.get(n, v) for n, v in zip(names, base)])
            goals.append((limb, np.clip(goal, limb.chain.lower, limb.chain.upper)))
        self.arm_command = {}
        return goals

    def _hold(self, stamp) -> None:
        """Answer the target's period with the legs' last goals (once they have one): a
        lock-stepped simulator waits for every period's command, up to its ``lock_step_timeout``
        (3 s in ik_demo) of wall time, and the G1's unreachable CoM targets stalled it so for
        every period (real-time factor 0.005)."""
        held = [(leg, leg.goal) for leg in self.legs if leg.goal is not None]
        if held:
            self.accept(held, stamp)

    def _deflections(self, request: dict, result, stamp) -> np.ndarray:
        """(12,) [rad] the leg servos' expected deflections under ``result``'s stance."""
        now = messages.stamp_seconds(stamp) if stamp is not None else self.clock.now().nanoseconds * 1e-9
        floor = min(request["left_sole"][2, 3], request["right_sole"][2, 3])
        # the ZMP of the CoM target without its offset: a stabiliser's feedback shifts the offset
        # tick by tick, and a second difference of that jitter is no ZMP (ik_solvers.walk.messages)
        planned = result.com_target if request["com_target"] is None else request["com_target"]
        zmp = self.zmp.update(now, planned, result.com[2] - floor)
        ground = Support(request["left_sole"], request["right_sole"], request["support"], zmp)
        q = self.solver.com.configuration(self.commander.positions())
        q[self.solver.legs.columns] = result.q
        return self.compensation.offsets(q, result.torso_pose, ground)

    def _count_refusal(self, reason: str) -> None:
        """Count a refused target in both legs' stats and log ``reason``."""
        for leg in self.legs:
            leg.stats.record_refusal(reason)
        self.refuse(reason)

    def _com(self, request: dict) -> np.ndarray:
        """(2,) world x, y [m] the stance solve will put the CoM over for ``request``."""
        if request["com_target"] is None:
            return self.solver.com_target(
                request["left_sole"], request["right_sole"], request["support"], request["com_offset"]
            )
        return request["com_target"] + request["com_offset"]

    def _request(self, message: WholeBodyTarget) -> dict:
        """The stance solve's keyword arguments from ``message``; MessageError/ValueError if bad."""
        frame = message.header.frame_id or self.world_frame
        if frame != self.world_frame:
            raise ValueError(f"frame '{frame[:64]}' is not the world frame '{self.world_frame}' (or '')")
        if message.support not in SUPPORTS:
            raise ValueError(f"support {message.support} is not 0 (double), 1 (left) or 2 (right)")
        orientation = message.torso_orientation
        level = not any((orientation.x, orientation.y, orientation.z, orientation.w))
        offset = messages.point_to_array(message.com_offset, "com_offset")
        target = messages.point_to_array(message.com_target, "com_target")
        left, right = messages.pose_to_matrix(message.left_sole), messages.pose_to_matrix(message.right_sole)
        crossed = crossed_soles(self.solver.soles, left, right)
        if crossed:
            raise ValueError(crossed)
        return {
            "left_sole": left,
            "right_sole": right,
            "torso_height": _finite(message.torso_height, "torso_height"),
            "torso_rotation": None if level else _rotation(message.torso_orientation),
            "support": SUPPORTS[message.support],
            "com_target": target[:2] if message.use_com_target else None,
            "com_offset": offset[:2],
        }

    def _torso_pose(self, pose: np.ndarray, stamp) -> PoseStamped:
        out = PoseStamped()
        out.header.frame_id = self.world_frame
        out.header.stamp = stamp or self.clock.now().to_msg()
        out.pose.position.x, out.pose.position.y, out.pose.position.z = (float(v) for v in pose[:3, 3])
        x, y, z, w = matrix_to_quaternion(pose[:3, :3])
        o = out.pose.orientation
        o.x, o.y, o.z, o.w = float(x), float(y), float(z), float(w)
        return out


def _rotation(quaternion) -> np.ndarray:
    """(3, 3) rotation of a geometry_msgs/Quaternion; MessageError when it is not finite or zero."""
    from geometry_msgs.msg import Pose

    pose = Pose()
    pose.orientation = quaternion
    return messages.pose_to_matrix(pose)[:3, :3]


def _finite(value: float, name: str) -> float:
    if not np.isfinite(value):
        raise ValueError(f"{name} must be finite, got {value}")
    return float(value)
