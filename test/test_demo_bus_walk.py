"""The free-standing walk through the servo bus, as ``ik_demo --servo-bus`` wires it, kept short:
walk_node -> ik_node -> servo_bridge -> bytes over a real pty -> servo_bus_emulator -> sim_node
(MuJoCo, lock-stepped: a period per bus write) -> bytes -> servo_bridge. All real processes on
real DDS; no posture phases and no arms (``test_demo_servo_bus.py`` runs the fixed-base programme
through the bus, ``test_demo_walk.py`` the whole walk without it).

The demo's own pieces start and record it (:class:`~ik_solvers.demo.servo_bus.WalkBus`,
:func:`~ik_solvers.demo.walk_run.run_walk`, walk_node's command line from
:func:`~ik_solvers.demo.free_standing.walk_node_arguments`: closed loop, the bus's sample age and
torso level filter): the stance, then 6 s of walking forward, on the demo's default servos (the
packaged robot's realistic ones, compensated by ik_node).
"""

from __future__ import annotations

import pytest

pytest.importorskip("rclpy")
pytest.importorskip("mujoco")

from ik_solvers import RobotModel
from ik_solvers.demo import free_standing, servo_bus
from ik_solvers.demo.bus_latency import bus_latency
from ik_solvers.demo.processes import Children
from ik_solvers.demo.walk_run import run_walk
from ik_solvers.demo.walk_timeline import PostureTimeline, WalkCommand
from ik_solvers.limbs import find_body
from ik_solvers.resources import package_share_path
from ik_solvers.walk import walk_metrics as wm
from ik_solvers.walk.config import load_walk_config
from ik_solvers.walk.walk_log import WalkLog
from ik_solvers.whole_body import StanceSolver, WalkingPatternGenerator

WALK = 6.0  # [s] of simulated walking: the weight shift and three steps at the demo's speed
FORWARD = 0.06  # [m/s], the demo's forward command is 0.055-0.06
SERVOS = package_share_path("config", "servos", "humanoid_servo_models.yaml")  # the demo's default


@pytest.fixture(scope="module")
def bus_walk(tmp_path_factory):
    """(the walk's log, the latency summary) of a short forward walk through the Dynamixel bus."""
    output = tmp_path_factory.mktemp("bus_walk")
    (output / "logs").mkdir()
    urdf = package_share_path("urdf", "humanoid.urdf").read_text()
    body = find_body(RobotModel.from_urdf_string(urdf))
    model, config = body.model, load_walk_config()
    stance = StanceSolver(model)
    generator = WalkingPatternGenerator(model, config, stance=stance)
    legs = [model.chain(*body.chains[name]) for name in ("left_leg", "right_leg")]
    bus = servo_bus.WalkBus("dynamixel", output, free_standing._leg_joints(legs), config.dt)
    robot = ["--params-file", str(free_standing.parameter_file(urdf, output / "logs"))]
    sim_time = ["-p", "use_sim_time:=true"]
    children = Children(output / "logs")
    try:
        children.start(
            "sim_node",
            "--ros-args",
            *robot,
            *free_standing.lock_step_sim_arguments(config.dt),
            *bus.sim_parameters,
            "-p",
            f"servo_model:={SERVOS}",
        )
        bus.start(children)
        chains = [
            a
            for name, (base, tip) in body.chains.items()
            for a in ("-p", f"chains.{name}.base_link:={base}", "-p", f"chains.{name}.tip_link:={tip}")
        ]
        children.start(
            "ik_node",
            "--ros-args",
            *robot,
            *sim_time,
            "-p",
            f"chain_names:=[{','.join(body.chains)}]",
            *chains,
            "-p",
            f"whole_body.servo_model:={SERVOS}",
        )
        walk_yaml = package_share_path("config", "walk.yaml")
        # closed loop as the demo walks, with the bus's sample age and torso level filter
        walk_node = free_standing.walk_node_arguments(walk_yaml, robot, bus, free_standing.CLOSED_LOOP)
        run = run_walk(
            WalkLog.for_walk(stance, generator.geometry),
            PostureTimeline(generator, stance),
            [WalkCommand("forward", WALK, (FORWARD, 0.0, 0.0))],
            lambda: children.start("walk_node", *walk_node),
            children.check_running,
            postures=False,
            measured_states=bus.measured_states,
            attach=bus.attach,
        )
    finally:
        children.stop_all()
    return run, bus_latency(bus.recorder, config.dt)


def test_the_robot_walks_forward_through_the_bus_without_falling(bus_walk):
    run, _ = bus_walk
    start, end = run.stretch("forward")
    measured = run.log.measured()
    times, bases = measured["times"], measured["base"]
    walking = (times >= start) & (times <= end)
    assert walking.sum() > 100, "the simulator's states did not reach the walk's log"
    advanced = bases[walking][-1, 0] - bases[walking][0, 0]
    assert advanced > 0.3 * FORWARD * WALK, f"the torso moved {advanced:.3f} m forward in {WALK:g} s"
    assert wm.tilt_degrees(bases[walking]).max() < 10.0  # a fall tilts it far more


def test_the_commands_reach_the_simulated_servos_through_the_bus(bus_walk):
    _, latency = bus_walk
    assert latency["matched"] > 50, latency  # goals the bus wrote carried ik_node's commands
    assert 0 <= latency["periods_p50"] <= 5, latency
