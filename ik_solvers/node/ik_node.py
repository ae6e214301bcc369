"""ik_node: target poses in, joint commands out; the SolveIK and SolveIKPath services; solvers
chosen by parameters.

Run ``ros2 run ik_solvers ik_node`` (or the ``ik_node`` console script). Topics, service and
parameters are listed in docs/node.md; the parameters in
:mod:`ik_solvers.node.parameters`. The node parses messages, calls the library
(:class:`~ik_solvers.control.commander.Commander`) and publishes; bad input is refused and reported,
never raised.
"""

from __future__ import annotations

import sys
from functools import partial

import numpy as np
from diagnostic_msgs.msg import DiagnosticArray
from geometry_msgs.msg import PointStamped, PoseStamped
from rclpy.node import Node
from rclpy.time import Time
from sensor_msgs.msg import JointState

from ik_solvers.control.commander import Commander, Limb
from ik_solvers.control.statistics import shortened
from ik_solvers.limbs import Body, find_body
from ik_solvers.model import RobotModel
from ik_solvers.node import messages
from ik_solvers.node.description_parameters import declare_robot_description
from ik_solvers.node.diagnostics import chain_status, diagnostic_array, joint_states_status
from ik_solvers.node.executable import START_ERRORS, run_node
from ik_solvers.node.log_bridge import forward_library_log
from ik_solvers.node.messages import INPUT_ERRORS, MessageError
from ik_solvers.node.outputs import LATEST_ONLY, Command, OutputContext, make_outputs
from ik_solvers.node.parameters import (
    chain_of_solver_parameter,
    declare_parameters,
    solver_option_of_parameter,
)
from ik_solvers.node.path_service import SolveIKPathHandler
from ik_solvers.node.service import SolveIKHandler
from ik_solvers.node.target_age import TargetAge
from ik_solvers.node.throttled_log import ThrottledLog, kind_of
from ik_solvers.node.whole_body import WholeBodyInterface
from ik_solvers.solvers import IKError

# Targets stay at depth 1 (LATEST_ONLY): a deeper queue recovers targets a stalled sender delivers
# back to back, but once the sender outpaces the node (1 kHz here) every target waits behind the
# queue (measured: depth 3 raised the 1 kHz p50 from ~1 ms to ~5 ms).
DIAGNOSTICS_PERIOD = 1.0  # [s]
LOG_THROTTLE = 1.0  # [s] between repeated warnings of one kind


class IKNode(Node):
    """Subscribes targets and poles per chain, publishes velocity-limited joint commands."""

    def __init__(self, **kwargs) -> None:
        super().__init__("ik_node", **kwargs)
        forward_library_log(self)  # the first start's kernel compile says so in this node's log
        self.log = ThrottledLog(self.get_logger(), LOG_THROTTLE)
        description = declare_robot_description(self)
        body = find_body(RobotModel.from_urdf_string(description.xml, description.source))
        self.config, self.parameters = declare_parameters(self, body.chains)
        chains = {c.name: (c.base_link, c.tip_link, c.solver) for c in self.config.chains}
        self.commander = Commander(body.model, chains, self.config.solver_options)
        for fallback in self.commander.fallbacks:
            self.get_logger().warning(fallback)
        self.commander.max_joint_jump = self.config.max_joint_jump
        self.commander.allow_branch_switch = self.config.allow_branch_switch
        self.fraction = self.config.max_velocity_fraction
        self._start_ns = self.get_clock().now().nanoseconds
        self.target_age = TargetAge(self.get_clock(), self.config.max_target_age)
        commanded = tuple(n for limb in self.commander.limbs.values() for n in limb.chain.joint_names)
        self.outputs = make_outputs(OutputContext(self, self.config, commanded, self._warn))
        self._create_interfaces(body)
        self.parameters.on_change(self.apply_parameters)
        self.get_logger().info(f"ready: chains {', '.join(self.commander.limbs)}")

    def _create_interfaces(self, body: Body) -> None:
        for name, limb in self.commander.limbs.items():
            self.create_subscription(
                PoseStamped, f"{name}/target_pose", partial(self.on_target, limb), LATEST_ONLY
            )
            self.create_subscription(
                PointStamped, f"{name}/pole_target", partial(self.on_pole, limb), LATEST_ONLY
            )
        self.create_subscription(JointState, "/joint_states", self.on_joint_states, 10)
        self.diagnostics_publisher = self.create_publisher(DiagnosticArray, "/diagnostics", 10)
        self.create_timer(1.0 / self.config.command_rate, self.on_command_timer)
        self.create_timer(DIAGNOSTICS_PERIOD, self.publish_diagnostics)
        self.whole_body = WholeBodyInterface(
            self, self.commander, body, self.accept_goals, self._warn, self.target_age
        )
        # The services last: clients take an answering service for a started node, so nothing may
        # still be loading then (the stance solver's kernels: a SIGINT arriving while numba loads
        # them, inside a ctypes callback, crashed the process).
        self.service = SolveIKHandler(self.commander, self.accept_solution)
        self.create_service(self.service.srv_type, "solve_ik", self.service.handle)
        self.path_service = SolveIKPathHandler(self.commander)
        self.create_service(self.path_service.srv_type, "solve_ik_path", self.path_service.handle)

    def on_target(self, limb: Limb, message: PoseStamped) -> None:
        """Solve for a new target of ``limb``; publish the shaped command when it succeeds."""
        try:
            self.target_age.check(message.header.stamp)
            target = messages.pose_to_matrix(message.pose)
            target = self.commander.to_base(limb, target, message.header.frame_id)
            seed = self.commander.seed(limb)
            result = self.commander.solve(limb, target, limb.pole, seed)
        except INPUT_ERRORS as error:
            self._refuse(limb, f"target refused: {error}")
            return
        if not result.success:
            self._warn(f"{limb.name}: no solution, holding the last command: {result.message}")
            return
        jump = self.commander.jump_refusal(limb, result.q, target)
        if jump:
            self._warn(f"{limb.name}: holding the last command, the solution jumps: {jump}")
            return
        stamp = message.header.stamp
        self.accept_solution(limb, result.q, None if messages.is_unstamped(stamp) else stamp)

    def on_pole(self, limb: Limb, message: PointStamped) -> None:
        """Keep a pole target (elbow / knee hint) for the limb's next solves."""
        try:
            point = messages.point_to_array(message.point, "pole_target")
            limb.pole = self.commander.point_to_base(limb, point, message.header.frame_id)
        except INPUT_ERRORS as error:
            self._refuse(limb, f"pole refused: {error}")

    def on_joint_states(self, message: JointState) -> None:
        """Remember the measured positions of the model's joints (seeds, frames, the first
        command's start); count the entries left out; warn of joints beyond their limits."""
        try:
            measured = messages.joint_positions(message, self.commander.frames.model.joints)
        except MessageError as error:
            self._warn(f"/joint_states refused: {error}")
            return
        outside = self.commander.measure(*measured)
        if outside:
            self._warn(
                f"measured outside its limits: {'; '.join(outside)}; commands bring it back at the "
                "velocity limit"
            )

    def accept_solution(self, limb: Limb, q: np.ndarray, stamp=None) -> None:
        """Make ``q`` the limb's goal and publish the first step toward it."""
        limb.goal = np.asarray(q, dtype=float)
        self._advance([limb], stamp)

    def accept_goals(self, goals: list[tuple[Limb, np.ndarray]], stamp=None) -> None:
        """Make each ``q`` its limb's goal and publish one command stepping toward all of them.

        A command is published for every whole-body target, even when no joint moves: each
        control period is answered, which a lock-stepped simulator waits for."""
        for limb, q in goals:
            limb.goal = np.asarray(q, dtype=float)
        self._advance([limb for limb, _ in goals], stamp, always=True)

    def on_command_timer(self) -> None:
        """Keep stepping limbs whose goal the velocity limit has not let them reach yet."""
        self._advance(list(self.commander.limbs.values()), None)

    def _advance(self, limbs: list[Limb], stamp, always: bool = False) -> None:
        """Step ``limbs`` and publish, stamped ``stamp`` (None: now); with ``always``, publish even
        when nothing moved (a lock-stepped simulator waits for every period's command).

        A step is timed by the later of the node's clock and ``stamp``: on simulated time a target
        can come stamped with the next period before this node has heard that period's ``/clock``,
        and timed by the clock it would get no time to move in (the command repeated, the servos'
        targets frozen for that period). The stamp leads the clock by one command period at most:
        a target stamped further ahead (within ``max_target_age``) buys no faster motion. While
        the clock reads 0 (simulated time before the first ``/clock``) the stamp alone times it:
        capped by a clock of 0, every target got the same time and no joint moved."""
        now = self.get_clock().now()  # one reading
        period = 1.0 / self.config.command_rate
        step_ns = now.nanoseconds
        if stamp is not None:
            stamped = Time.from_msg(stamp).nanoseconds
            step_ns = stamped if step_ns == 0 else min(max(step_ns, stamped), step_ns + round(period * 1e9))
        # since start-up: epoch seconds as a float would round to 0.2 µs
        seconds = (step_ns - self._start_ns) * 1e-9
        previous = {limb.name: limb.command for limb in limbs}
        moved = self.commander.advance(limbs, seconds, self.fraction, period)
        if moved or (always and any(limb.command is not None for limb in limbs)):
            self._publish(stamp or now.to_msg(), moved or limbs, previous)

    def _publish(self, stamp, moved: list[Limb], previous: dict) -> None:
        limbs = [limb for limb in self.commander.limbs.values() if limb.command is not None]
        names = [name for limb in limbs for name in limb.chain.joint_names]
        positions = np.concatenate([limb.command for limb in limbs])

        def travel_time() -> float:
            return max(self._travel_time(limb, previous.get(limb.name)) for limb in moved)

        command = Command(stamp, names, positions, self.commander.measured, travel_time)
        for output in self.outputs:
            output.send(command)

    def _travel_time(self, limb: Limb, previous: np.ndarray | None) -> float:
        start = limb.command if previous is None else previous
        return limb.filter.travel_time(start, limb.command, self.fraction)

    def publish_diagnostics(self) -> None:
        """One DiagnosticStatus per chain on /diagnostics; the warnings held back go out."""
        self.log.flush()
        statuses = [
            chain_status(self.get_name(), name, limb.solver_kind, limb.stats)
            for name, limb in self.commander.limbs.items()
        ]
        statuses.append(
            joint_states_status(self.get_name(), self.commander.joint_states, len(self.commander.measured))
        )
        self.diagnostics_publisher.publish(diagnostic_array(statuses, self.get_clock().now().to_msg()))

    def apply_parameters(self, changes: dict[str, object]) -> None:
        """Apply run-time changes that passed their rules: solver kinds and options (the solvers
        rebuilt; a ValueError refuses the change), fraction, max age, jump limit, branch switch."""
        kinds, options = {}, {}
        for name, value in changes.items():
            chain, option = chain_of_solver_parameter(name), solver_option_of_parameter(name)
            if chain is not None:
                kinds[chain] = value
            elif option is not None:
                options.setdefault(option[0], {})[option[1]] = value
        self.commander.reconfigure(kinds, options)
        self.fraction = changes.get("max_velocity_fraction", self.fraction)
        self.target_age.max_age = changes.get("max_target_age", self.target_age.max_age)
        self.commander.max_joint_jump = changes.get("max_joint_jump", self.commander.max_joint_jump)
        self.commander.allow_branch_switch = changes.get(
            "allow_branch_switch", self.commander.allow_branch_switch
        )

    def _refuse(self, limb: Limb, message: str) -> None:
        limb.stats.record_refusal(message)
        self._warn(f"{limb.name}: {message}")

    def _warn(self, message: str) -> None:
        """Log a warning, at most one per second of each kind: a flood of one bad input cannot hide
        another's warning (one budget for all, rclpy's per-call-site throttle, did)."""
        self.log(kind_of(message), "warning", shortened(message))


def main(args: list[str] | None = None) -> int:
    """Run the ik_node until SIGINT/SIGTERM; 1 when it cannot start (the reason on stderr, one line)."""
    return run_node("ik_node", IKNode, args, start_errors=(*START_ERRORS, IKError))


if __name__ == "__main__":
    sys.exit(main())
