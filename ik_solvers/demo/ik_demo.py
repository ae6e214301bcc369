"""ik_demo: the simulated humanoid driven by the IK node, end to end over real DDS.

By default the robot stands free on the floor, balances, walks, turns and sidesteps through
``walk_node`` and ik_node's whole-body interface, then moves its arms
(:mod:`ik_solvers.demo.free_standing`). With ``--fixed-base``: starts ``sim_node`` (MuJoCo) and
``ik_node`` as child processes and runs a target generator in this process; the torso hangs just
above the floor, the legs squat, then step in place; both arms trace circles with an elbow-down
pole on the geometric solver, then on the Jacobian solver after a run-time parameter change. At the
end it prints a results table per chain and writes PNG figures (and ``results.json``) to the
output folder. Run with ``make demo`` or
``ik_demo [--fixed-base | --walk-only] [--servo-bus dynamixel|feetech] [--urdf FILE
[--drop-missing-meshes]] [--duration S | --quick] [--output DIR]``; with ``--servo-bus`` the
commands go through servo_bridge and an emulated servo bus (:mod:`ik_solvers.demo.servo_bus`).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from dataclasses import asdict
from functools import partial
from pathlib import Path

import numpy as np

from ik_solvers import Chain, ModelError, RobotModel, make_solver
from ik_solvers.demo import free_standing, servo_bus
from ik_solvers.demo.metrics import ChainMetrics, Segment, chain_metrics, format_table
from ik_solvers.demo.processes import Children
from ik_solvers.demo.run import run_motion
from ik_solvers.demo.trajectories import DemoTrajectories
from ik_solvers.description import DescriptionError, RobotDescription, load_description
from ik_solvers.limbs import find_body
from ik_solvers.node import domains
from ik_solvers.resources import package_share_path
from ik_solvers.sim.mujoco_robot import ServoConfig
from ik_solvers.sim.mujoco_urdf import missing_meshes, without_missing_meshes
from ik_solvers.solvers.registry import kind_used

LEGS, ARMS = ("left_leg", "right_leg"), ("left_arm", "right_arm")
IK_NODE = "ik_node"
DEFAULT_DURATION = 36.0  # [s] of motion: two phases
QUICK_DURATION = 12.0
ARMS_DURATION = 16.0  # [s] of arm motion after the walk: the whole demo stays under three minutes
JACOBIAN_TIMEOUT = 0.02  # [s] per solve: room for a busy 2-core machine descheduling the node
ARM_JOINTS = 3  # the arms' circles take a shoulder pitch, another joint and an elbow
HOVER = 0.03  # [m] sole clearance above the floor with straight legs (fixed base)


def parse_arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="ik_demo", description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--duration",
        type=float,
        default=None,
        help=f"seconds of motion, two phases ({DEFAULT_DURATION:g}; free-standing: {ARMS_DURATION:g} of arm motion)",
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help=f"short run for CI ({QUICK_DURATION:g} s of motion)",
    )
    parser.add_argument(
        "--output",
        type=Path,
        default=Path("output") / "demo",
        help="folder for figures and logs",
    )
    parser.add_argument("--rate", type=float, default=50.0, help="target rate per chain [Hz]")
    parser.add_argument(
        "--fixed-base",
        action="store_true",
        help="the torso held just above the floor, legs and arms moved chain by chain (no walking)",
    )
    parser.add_argument(
        "--urdf",
        type=Path,
        default=None,
        help="another humanoid of the same joint structure, URDF or xacro (default: packaged)",
    )
    parser.add_argument(
        "--walk-only",
        action="store_true",
        help="free-standing: no posture phases, turn or sidestep; stand, walk forward 1 m, stop (then the arms)",
    )
    parser.add_argument(
        "--drop-missing-meshes",
        action="store_true",
        help="simulate without the collision meshes the description names but whose files are "
        "missing (each is named); default: refuse to run",
    )
    servo_bus.add_option(parser)
    free_standing.add_options(parser)
    options = parser.parse_args(argv)
    if options.duration is None:
        options.duration = DEFAULT_DURATION if options.fixed_base else ARMS_DURATION
    if options.quick:
        options.duration = QUICK_DURATION
    if not (options.duration >= 4.0 and options.rate > 0):
        parser.error("--duration must be at least 4 s and --rate positive")
    return options


def ik_node_arguments(chains: dict[str, tuple[str, str]]) -> list[str]:
    """ROS arguments naming the demo's chains (name → base, tip links), all on the ``auto``
    solver at first (the closed form where one fits), and the Jacobian solver's time budget."""
    arguments = ["--ros-args", "-r", f"__node:={IK_NODE}", "-p", f"chain_names:=[{','.join(chains)}]"]
    arguments += ["-p", f"jacobian.timeout:={JACOBIAN_TIMEOUT!r}"]
    for name, (base, tip) in chains.items():
        arguments += ["-p", f"chains.{name}.base_link:={base}", "-p", f"chains.{name}.tip_link:={tip}"]
        arguments += ["-p", f"chains.{name}.solver:=auto"]
    return arguments


def _unsupported(body, fixed_base: bool) -> str:
    """Why the demo cannot run on ``body``'s robot ("" when it can): it moves two legs and two
    arms of at least ARM_JOINTS joints, and the free-standing demo walks on them."""
    if body.legs is None or body.limbs.no_legs:  # the demo moves two 6-DoF legs
        return body.whole_body_problem
    arms = {limb.name: len(limb.joint_names) for limb in body.limbs.arms}
    if set(arms) != set(ARMS) or min(arms.values()) < ARM_JOINTS:
        found = ", ".join(f"{name} ({count} joints)" for name, count in arms.items()) or "none"
        return f"the demo moves a left and a right arm of at least {ARM_JOINTS} joints; found: {found}"
    if not fixed_base and body.whole_body_problem:
        return f"it cannot stand: {body.whole_body_problem} (--fixed-base moves the legs without standing)"
    return ""


def _with_meshes_checked(description: RobotDescription, drop: bool) -> RobotDescription:
    """``description``, or with its missing meshes left out when ``drop`` (one line names them).

    Raises:
        DescriptionError: meshes the simulator loads are missing and ``drop`` is False.
    """
    missing = missing_meshes(description)
    if not missing:
        return description
    others = f" (and {len(missing) - 1} more)" if len(missing) > 1 else ""
    if not drop:
        raise DescriptionError(
            f"{len(missing)} mesh(es) the simulator loads are missing: {missing[0]}{others}. Put the "
            "files there, or run with --drop-missing-meshes to simulate without those shapes"
        )
    print(f"ik_demo: --drop-missing-meshes: {len(missing)} shape(s) left out: {missing[0]}{others}")
    return without_missing_meshes(description)


def hover_height(chains: dict[str, Chain]) -> float:
    """[m] torso height that keeps the straight legs' soles HOVER [m] above the floor (fixed base)."""
    lowest = min(chain.fk(np.zeros(chain.n))[2, 3] for name, chain in chains.items() if name in LEGS)
    return float(HOVER - lowest)


def sim_parameters(servo: ServoConfig) -> list[str]:
    """sim_node parameters for ``servo``'s base mode."""
    floating = str(servo.floating_base).lower()
    return ["-p", f"floating_base:={floating}", "-p", f"base_height:={servo.base_height!r}"]


def main(argv: list[str] | None = None) -> int:
    """Run the demo on this process's ROS domain, held against other runs for as long as it runs
    (:mod:`ik_solvers.node.domains`); 0 on success, 1 when the domain is in use by another run, a
    child process fails or the pipeline does not come up."""
    options = parse_arguments(argv)
    options.servo_model = free_standing.default_servo_model(options)
    with contextlib.ExitStack() as stack:
        try:
            stack.enter_context(domains.held_for_run())
        except (domains.DomainInUse, ValueError) as error:
            print(f"ik_demo: cannot start: {error}", file=sys.stderr)
            return 1
        return run_demo(options)


def run_demo(options: argparse.Namespace) -> int:
    """The demo of ``options`` (:func:`parse_arguments`); :func:`main`'s exit code."""
    output = options.output.resolve()
    (output / "logs").mkdir(parents=True, exist_ok=True)
    os.environ["ROS_AUTOMATIC_DISCOVERY_RANGE"] = "LOCALHOST"  # before rclpy initialises
    os.environ.pop("ROS_STATIC_PEERS", None)
    os.environ.setdefault("ROS_LOG_DIR", str(output / "logs" / "ros"))
    path = options.urdf or package_share_path("urdf", "humanoid.urdf")
    try:
        description = _with_meshes_checked(load_description(path), options.drop_missing_meshes)
        body = find_body(RobotModel.from_urdf_string(description.xml, description.source))
    except (DescriptionError, ModelError) as error:
        print(f"ik_demo: cannot run on {path}: {error}", file=sys.stderr)
        return 1
    problem = _unsupported(body, options.fixed_base)
    if problem:
        print(f"ik_demo: cannot run on {path}: {problem}", file=sys.stderr)
        return 1
    urdf = description.self_contained()  # the children and the figures find its meshes without its file
    model, options.chains = body.model, body.chains
    chains = {name: model.chain(base, tip) for name, (base, tip) in body.chains.items()}
    make_rows = partial(table_rows, first=first_solvers(chains))
    if not options.fixed_base:
        return free_standing.run(options, urdf, model, ik_node_arguments(body.chains), IK_NODE, make_rows)
    trajectories = DemoTrajectories(
        model,
        {n: chains[n] for n in LEGS},
        {n: chains[n] for n in ARMS},
        phase=options.duration / 2,
    )
    servo = ServoConfig(floating_base=False, base_height=hover_height(chains))
    children = Children(output / "logs")
    print(
        f"ik_demo: {options.duration:g} s of motion; figures and logs go to {output}",
        flush=True,
    )
    try:
        robot = ["--params-file", str(free_standing.parameter_file(urdf, output / "logs"))]
        remaps = servo_bus.sim_remaps(options.servo_bus)
        servos = free_standing.servo_parameters(options)
        children.start("sim_node", "--ros-args", *robot, *sim_parameters(servo), *servos, *remaps)
        if options.servo_bus:
            bus_stats = servo_bus.start(children, options.servo_bus, output)
        children.start(IK_NODE, *ik_node_arguments(body.chains), *robot)
        run = run_motion(chains, trajectories, options.rate, children, IK_NODE)
    except (RuntimeError, TimeoutError) as error:
        print(f"ik_demo: failed: {error}", file=sys.stderr)
        return 1
    finally:
        children.stop_all()
    rows = make_rows(run, trajectories)
    figures = write_figures(run, trajectories, urdf, servo, output)
    print(format_table(rows))
    print(f"\nfigures in {output}:")
    for figure in figures:
        print(f"  {figure.name}")
    write_results(output / "results.json", rows, figures, run)
    if options.servo_bus:
        summary = servo_bus.section(bus_stats)
        print(servo_bus.format_section(summary))
        servo_bus.add_to_results(output / "results.json", summary)
    return 0


def first_solvers(chains: dict[str, Chain]) -> dict[str, str]:
    """Chain name → the solver kind ``auto`` picks for it (the demo's first phase)."""
    return {name: kind_used("auto", make_solver("auto", chain)) for name, chain in chains.items()}


def table_rows(run, trajectories: DemoTrajectories, first: dict[str, str]) -> list[ChainMetrics]:
    """Legs over the whole motion; arms once per solver; ``first``: each chain's first solver."""
    end, switch = trajectories.duration, run.switch_time or trajectories.phase
    segments = [Segment(name, first[name], 0.0, end) for name in LEGS if name in run.recording.chains]
    for name in ARMS:
        segments += [
            Segment(name, first[name], 0.0, switch),
            Segment(name, run.second_solver, switch, end),
        ]
    rows = []
    for segment in segments:
        before = run.counts_at(segment.start)
        after = run.counts_at(segment.end)
        solves = None
        if segment.chain in before and segment.chain in after:
            solves = tuple(int(a - b) for a, b in zip(after[segment.chain], before[segment.chain]))
        rows.append(
            chain_metrics(
                run.recording,
                segment,
                lambda times, chain=segment.chain: trajectories.sample(times)[chain][0],
                trajectories.settled,
                solves,
            )
        )
    return rows


def write_figures(
    run, trajectories: DemoTrajectories, urdf: str, servo: ServoConfig, output: Path
) -> list[Path]:
    """Tip paths, joint angles per chain and the robot in four poses; returns the PNG paths."""
    from ik_solvers.demo import report

    recording, phase = run.recording, trajectories.phase
    target_at = {name: (lambda times, n=name: trajectories.sample(times)[n][0]) for name in recording.chains}
    figures = [report.tip_paths(recording, target_at, output / "tip_paths.png")]
    for name in recording.chains:
        figures.append(report.joint_angles(recording, name, run.switch_time, output / f"joints_{name}.png"))
    moments = [
        ("stance", 0.02 * phase),
        ("squat, bottom", 0.2 * phase),
        ("right foot lifted", 1.24 * phase),
        ("left foot lifted", 1.72 * phase),
    ]
    poses = [(f"{caption} (t = {t:.1f} s)", *recording.robot_at(t)) for caption, t in moments]
    path, how = report.robot_poses(urdf, poses, servo, output / "robot_poses.png")
    print(f"robot pictures: {how}")
    return figures + [path]


def write_results(path: Path, rows: list[ChainMetrics], figures: list[Path], run) -> None:
    """The table and the figure paths as JSON (for tests and scripts)."""
    results = {
        "rows": [asdict(row) for row in rows],
        "figures": [str(f) for f in figures],
        "switch_time": run.switch_time,
        "second_solver": run.second_solver,
        "wall_time": run.wall_time,
    }
    path.write_text(json.dumps(results, indent=2, allow_nan=True))


if __name__ == "__main__":
    sys.exit(main())
