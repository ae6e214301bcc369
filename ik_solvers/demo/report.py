"""The demo's PNG figures: target vs reached tip paths, joint angles with limits, the robot in poses.

No ROS here. Figures are drawn with matplotlib's Agg backend from a
:class:`~ik_solvers.demo.metrics.Recording`. The robot is rendered offscreen by MuJoCo (EGL) when
that works, else drawn as a stick figure from FK. All positions are in the chains' base frame
(the torso, ``base_link``), in metres.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

from ik_solvers.demo.metrics import Recording
from ik_solvers.sim.mujoco_robot import ServoConfig

RENDER_SIZE = (480, 360)  # [px] height, width of one rendered pose


def tip_paths(
    recording: Recording,
    target_at: dict[str, Callable[[np.ndarray], np.ndarray]],
    path: Path,
) -> Path:
    """Front view (y-z plane of the base) of each chain's target path and the simulated tip's path."""
    names = list(recording.chains)
    figure, axes = plt.subplots(1, len(names), figsize=(4 * len(names), 4.2))
    for axis, name in zip(np.atleast_1d(axes), names):
        times, measured = recording.states[name].arrays()
        measured, times = (measured[times >= 0], times[times >= 0]) if len(times) else (measured, times)
        if len(times):
            target = target_at[name](times)[:, :3, 3]
            reached = recording.chains[name].fk(measured)[:, :3, 3]
            axis.plot(target[:, 1], target[:, 2], "k--", lw=1.2, label="target")
            axis.plot(
                reached[:, 1],
                reached[:, 2],
                "C1",
                lw=1.0,
                alpha=0.8,
                label="simulated tip",
            )
        axis.set_title(f"{name} ({recording.chains[name].tip_link})")
        axis.set_xlabel("y [m] (left +)")
        axis.set_ylabel("z [m] (up +)")
        axis.set_aspect("equal", adjustable="datalim")
        axis.grid(alpha=0.3)
        axis.legend(loc="best", fontsize=8)
    figure.suptitle("Tip paths in the torso frame, front view: target vs simulated")
    figure.tight_layout()
    figure.savefig(path, dpi=90)
    plt.close(figure)
    return path


def joint_angles(recording: Recording, chain: str, switch_time: float | None, path: Path) -> Path:
    """Measured and commanded angles of each joint of ``chain`` over time, with the URDF limits."""
    model = recording.chains[chain]
    times, measured = recording.states[chain].arrays()
    command_times, commanded = recording.commands[chain].arrays()
    figure, axes = plt.subplots(model.n, 1, figsize=(8, 1.35 * model.n + 0.8), sharex=True)
    for i, axis in enumerate(np.atleast_1d(axes)):
        if len(command_times):
            axis.plot(command_times, commanded[:, i], "C0", lw=0.8, ls="--", label="commanded")
        if len(times):
            axis.plot(times, measured[:, i], "C1", lw=1.0, label="simulated")
        for limit in (model.lower[i], model.upper[i]):
            axis.axhline(limit, color="C3", lw=0.8)
        if switch_time is not None:
            axis.axvline(switch_time, color="0.5", lw=0.8, ls=":")
        axis.set_ylabel(
            f"{model.joint_names[i]}\n[rad]",
            fontsize=7,
            rotation=0,
            ha="right",
            va="center",
        )
        axis.tick_params(labelsize=7)
        axis.grid(alpha=0.3)
    first = np.atleast_1d(axes)[0]
    first.legend(loc="upper right", fontsize=7, ncol=2)
    first.set_title(f"{chain}: joint angles (red: URDF limits, dotted: solver switch)", fontsize=9)
    np.atleast_1d(axes)[-1].set_xlabel("time [s]")
    figure.tight_layout()
    figure.savefig(path, dpi=90)
    plt.close(figure)
    return path


def robot_poses(
    urdf_xml: str,
    poses: list[tuple[str, dict[str, float], np.ndarray | None]],
    servo: ServoConfig,
    path: Path,
) -> tuple[Path, str]:
    """A row of pictures of the robot at ``poses``: [(caption, {joint: angle [rad]}, torso pose)].

    The torso pose (x, y, z, qw, qx, qy, qz) in the world places a floating base where the
    simulator had it; None stands the robot upright on the floor.

    Returns:
        the path and how it was drawn: "MuJoCo render" or "stick figure" (when rendering fails).
    """
    try:
        images = _render(urdf_xml, poses, servo)
    except (
        RuntimeError,
        OSError,
        ImportError,
    ) as error:  # no GL context: draw from FK instead
        return _stick_figures(urdf_xml, poses, path), f"stick figure (rendering failed: {error})"
    figure, axes = plt.subplots(1, len(images), figsize=(3.2 * len(images), 3.4))
    for axis, image, (caption, *_) in zip(np.atleast_1d(axes), images, poses):
        axis.imshow(image)
        axis.set_title(caption, fontsize=9)
        axis.axis("off")
    figure.tight_layout()
    figure.savefig(path, dpi=90)
    plt.close(figure)
    return path, "MuJoCo render"


def _render(
    urdf_xml: str, poses: list[tuple[str, dict[str, float], np.ndarray | None]], servo: ServoConfig
) -> list[np.ndarray]:
    """Offscreen MuJoCo images of the robot standing on the floor (or hanging, fixed base)."""
    import mujoco

    from ik_solvers.sim.mujoco_robot import MujocoRobot

    robot = MujocoRobot(urdf_xml, servo)
    floor = robot.model.geom("floor").id
    robot.model.geom_rgba[np.arange(robot.model.ngeom) != floor] = (
        0.95,
        0.55,
        0.2,
        1.0,
    )
    height, width = RENDER_SIZE
    try:
        renderer = mujoco.Renderer(robot.model, height, width)
    except (mujoco.FatalError, ImportError, AttributeError) as error:  # no usable GL backend
        raise RuntimeError(
            f"MuJoCo cannot render offscreen (MUJOCO_GL={os.environ.get('MUJOCO_GL', '')!r}): {error}"
        ) from error
    camera = mujoco.MjvCamera()
    camera.distance, camera.azimuth, camera.elevation = 1.9, 155.0, -10.0
    images = []
    try:
        for _, angles, base in poses:
            robot.reset(np.array([angles.get(name, 0.0) for name in robot.joint_names]), base)
            camera.lookat[:] = robot.base_pose()[:3] - (0.0, 0.0, 0.2)
            renderer.update_scene(robot.data, camera)
            images.append(renderer.render().copy())
    finally:
        renderer.close()
    return images


def _stick_figures(
    urdf_xml: str, poses: list[tuple[str, dict[str, float], np.ndarray | None]], path: Path
) -> Path:
    """3D stick figures of the four limbs from FK, one panel per pose."""
    from ik_solvers.model import RobotModel

    model = RobotModel.from_urdf_string(urdf_xml)
    tips = [link for link in model.links if link.endswith(("_sole", "_wrist"))]
    chains = [model.chain(model.root, tip) for tip in tips]
    figure = plt.figure(figsize=(3.2 * len(poses), 3.6))
    for k, (caption, angles, _) in enumerate(poses):
        axis = figure.add_subplot(1, len(poses), k + 1, projection="3d")
        for chain in chains:
            q = np.array([angles.get(name, 0.0) for name in chain.joint_names])
            points = np.vstack([[0.0, 0.0, 0.0], chain.joint_frames(q)[:, :3, 3], chain.fk(q)[:3, 3]])
            axis.plot(points[:, 0], points[:, 1], points[:, 2], "o-", ms=2, lw=2)
        axis.set_title(caption, fontsize=9)
        axis.set_box_aspect((1, 1, 2))
        axis.view_init(elev=10, azim=35)
    figure.tight_layout()
    figure.savefig(path, dpi=90)
    plt.close(figure)
    return path
