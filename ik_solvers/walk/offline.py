"""The walking loop in one process, without ROS: pattern generator → stance solve → MuJoCo.

What ``walk_node`` → ``ik_node`` → ``sim_node`` do over DDS, done in a plain loop at the
generator's period: for tests of the physics, the walking benchmark and quick experiments. The
servo targets are the stance solve's leg joints (no velocity shaping: the generator's motion is
smooth); the arms hold their positions, but for the stabiliser's far arm. With ``WalkConfig.stabilise`` the targets are corrected
by :class:`~ik_solvers.whole_body.stabiliser.Stabiliser` from the simulated IMU (the torso's
orientation and gyro sensors) and the joint positions only, as on a real robot. :meth:`OfflineWalker.push`
schedules a push on the torso (a horizontal force for a short time); ``latency`` delays the servo
targets by whole periods (a slower bus), ``slope`` tilts gravity about the walking direction's
x axis (a side slope: the floor's normal leans by that angle) and ``incline`` about its y axis
(walking up or down a slope), at once or, with ``tilt_time``, from level over that time from
the first tick walked (a floor that tilts under the robot, as one walking onto a slope meets
it); the IMU's orientation is then reported against gravity, as an AHRS does. ``compensate``
adds each leg servo's expected deflection under the planned stance's load to its target
(:class:`~ik_solvers.whole_body.servo_compliance.ComplianceCompensation`, the load through the
plan's ZMP; stiffness and play of the simulated servo models, as a robot's owner states them).

Each tick is recorded as a :class:`~ik_solvers.walk.walk_log.WalkSample` (the plan and what the
simulator did), the input of :mod:`ik_solvers.walk.walk_metrics`.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Iterable

import numpy as np

from ik_solvers.model import RobotModel
from ik_solvers.sim.mujoco_robot import FREE_JOINT, MujocoRobot, ServoConfig
from ik_solvers.spatial import quaternion_product
from ik_solvers.walk.walk_log import WalkLog
from ik_solvers.whole_body import StanceSolver, WalkConfig, WalkingPatternGenerator
from ik_solvers.whole_body.servo_compliance import ComplianceCompensation, Support
from ik_solvers.whole_body.stabiliser import Correction, Stabiliser

Command = tuple[float, float, float]  # forward [m/s], lateral [m/s], yaw rate [rad/s]


class OfflineWalker:
    """A simulated robot standing on the floor, walked by the pattern generator.

    Args:
        urdf_xml: the robot.
        config: walking parameters (default :class:`WalkConfig`).
        servo: simulator set-up (floating base forced on).
        latency: [s] extra delay of the servo targets (rounded to whole periods ``config.dt``).
        slope: [rad] side slope (gravity turned about the world x axis; positive: downhill to
            the robot's left).
        incline: [rad] slope along the walk (gravity then turned about the world y axis;
            positive: walking uphill).
        tilt_time: [s] the floor tilts from level to ``slope`` and ``incline`` over this time from
            the first tick of :meth:`run` (0: tilted from the start).
        compensate: command each leg servo past its target by its expected deflection (module
            docstring); nothing changes with ideal servos.
    """

    def __init__(
        self,
        urdf_xml: str,
        config: WalkConfig | None = None,
        servo: ServoConfig | None = None,
        latency: float = 0.0,
        slope: float = 0.0,
        incline: float = 0.0,
        tilt_time: float = 0.0,
        compensate: bool = False,
    ) -> None:
        self.stance = StanceSolver(RobotModel.from_urdf_string(urdf_xml))
        self.model = self.stance.model  # with the sole frames found or made for it
        self.generator = WalkingPatternGenerator(self.model, config, stance=self.stance)
        servo = servo or ServoConfig()
        self.robot = MujocoRobot(urdf_xml, ServoConfig(**{**servo.__dict__, "floating_base": True}))
        self.log = WalkLog.for_walk(self.stance, self.generator.geometry)
        self.solve_seconds: list[float] = []  # per tick: pattern + stance solve [s]
        self.stabiliser_seconds: list[float] = []  # per tick: the stabiliser alone [s]
        self.stabiliser = Stabiliser(self.generator, self.stance) if self.generator.config.stabilise else None
        self.corrections: list[Correction] = []
        self._pushes: list[tuple[float, float, np.ndarray]] = []  # start, end [s], force (3,) [N]
        self._torso = self.robot.model.jnt_bodyid[self.robot.model.joint(FREE_JOINT).id]
        self._mass = float(self.robot.model.body_subtreemass[self._torso])
        self._index = {name: i for i, name in enumerate(self.robot.joint_names)}
        self.compensation = (
            ComplianceCompensation.from_servo_models(self.stance, self.robot.servo_models)
            if compensate
            else None
        )
        self._delayed: deque[np.ndarray] = deque()
        self._latency = round(latency / self.generator.config.dt)
        self._floor, self._tilt_time, self._tilt_start = (slope, incline), tilt_time, None
        self._tilt(0.0 if tilt_time > 0.0 else 1.0)
        first = self.generator.step()
        self.targets = np.zeros(len(self.robot.joint_names))
        self._solve(first)
        self.robot.reset(self.targets)

    def _solve(self, tick, correction: Correction | None = None) -> bool:
        """Stance for ``tick`` (as ``correction`` changes it); the leg targets updated when it succeeds."""
        result = self.stance.solve(
            tick.left_sole,
            tick.right_sole,
            tick.torso_height,
            tick.torso_rotation if correction is None else correction.torso_rotation,
            com_target=tick.com if correction is None else correction.com,
            joints=None if correction is None else correction.arm,
        )
        if correction is not None:
            for name, value in correction.arm.items():  # the far arm (stabiliser step 4)
                self.targets[self._index[name]] = value
        if result.success:
            for name, value in result.positions.items():
                self.targets[self._index[name]] = value
            if self.compensation is not None:
                self._compensate(tick, result.torso_pose)
        return result.success

    def _compensate(self, tick, torso_pose: np.ndarray) -> None:
        """Add the legs' expected servo deflections under the stance of ``tick`` to their targets."""
        names = self.stance.com.joint_names
        q = self.stance.com.configuration(
            {n: self.targets[self._index[n]] for n in names if n in self._index}
        )
        ground = Support(tick.left_sole, tick.right_sole, tick.support, tick.zmp)
        for name, offset in zip(self.stance.joint_names, self.compensation.offsets(q, torso_pose, ground)):
            self.targets[self._index[name]] += offset

    def _tilt(self, share: float) -> None:
        """Gravity turned by ``share`` (0..1) of the floor's slope and incline."""
        slope, incline = share * self._floor[0], share * self._floor[1]
        # gravity = R_y(incline) R_x(slope) (0, 0, -g); world → gravity frame: the inverse
        about_x = np.array([np.cos(0.5 * slope), -np.sin(0.5 * slope), 0.0, 0.0])
        self._slope = quaternion_product(
            about_x, np.array([np.cos(0.5 * incline), 0.0, -np.sin(0.5 * incline), 0.0])
        )
        self.robot.model.opt.gravity[:] = 9.81 * np.array(
            [-np.sin(incline) * np.cos(slope), np.sin(slope), -np.cos(incline) * np.cos(slope)]
        )

    def _tilting(self) -> None:
        """The floor's tilt now, while it is still tilting (``tilt_time``)."""
        if self._tilt_time <= 0.0:
            return
        if self._tilt_start is None:
            self._tilt_start = self.robot.time
        share = (self.robot.time - self._tilt_start) / self._tilt_time
        if share <= 1.0 + self.generator.config.dt:
            self._tilt(min(share, 1.0))

    def push(self, velocity_change: np.ndarray, start: float, duration: float = 0.1) -> None:
        """A horizontal force on the torso from simulated time ``start`` for ``duration`` [s], of
        the size that changes the whole robot's velocity by ``velocity_change`` (2,) [m/s]."""
        force = np.zeros(3)
        force[:2] = self._mass * np.asarray(velocity_change, dtype=float) / duration
        self._pushes.append((start, start + duration, force))

    def _apply_pushes(self) -> None:
        now, force = self.robot.time, np.zeros(3)
        for start, end, push in self._pushes:
            if start <= now < end:
                force += push
        self.robot.data.xfrc_applied[self._torso, :3] = force

    def _correct(self, tick) -> Correction | None:
        """The stabiliser's correction from the simulated IMU and joint positions (None when off)."""
        if self.stabiliser is None:
            return None
        start = time.perf_counter()
        quaternion, gyro, _ = self.robot.imu()
        quaternion = quaternion_product(self._slope, quaternion)
        q = self.stance.com.configuration(dict(zip(self.robot.joint_names, self.robot.joint_state()[0])))
        correction = self.stabiliser.update(tick, quaternion, gyro, q)
        self.stabiliser_seconds.append(time.perf_counter() - start)
        self.corrections.append(correction)
        return correction

    def settle(self, seconds: float) -> None:
        """Let the robot stand still for ``seconds`` (not logged)."""
        self.robot.step(round(seconds / self.robot.config.timestep))

    def run(
        self,
        schedule: Iterable[tuple[float, Command | None]],
        progress: Callable[[float], None] | None = None,
    ) -> None:
        """Walk ``schedule``: (duration [s], command) pairs in order; logs every tick. A command,
        zero included, is planned ``command_delay`` later, as walk_node plans a ``cmd_vel``;
        ``None`` stops at once, as walk_node's dead-man timeout (:meth:`WalkingPatternGenerator.stop`)."""
        dt = self.generator.config.dt
        substeps = max(round(dt / self.robot.config.timestep), 1)
        for duration, command in schedule:
            if command is None:
                self.generator.stop()
            else:
                self.generator.set_command(*command)
            for _ in range(round(duration / dt)):
                self._tilting()
                start = time.perf_counter()
                tick = self.generator.step()
                self._solve(tick, self._correct(tick))
                self.solve_seconds.append(time.perf_counter() - start)
                self._delayed.append(self.targets.copy())
                while len(self._delayed) > self._latency + 1:
                    self._delayed.popleft()
                self.robot.set_targets(list(self.robot.joint_names), self._delayed[0].tolist())
                self._apply_pushes()
                self.robot.step(substeps)
                positions = dict(zip(self.robot.joint_names, self.robot.joint_state()[0]))
                self.log.add(tick, self.robot.time, self.robot.base_pose(), positions)
            if progress is not None:
                progress(self.robot.time)
