"""The main demo: the robot stands free on the MuJoCo floor, balances, walks, then moves its arms.

Children: ``sim_node`` (floating base), ``ik_node`` (the four chains and its whole-body interface)
and, once the posture phases are done, ``walk_node`` — all on the same URDF (``--urdf``, default
the packaged humanoid), handed over in a parameter file. The simulator runs lock-stepped
(``lock_step:=true``, one walk_node period per command) and every other node on its ``/clock``
(``use_sim_time:=true``), so that a process the busy machine pauses pauses the simulated world
too instead of leaving the servo targets frozen while the robot moves on. Part one
(:func:`~ik_solvers.demo.walk_run.run_walk`): stand, squat, shift the weight, lift each foot, walk
(closed loop: :data:`CLOSED_LOOP`) forward 1 m, turn 90° in place, sidestep 0.3 m, stop. Part two, standing (walk_node holds the
legs): both arms trace their circles on the geometric solver, then on the Jacobian solver, as in
the fixed-base demo. Prints the walking table and the arms' table; writes figures and
``results.json`` (its ``walk`` section: :class:`~ik_solvers.walk.walk_metrics.WalkMetrics`).
"""

from __future__ import annotations

import json
import sys
from dataclasses import asdict, replace
from pathlib import Path

import numpy as np
import yaml

from ik_solvers import RobotModel
from ik_solvers.demo import servo_bus, walk_report
from ik_solvers.demo.metrics import format_table
from ik_solvers.demo.processes import Children
from ik_solvers.demo.run import run_motion
from ik_solvers.demo.trajectories import DemoTrajectories
from ik_solvers.demo.walk_run import run_walk
from ik_solvers.demo.walk_timeline import PostureTimeline, walk_commands
from ik_solvers.resources import package_share_path
from ik_solvers.sim.lock_step import WALK_TIMEOUT
from ik_solvers.sim.mujoco_robot import ServoConfig
from ik_solvers.walk.config import load_walk_config
from ik_solvers.walk.walk_log import WalkLog
from ik_solvers.whole_body import StanceSolver, WalkingPatternGenerator

CLOSED_LOOP = {"stabilise": True, "com_feedback_gain": 0.15}  # walk.yaml's fields the demo overrides
# (not with --open-loop): the stabiliser on, its CoM feedback below walk.yaml's 0.5, with which the
# realistic servos' lag and play in the loop tipped the robot over (docs/walking.md "The demo walks
# closed loop")
SIM_TIME = ("-p", "use_sim_time:=true")  # the nodes beside the lock-stepped simulator run on its /clock
SIM_REPORT_PERIOD = 2.0  # [s] between the simulator's real-time factor reports
REFERENCE_JOINT_SPEED = 4.8  # [rad/s] the packaged humanoid's leg servos (URDF), whose walk needs up
# to 3.6 rad/s at a swinging knee; other robots: scaled as the walk's durations (velocity_fraction)


class ArmsOnly:
    """The demo's trajectories without the legs (walk_node holds them)."""

    def __init__(self, trajectories: DemoTrajectories) -> None:
        self.inner, self.arms = trajectories, trajectories.arms
        self.phase, self.duration = trajectories.phase, trajectories.duration

    def sample(self, times: np.ndarray) -> dict:
        everything = self.inner.sample(times)
        return {name: everything[name] for name in self.arms}

    def settled(self, times: np.ndarray, since: float = 0.3) -> np.ndarray:
        return self.inner.settled(times, since)


def velocity_fraction(legs, generator: WalkingPatternGenerator, config) -> float:
    """ik_node's ``max_velocity_fraction`` for the demo: each joint at its URDF velocity limit,
    but the legs no faster than REFERENCE_JOINT_SPEED, times √(timing_com_height / z_c) on a
    robot whose walk is faster (docs/your-robot.md): what this robot's walk needs with room to
    spare. A description whose limits are placeholders (the OP3's: 100 rad/s, 1000 N m) would
    otherwise let the first stance command jump the joints, and the simulated servos with them."""
    fastest = max(float(chain.velocity_limits.max()) for chain in legs)
    scale = 1.0  # a larger robot's slower walk keeps the reference speed
    if config.timing_com_height > 0.0:
        scale = max(1.0, float(np.sqrt(config.timing_com_height / generator.geometry.com_height)))
    return min(1.0, REFERENCE_JOINT_SPEED * scale / fastest)


def _leg_joints(legs) -> list[str]:
    """The legs' joint names (their commands identify a goal on the bus)."""
    return [name for chain in legs for name in chain.joint_names]


def parameter_file(urdf: str, folder: Path) -> Path:
    """A ROS parameter file giving every node the URDF as robot_description."""
    path = folder / "robot_description.yaml"
    path.write_text(yaml.safe_dump({"/**": {"ros__parameters": {"robot_description": urdf}}}))
    return path


def add_options(parser) -> None:
    """``--servo-model`` and ``--command-latency``: how the simulated servos behave; ``--walk-config``:
    walk_node's parameter file; ``--open-loop``: the packaged one without :data:`CLOSED_LOOP`."""
    parser.add_argument(
        "--walk-config",
        type=Path,
        default=None,
        help="walk_node's parameter file (default: the packaged config/walk.yaml, closed loop "
        "unless --open-loop; "
        "config/walk_fast.yaml: the fast gait, stabiliser on)",
    )
    parser.add_argument(
        "--open-loop",
        action="store_true",
        help="walk on the packaged config/walk.yaml as it is (stabiliser off); default: its stabiliser "
        "on, CoM feedback gain 0.15 (a --walk-config file is always taken as it is)",
    )
    parser.add_argument(
        "--servo-model",
        default=None,
        help="the simulated servos: ideal, a model (mx106, mx64, xl320, xl330, sts3215) or a YAML file "
        "of them per joint (docs/simulation.md); ik_node compensates their deflection. Default: the "
        "packaged robot walks on config/servos/humanoid_servo_models.yaml (MX-106 legs), "
        "a robot of --urdf and the fixed-base programme on ideal servos",
    )
    parser.add_argument(
        "--command-latency", type=float, default=0.0, help="delay from a command to the servos [s] (the bus)"
    )


def default_servo_model(options) -> str:
    """``--servo-model`` as given, else the demo's default: the packaged robot's realistic servos
    when it walks (its own URDF, free-standing), ``ideal`` for a robot of ``--urdf`` (whose joints
    the packaged servo file does not name) and on a fixed base."""
    if options.servo_model is not None:
        return options.servo_model
    if options.urdf is None and not options.fixed_base:
        return str(package_share_path("config", "servos", "humanoid_servo_models.yaml"))
    return "ideal"


def closed_loop_overrides(options) -> dict:
    """walk.yaml's fields the demo changes: :data:`CLOSED_LOOP` with the packaged walk.yaml, none
    with ``--open-loop`` or a ``--walk-config`` file (taken as it is)."""
    if options.walk_config is not None or options.open_loop:
        return {}
    return dict(CLOSED_LOOP)


def lock_step_sim_arguments(control_period: float, lock_step_timeout: float = WALK_TIMEOUT) -> list[str]:
    """sim_node's parameters for a free-standing robot lock-stepped to walk_node: a floating base;
    the physics runs one ``control_period`` [s] (walk_node's) once the controllers have answered it,
    or after ``lock_step_timeout`` [s] of wall time without an answer."""
    return [
        "-p",
        "floating_base:=true",
        "-p",
        "lock_step:=true",
        "-p",
        f"control_period:={control_period!r}",
        "-p",
        f"lock_step_timeout:={lock_step_timeout!r}",
    ]


def servo_parameters(options) -> list[str]:
    """sim_node parameters of the ``--servo-model`` and ``--command-latency`` options."""
    return [
        "-p",
        f"servo_model:={options.servo_model}",
        "-p",
        f"command_latency:={options.command_latency!r}",
    ]


def sim_node_arguments(options, robot: list[str], control_period: float, bus: servo_bus.WalkBus) -> list[str]:
    """sim_node's command line: the ``robot`` parameter file, a floating base lock-stepped to
    walk_node's ``control_period`` [s] and paced by its ZMP (the arms' commands alone never run a
    period), real-time factor reports, the servo options and the bus's remaps."""
    return [
        "--ros-args",
        *robot,
        *lock_step_sim_arguments(control_period),
        "-p",
        f"report_period:={SIM_REPORT_PERIOD}",
        "-p",
        "lock_step_pace:=/walk_node/zmp",
        *servo_parameters(options),
        *bus.sim_parameters,
    ]


def whole_body_ik_parameters(options, robot: list[str], fraction: float) -> list[str]:
    """ik_node's parameters beside its chains' (``ik_node_arguments``): the ``robot`` parameter
    file, simulated time, the ``--servo-model`` its whole-body solve expects and its velocity limit
    ``fraction`` (:func:`velocity_fraction`)."""
    return [
        *robot,
        *SIM_TIME,
        "-p",
        f"whole_body.servo_model:={options.servo_model}",
        "-p",
        f"max_velocity_fraction:={fraction:.6g}",
    ]


def walk_node_arguments(
    walk_yaml: Path, robot: list[str], bus: servo_bus.WalkBus, overrides: dict
) -> list[str]:
    """walk_node's command line: the ``walk_yaml`` file, the ``robot`` parameter file, simulated
    time, falls handled through the simulator (its torque service and IMU), the bus's parameters,
    then ``overrides`` of the walk file's fields (after the file: these win)."""
    falls = ["-p", "fall.torque_service:=/sim_node/set_torque", "-r", "imu:=/sim_node/imu"]
    arguments = [
        "--ros-args",
        "--params-file",
        str(walk_yaml),
        *robot,
        *SIM_TIME,
        *falls,
        *bus.walk_parameters,
    ]
    for name, value in overrides.items():
        arguments += ["-p", f"walk.{name}:={str(value).lower()}"]
    return arguments


def run(options, urdf: str, model: RobotModel, ik_node_arguments: list[str], ik_node: str, table_rows) -> int:
    """The free-standing demo (see the module docstring) of the robot ``urdf`` (XML), whose
    ``model`` has its sole frames (:func:`ik_solvers.limbs.find_body`); 0 on success, 1 when the
    pipeline fails."""
    output = options.output.resolve()
    walk_yaml = (options.walk_config or package_share_path("config", "walk.yaml")).resolve()
    overrides = closed_loop_overrides(options)
    config = replace(load_walk_config(walk_yaml), **overrides)
    stance = StanceSolver(model)
    generator = WalkingPatternGenerator(model, config, stance=stance)
    timeline, commands = PostureTimeline(generator, stance), walk_commands(generator)
    if options.walk_only:
        commands = commands[:2]  # forward, then the pause
    arms = {
        name: model.chain(*ends) for name, ends in options.chains.items() if name in ("left_arm", "right_arm")
    }
    legs = {name: model.chain(*ends) for name, ends in options.chains.items() if name not in arms}
    trajectories = ArmsOnly(DemoTrajectories(model, legs, arms, phase=options.duration / 2))
    parameters = parameter_file(urdf, output / "logs")
    children = Children(output / "logs")
    bus = servo_bus.WalkBus(options.servo_bus, output, _leg_joints(legs.values()), config.dt)
    walk_seconds = sum(c.duration for c in commands)
    posture_seconds = 0.0 if options.walk_only else timeline.DURATION
    print(
        f"ik_demo: free-standing {model.name}: {posture_seconds:g} s of postures, {walk_seconds:.0f} s of "
        f"walking, {options.duration:g} s of arm motion; servos: {options.servo_model}; figures and logs "
        f"go to {output}",
        flush=True,
    )
    robot = ["--params-file", str(parameters)]
    walk_node = walk_node_arguments(walk_yaml, robot, bus, overrides)
    try:
        children.start("sim_node", *sim_node_arguments(options, robot, config.dt, bus))
        bus.start(children)
        fraction = velocity_fraction(legs.values(), generator, config)
        children.start(ik_node, *ik_node_arguments, *whole_body_ik_parameters(options, robot, fraction))
        walk = run_walk(
            WalkLog.for_walk(stance, generator.geometry),
            timeline,
            commands,
            lambda: children.start("walk_node", *walk_node),
            children.check_running,
            postures=not options.walk_only,
            measured_states=bus.measured_states,
            attach=bus.attach,
        )
        print("  arms: circles, geometric then jacobian solver (walk_node holds the legs)", flush=True)
        arm_run = run_motion(arms, trajectories, options.rate, children, ik_node, sim_time=True)
    except (RuntimeError, TimeoutError) as error:
        print(f"ik_demo: failed: {error}", file=sys.stderr)
        return 1
    finally:
        children.stop_all()
    metrics = walk_report.walk_metrics(walk)
    rows = table_rows(arm_run, trajectories)
    postures = () if options.walk_only else ("stance", "squat", "right lifted")
    moments = [(name, timeline.moment(name)) for name in postures]
    figures = _figures(walk, arm_run, trajectories, urdf, moments, output)
    print(walk_report.format_walk_table(metrics))
    print()
    print(format_table(rows))
    print(f"\nfigures in {output}:")
    for figure in figures:
        print(f"  {figure.name}")
    results = {
        "rows": [asdict(row) for row in rows],
        "figures": [str(f) for f in figures],
        "switch_time": arm_run.switch_time,
        "second_solver": arm_run.second_solver,
        "wall_time": walk.wall_time + arm_run.wall_time,
        "walk": asdict(metrics),
    }
    bus.report(results)
    (output / "results.json").write_text(json.dumps(results, indent=2, allow_nan=True))
    return 0


def _figures(walk, arm_run, trajectories: ArmsOnly, urdf: str, moments: list, output: Path) -> list[Path]:
    """Top view, filmstrip and GIF of the walk; the arms' tip paths and joint angles.

    ``moments``: [(caption, t [s] from the start of the posture phases)] for the filmstrip.
    """
    from ik_solvers.demo import report

    servo = ServoConfig(floating_base=True)
    figures = [walk_report.top_view(walk, output / "walk_top_view.png")]
    posture_start = walk.stretch("posture")[0]
    moments = [(name, posture_start + t) for name, t in moments]
    walked = {name for name, _, _ in walk.stretches}
    for name in [name for name in ("forward", "turn", "sidestep") if name in walked]:
        start, end = walk.stretch(name)
        moments.append((name, 0.5 * (start + end)))
    moments.append(("stopped", walk.stretches[-1][2] - 0.5))
    path, how = walk_report.filmstrip(walk, urdf, servo, moments, output / "walk_filmstrip.png")
    print(f"robot pictures: {how}")
    figures.append(path)
    gif = walk_report.animation(
        walk, urdf, servo, walk.stretch("forward")[0], walk.stretches[-1][2], output / "walk.gif"
    )
    if gif is not None:
        figures.append(gif)
    recording = arm_run.recording
    target_at = {name: (lambda times, n=name: trajectories.sample(times)[n][0]) for name in recording.chains}
    figures.append(report.tip_paths(recording, target_at, output / "tip_paths.png"))
    for name in recording.chains:
        figures.append(
            report.joint_angles(recording, name, arm_run.switch_time, output / f"joints_{name}.png")
        )
    return figures
