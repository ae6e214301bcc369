"""A URDF robot in MuJoCo: floor, gravity, a position servo on every actuated joint.

The simulated robot is built from the same URDF XML the IK node reads (or its xacro; meshes found
through ``package://``, ``file://`` or relative paths and converted where MuJoCo needs it:
:mod:`ik_solvers.sim.mujoco_urdf`). MuJoCo's URDF importer turns revolute joints into hinges
with their limits; this module adds

- a floor (plane at z = 0) and a light,
- one position actuator per movable joint but the URDF's ``<mimic>`` joints, which are tied to
  the joint they follow (:mod:`ik_solvers.sim.mimic`). ``ideal`` servos: stiffness
  ``kp = effort / saturation_error`` [N m/rad] so that a joint saturates at its URDF effort limit
  when it is ``saturation_error`` [rad] off target (an effort limit above the robot's weight
  times its size is a placeholder, and that ceiling is used instead:
  :func:`~ik_solvers.sim.servo_tuning.effort_ceiling`), and on the joints that carry the robot
  standing at least ``support_stiffness`` times its gravity moment ``m g z_c`` (0 by default:
  off), and ``weak_support_stiffness`` (40) times it when one of their effort limits is below
  ``weak_support_effort`` (0.16) times it (:mod:`~ik_solvers.sim.servo_tuning`: real motor
  torques too small for the weight); damping by ``damping_ratio`` (1 =
  critically damped about the joint's own inertia); force limited to ``effort_scale`` times the
  effort limit. Servo models (``servo_model``: :mod:`ik_solvers.sim.servo_models`): the identified
  stiffness, stall torque, back-EMF and friction, armature and backlash of a real servo. Every
  joint gets at least the armature (reflected rotor inertia) that makes its servo integrate
  stably at the timestep (:mod:`ik_solvers.sim.servo_tuning`). Commands reach the servos
  ``command_latency`` [s] late (:mod:`ik_solvers.sim.servo_commands`), and
  :meth:`MujocoRobot.set_torque` turns every servo off (no force) and on again,
- sole contact: the URDF collision boxes against the floor plane, Coulomb friction ``FLOOR_FRICTION``
  (sliding 1.0, rubber sole on a hard floor; torsional 5 mm; rolling 0.1 mm), elliptic friction
  cones with ``impratio`` 10 (sticking soles do not creep), MuJoCo's default soft contact
  (``solref`` 0.02 s time constant, critically damped: a few mm of penetration under load),
- an IMU site on the maker's IMU link or the torso (:mod:`ik_solvers.sim.imu`) with a gyro, an
  accelerometer and its orientation, sampled every ``1 / imu.rate`` [s] of simulated time,
- fixed base (the root link welded ``base_height`` [m] above the floor) or floating base (a free
  joint: the robot stands on its feet, lowered until its lowest geometry touches the floor).

Every :meth:`MujocoRobot.step` checks the run (:mod:`ik_solvers.sim.stability`) and raises
:class:`~ik_solvers.sim.stability.UnstableSimulation` with the reason instead of letting MuJoCo
reset a blown-up state silently.

It imports without ROS. Units: metres, radians, seconds, N m.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass
from typing import Any

import mujoco
import numpy as np

from ik_solvers.description import RobotDescription, description_from_string, robot_element
from ik_solvers.parameter_rules import Rule, check_fields, rule_field
from ik_solvers.sim.imu import IMU_SITE, ImuConfig, ImuMount, ImuSample, add_imu_site, imu_mount
from ik_solvers.sim.mimic import tie_mimic_joints
from ik_solvers.sim.mujoco_urdf import mujoco_urdf
from ik_solvers.sim.servo_commands import ServoCommands
from ik_solvers.sim.servo_models import ServoModel, joint_servo_models
from ik_solvers.sim.servo_tuning import (
    WEAK_SUPPORT_EFFORT,
    WEAK_SUPPORT_STIFFNESS,
    effective_inertias,
    effort_ceiling,
    geom_bottoms,
    stabilising_armature,
    support_stiffness,
    weak_support,
)
from ik_solvers.sim.stability import StabilityMonitor, UnstableSimulation

FREE_JOINT = "floating_base"
SIM_ROOT = "sim_world"
FLOOR_FRICTION = (1.0, 0.005, 0.0001)
IMPRATIO = 10.0  # friction-to-normal impedance ratio of the elliptic cones (less slip)
__all__ = ["MujocoRobot", "ServoConfig", "UnstableSimulation", "build_spec"]

CHECK_STEPS = 10  # physics steps between two stability checks
IMU_BUFFER = 1000  # IMU samples kept until taken (4 s at 250 Hz)


def _start_up(default: float | bool | str, text: str, unit: str = "", low=None, high=None, **extra) -> Any:
    """A ServoConfig field with its rule (sim_node reads it at start-up only)."""
    return rule_field(Rule(default, text, unit, low, high, start_up_only=True, **extra))


@dataclass(frozen=True)
class ServoConfig:
    """How the joints' position servos and the physics are set up.

    Attributes:
        saturation_error: [rad] position error at which a servo reaches its effort limit.
        support_stiffness: least stiffness of an ideal servo on a joint between the root and the
            feet, over the robot's gravity moment ``m g z_c`` [N m] (0: none).
        weak_support_effort: when an ideal servo between the root and the feet has an effort
            limit below this times ``m g z_c`` (a motor too weak for the weight), those servos get
            at least ``weak_support_stiffness`` times ``m g z_c`` [N m/rad] (0: never;
            :mod:`ik_solvers.sim.servo_tuning`).
        weak_support_stiffness: that least stiffness over ``m g z_c`` [1/rad].
        damping_ratio: servo damping relative to critical damping of the joint's own inertia.
        effort_scale: factor on the URDF effort limits [N m] used as actuator force limits.
        floating_base: True: free root with the feet on the floor; False: root fixed in space.
        base_height: [m] height of the fixed root above the floor (fixed base only).
        self_collision: whether the robot's links collide with each other (always with the floor).
        timestep: [s] physics step.
        servo_model: ``ideal``, a servo model for every joint (``mx106``, ``mx64``, ``xl320``,
            ``xl330``, ``sts3215``) or a YAML file naming them per joint
            (:mod:`ik_solvers.sim.servo_models`).
        command_latency: [s] from a command to the servos (the bus; 0: at once).
        armature: [kg m^2] reflected rotor inertia added to every joint; None: the smallest that
            keeps each servo stable at ``timestep`` (see :mod:`ik_solvers.sim.servo_tuning`).
    """

    saturation_error: float = _start_up(
        0.02,
        "position error at which an ideal servo reaches its effort limit",
        "rad",
        0.0,
        1.0,
        low_open=True,
    )
    support_stiffness: float = _start_up(
        0.0,
        "least stiffness of the ideal servos between the root and the feet, over the robot's "
        "gravity moment m g z_c (0: none)",
        "1/rad",
        0.0,
        1000.0,
    )
    weak_support_effort: float = _start_up(
        WEAK_SUPPORT_EFFORT,
        "an ideal servo between the root and the feet whose effort limit is below this times the "
        "robot's gravity moment m g z_c makes them all at least weak_support_stiffness m g z_c "
        "stiff (0: never)",
        "",
        0.0,
        100.0,
    )
    weak_support_stiffness: float = _start_up(
        WEAK_SUPPORT_STIFFNESS,
        "least stiffness of the servos between the root and the feet of a robot with a weak one, "
        "over m g z_c",
        "1/rad",
        0.0,
        1000.0,
    )
    damping_ratio: float = _start_up(1.0, "servo damping / critical damping", "", 0.0, 100.0)
    effort_scale: float = _start_up(1.0, "factor on the URDF effort limits", "", 0.0, 100.0, low_open=True)
    floating_base: bool = _start_up(False, "free root standing on the floor (false: root fixed)")
    base_height: float = _start_up(1.0, "height of the fixed root above the floor", "m", 0.0, 100.0)
    self_collision: bool = _start_up(False, "the robot's links collide with each other")
    timestep: float = _start_up(0.002, "physics step", "s", 1e-4, 0.05)
    servo_model: str = _start_up(
        "ideal", "ideal, a servo model, or a YAML file of them per joint", non_empty=True
    )
    command_latency: float = _start_up(0.0, "delay from a command to the servos", "s", 0.0, 0.5)
    armature: float | None = None

    def __post_init__(self) -> None:
        check_fields(self)
        if self.armature is not None and not (math.isfinite(self.armature) and self.armature >= 0.0):
            raise ValueError(
                f"armature must be None (from the model) or finite and >= 0, got {self.armature}"
            )


def robot_description(description: str | RobotDescription) -> RobotDescription:
    """``description`` as a :class:`RobotDescription`; text may be URDF or xacro (its
    ``package://`` meshes are then found through the ament index only)."""
    if isinstance(description, RobotDescription):
        return description
    return description_from_string(description)


def build_spec(
    description: str | RobotDescription,
    config: ServoConfig,
    models: dict[str, ServoModel | None] | None = None,
) -> mujoco.MjSpec:
    """MjSpec of the URDF robot with floor, light and position servos; see the module docstring.

    Args:
        description: the robot: URDF or xacro text, or a loaded description (meshes found
            through it: ``package://``, ``file://``, relative to its file).
        config: servos, physics and base.
        models: each joint's servo model (None: ideal); default: from ``config.servo_model``.

    Raises:
        DescriptionError: the description does not parse, or a mesh is missing (named).
        ValueError: ``config.servo_model`` names an unknown model or joint (the message says).
    """
    return _build(robot_description(description), config, models)[0]


def _build(
    description: RobotDescription, config: ServoConfig, models: dict[str, ServoModel | None] | None
) -> tuple[mujoco.MjSpec, ImuMount]:
    """The MjSpec (see :func:`build_spec`) and where its IMU sits."""
    height = 0.0 if config.floating_base else config.base_height
    xml, assets, _ = mujoco_urdf(description, SIM_ROOT, FREE_JOINT, config.floating_base, height)
    spec = mujoco.MjSpec.from_string(xml, assets=assets)
    spec.option.integrator = mujoco.mjtIntegrator.mjINT_IMPLICITFAST
    spec.option.timestep = config.timestep
    spec.option.gravity = (0.0, 0.0, -9.81)
    spec.option.cone = mujoco.mjtCone.mjCONE_ELLIPTIC
    spec.option.impratio = IMPRATIO
    floor = spec.worldbody.add_geom()
    floor.name, floor.type, floor.size = "floor", mujoco.mjtGeom.mjGEOM_PLANE, (0.0, 0.0, 0.05)
    floor.friction = FLOOR_FRICTION
    floor.rgba = (0.75, 0.8, 0.85, 1.0)
    if not config.self_collision:  # robot geoms touch the floor only: contype 1 & floor conaffinity 1
        for geom in spec.geoms:
            geom.contype, geom.conaffinity = (0, 1) if geom.name == "floor" else (1, 0)
    light = spec.worldbody.add_light()
    light.pos, light.dir = (0.0, 0.0, 3.0), (0.0, 0.0, -1.0)
    robot = robot_element(description.xml)
    tied = tie_mimic_joints(spec, robot)
    movable = (mujoco.mjtJoint.mjJNT_HINGE, mujoco.mjtJoint.mjJNT_SLIDE)
    servoed = [j for j in spec.joints if j.type in movable and j.name not in tied]
    if models is None:
        models = joint_servo_models(config.servo_model, [j.name for j in servoed])
    bare = spec.copy().compile()  # compiling may fuse static bodies into the spec itself
    bare_data = mujoco.MjData(bare)
    ceiling = effort_ceiling(bare, bare_data)
    floors = _support_floors(
        bare, bare_data, config, ceiling, [j for j in servoed if models.get(j.name) is None]
    )
    for joint in servoed:
        _add_servo(spec, joint, config, models.get(joint.name), (ceiling, floors.get(joint.name, 0.0)))
    mount = imu_mount(robot, lambda link: spec.body(link) is not None)
    add_imu_site(spec, mount, IMU_SITE)
    _set_armature(spec, servoed, config)
    return spec, mount


def _support_floors(
    bare: mujoco.MjModel, data: mujoco.MjData, config: ServoConfig, ceiling: float, ideal: list
) -> dict[str, float]:
    """Least stiffness [N m/rad] of the servos between the root and the feet, by joint name:
    ``config.support_stiffness`` times ``m g z_c``, raised to ``config.weak_support_stiffness``
    times it when one of the ``ideal`` servos among them has an effort limit (at most ``ceiling``
    [N m]) below ``config.weak_support_effort`` times it (:func:`weak_support`)."""
    gravity = support_stiffness(bare, data, 1.0)  # m g z_c [N m] on each support joint
    efforts = {j.name: _ideal_effort(j, ceiling) for j in ideal if j.name in gravity}
    ratio = config.support_stiffness
    if weak_support(efforts, gravity, config.weak_support_effort):
        ratio = max(ratio, config.weak_support_stiffness)
    return {name: ratio * moment for name, moment in gravity.items()} if ratio > 0.0 else {}


def _ideal_effort(joint, ceiling: float) -> float:
    """[N m] an ideal servo's effort limit: ``joint``'s URDF one, at most ``ceiling`` (a larger
    one is a placeholder, see :func:`effort_ceiling`).

    Raises:
        ValueError: the joint has no effort limit.
    """
    effort = float(joint.actfrcrange[1]) if joint.actfrclimited else math.inf
    if not math.isfinite(effort) or effort <= 0.0:
        raise ValueError(f"joint '{joint.name}' has no effort limit in the URDF; a servo needs one")
    return min(effort, ceiling)


def _set_armature(spec: mujoco.MjSpec, joints: list, config: ServoConfig) -> None:
    """Each servoed joint's armature: ``config.armature``, or the stabilising one from the model
    added to the servo model's own."""
    if config.armature is not None:
        for joint in joints:
            joint.armature = config.armature
        return
    model = spec.compile()
    data = mujoco.MjData(model)
    dofs = np.array([model.jnt_dofadr[model.joint(j.name).id] for j in joints])
    stiffness = np.array([float(model.actuator(j.name).gainprm[0]) for j in joints])
    inertia = effective_inertias(model, data, dofs)  # the servo model's armature included
    added = stabilising_armature(stiffness, inertia, config.timestep)
    for joint, armature in zip(joints, added):
        joint.armature = float(joint.armature) + float(armature)


def _add_servo(
    spec: mujoco.MjSpec,
    joint,
    config: ServoConfig,
    model: ServoModel | None,
    bounds: tuple[float, float],
) -> None:
    """A position actuator on ``joint``: ideal (gains and force limit from its URDF effort limit,
    at most ``bounds[0]`` [N m]: a larger one is a placeholder, see :func:`effort_ceiling`; its
    stiffness at least ``bounds[1]`` [N m/rad], see :func:`support_stiffness`) or as the servo
    ``model`` behaves (module docstring)."""
    actuator = spec.add_actuator()
    actuator.name, actuator.target = joint.name, joint.name
    actuator.trntype = mujoco.mjtTrn.mjTRN_JOINT
    actuator.forcelimited = True
    if model is not None:
        actuator.set_to_position(kp=model.stiffness)
        actuator.forcerange = (-model.stall_torque, model.stall_torque)
        joint.damping = (model.damping, 0.0, 0.0)  # linear damping; MuJoCo 4 also takes higher orders
        joint.frictionloss, joint.armature = model.friction, model.armature
        joint.actfrclimited = False
        return
    ceiling, least_stiffness = bounds
    effort = _ideal_effort(joint, ceiling)
    stiffness = max(effort / config.saturation_error, least_stiffness)
    actuator.set_to_position(kp=stiffness, dampratio=config.damping_ratio)
    actuator.forcerange = (-effort * config.effort_scale, effort * config.effort_scale)
    joint.actfrclimited = False  # the actuator's own force limit applies


class MujocoRobot:
    """A compiled MuJoCo model and its state, addressed by URDF joint names.

    Attributes:
        joint_names: the actuated joints, in URDF order.
        lower, upper: (n,) joint limits [rad or m].
        servo_models: each joint's servo model (None: ideal).
        imu_frame: the URDF link the IMU measures in.
        imu_samples: IMU readings taken every ``1 / imu.rate`` of simulated time while stepping,
            oldest first, until the caller takes them (:meth:`take_imu_samples`; the latest
            ``IMU_BUFFER`` are kept).
    """

    def __init__(
        self,
        description: str | RobotDescription,
        config: ServoConfig | None = None,
        imu: ImuConfig | None = None,
    ) -> None:
        """Compile the robot; ``description`` as in :func:`build_spec`.

        Raises:
            ValueError: ``config.servo_model`` names an unknown model or joint.
        """
        self.config = config or ServoConfig()
        description = robot_description(description)
        servoed = _actuated_joints(description)
        self.servo_models = joint_servo_models(self.config.servo_model, servoed)
        spec, mount = _build(description, self.config, self.servo_models)
        self.model = spec.compile()
        self.data = mujoco.MjData(self.model)
        self.imu_frame = mount.frame
        self.imu_steps = max(1, round(1.0 / ((imu or ImuConfig()).rate * self.config.timestep)))
        self.imu_samples: deque[ImuSample] = deque(maxlen=IMU_BUFFER)
        self._steps = 0  # physics steps since the last reset
        self._gains = (self.model.actuator_gainprm.copy(), self.model.actuator_biasprm.copy())
        self.joint_names: tuple[str, ...] = tuple(self.model.actuator(i).name for i in range(self.model.nu))
        backlash = [getattr(self.servo_models.get(name), "backlash", 0.0) for name in self.joint_names]
        self.commands = ServoCommands(np.zeros(len(self.joint_names)), self.config.command_latency, backlash)
        joint_ids = [self.model.joint(name).id for name in self.joint_names]
        self._qpos = np.array([self.model.jnt_qposadr[j] for j in joint_ids])
        self._qvel = np.array([self.model.jnt_dofadr[j] for j in joint_ids])
        self.lower = self.model.jnt_range[joint_ids, 0].copy()
        self.upper = self.model.jnt_range[joint_ids, 1].copy()
        self._index = {name: i for i, name in enumerate(self.joint_names)}
        self.monitor = StabilityMonitor(self.model, self.data)
        self.reset(np.clip(np.zeros(len(self.joint_names)), self.lower, self.upper))

    @property
    def time(self) -> float:
        """Simulated time [s]."""
        return float(self.data.time)

    def reset(self, positions: np.ndarray, base: np.ndarray | None = None) -> None:
        """Put the joints at ``positions`` (n,) [rad], at rest, servos holding them.

        With a floating base the torso goes to ``base`` (x, y, z, qw, qx, qy, qz) [m] in the
        world, or, when None, upright and lowered until the lowest geometry rests on the floor.
        """
        mujoco.mj_resetData(self.model, self.data)
        self.data.qpos[self._qpos] = positions
        self.data.ctrl[:] = positions
        self.commands.reset(positions)
        self.imu_samples.clear()
        self._steps = 0
        if self.config.floating_base and base is not None:
            self.data.qpos[:7] = base
        elif self.config.floating_base:
            self._place_on_floor()
        mujoco.mj_forward(self.model, self.data)
        self.monitor.reset()

    def _place_on_floor(self) -> None:
        """Shift the free joint's height so that the lowest robot geometry touches z = 0."""
        self.data.qpos[:7] = (0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0)
        mujoco.mj_forward(self.model, self.data)
        floor = self.model.geom("floor").id
        geoms = [g for g in range(self.model.ngeom) if g != floor]
        if not geoms:
            raise ValueError(
                "a floating base needs collision geometry to stand on the floor, and the robot has none: "
                "add <collision> elements to its links, or simulate it with a fixed base"
            )
        lowest = float(geom_bottoms(self.model, self.data)[geoms].min())
        self.data.qpos[2] = -lowest

    def set_targets(self, names: list[str], positions: list[float]) -> list[str]:
        """Command the named joints to ``positions`` [rad], clipped to their limits.

        Returns:
            the names that are not actuated joints of this robot (their commands are ignored).
        """
        unknown = [name for name in names if name not in self._index]
        targets = self.commands.sent.copy()
        for name, position in zip(names, positions):
            i = self._index.get(name)
            if i is not None and math.isfinite(position):
                targets[i] = min(max(position, self.lower[i]), self.upper[i])
        self.commands.send(self.time, targets)
        if not self.commands.every_step:
            self.data.ctrl[:] = targets
        return unknown

    def set_torque(self, enabled: bool) -> None:
        """Servos on (as built) or off: no actuator force at all (the joints' friction, damping
        and armature stay, as a switched-off servo's gears and motor do)."""
        gains, biases = self._gains
        self.model.actuator_gainprm[:] = gains if enabled else 0.0
        self.model.actuator_biasprm[:] = biases if enabled else 0.0

    @property
    def torque_enabled(self) -> bool:
        """Whether the servos are on (:meth:`set_torque`)."""
        return bool(np.any(self.model.actuator_gainprm[:, 0] != 0.0)) or self.model.nu == 0

    def step(self, count: int = 1) -> None:
        """Advance the physics by ``count`` time steps, checking the run every CHECK_STEPS.

        Raises:
            UnstableSimulation: the physics diverged (the message says how and what to change).
        """
        hint = (
            f"try a smaller timestep (now {self.config.timestep:g} s) or a larger "
            f"saturation_error (now {self.config.saturation_error:g} rad)"
        )
        since = self.time
        while count > 0:
            chunk = 1 if self.commands.every_step else min(count, self._steps_to_event())
            if self.commands.every_step:
                self.data.ctrl[:] = self.commands.control(self.time, self.data.qpos[self._qpos])
            mujoco.mj_step(self.model, self.data, nstep=chunk)
            count -= chunk
            self._steps += chunk
            if self._steps % CHECK_STEPS == 0 or count == 0:
                self.monitor.check(since, hint)
                since = self.time
            if self._steps % self.imu_steps == 0:  # MuJoCo's sensors read the state before the last step
                self.imu_samples.append(ImuSample(self.time - self.config.timestep, *self.imu()))

    def _steps_to_event(self) -> int:
        """Physics steps to the next stability check or IMU sample."""
        return min(CHECK_STEPS - self._steps % CHECK_STEPS, self.imu_steps - self._steps % self.imu_steps)

    def take_imu_samples(self) -> list[ImuSample]:
        """The IMU samples taken since the last call, oldest first (and forget them)."""
        samples = list(self.imu_samples)
        self.imu_samples.clear()
        return samples

    def imu(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The IMU (in :attr:`imu_frame`) now: orientation (4,) quaternion (w, x, y, z) in the world, angular
        velocity (3,) [rad/s] and specific force (3,) [m/s^2] (gravity reaction included: +9.81 up
        at rest), both in the root link's frame."""
        return (
            self.data.sensor("imu_orientation").data.copy(),
            self.data.sensor("imu_gyro").data.copy(),
            self.data.sensor("imu_accelerometer").data.copy(),
        )

    def joint_state(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(positions [rad], velocities [rad/s], actuator efforts [N m]), each (n,)."""
        return (
            self.data.qpos[self._qpos].copy(),
            self.data.qvel[self._qvel].copy(),
            self.data.actuator_force.copy(),
        )

    def base_pose(self) -> np.ndarray:
        """(7,) root position [m] and orientation quaternion (w, x, y, z) in the world."""
        if self.config.floating_base:
            return self.data.qpos[:7].copy()
        return np.array([0.0, 0.0, self.config.base_height, 1.0, 0.0, 0.0, 0.0])


def _actuated_joints(description: RobotDescription) -> list[str]:
    """The URDF's movable joints (revolute, continuous, prismatic): those that get a servo."""
    robot = robot_element(description.xml)
    return [
        j.get("name")
        for j in robot.findall("joint")
        if j.get("type") in ("revolute", "continuous", "prismatic")
    ]
