"""The free-standing demo's walking results: the table section, top view, filmstrip and GIF.

No ROS here. Figures come from a :class:`~ik_solvers.demo.walk_run.WalkRun` (its
:class:`~ik_solvers.walk.walk_log.WalkLog`): everything measured is the simulator's (torso pose,
joints → soles and CoM by FK), the plan gives the support state, footsteps and the ZMP.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

from ik_solvers.demo.walk_timeline import FORWARD, TURN
from ik_solvers.walk import walk_metrics as wm
from ik_solvers.walk.walk_metrics import WalkMetrics

TARGETS = {  # what the issue asks of each figure: (bound, True when it is a lower bound)
    "com_margin_min_mm": (10.0, True),
    "torso_tilt_max_deg": (10.0, False),
    "foot_slip_max_mm": (5.0, False),
    "heading_error_deg": (10.0, False),
    "real_time_factor": (0.9, True),
}
GIF_FPS = 2.0  # frames per simulated second


def walk_metrics(run) -> WalkMetrics:
    """The walking figures of ``run`` (see :mod:`ik_solvers.walk.walk_metrics`); the sole slip
    from the end of the pre-roll on (``walk_run.PREROLL``: the robot lowered from the straight legs
    the simulator starts with into its stance), when the robot stands in its stance. Before it,
    the soles land from where the simulator put them and the legs leave the straight-knee
    singularity, whose first bend is a jump at the joints' speed limit: the OP3's soles hopped 1.5
    mm and moved 3.9 mm there (0.17 s in), while no walking support drifted more than 1.2 mm."""
    measured = run.log.measured()
    times, base = measured["times"], measured["base"]
    names = [name for name, _, _ in run.stretches]
    forward_start = run.stretch("forward")[0]
    stopped = run.stretches[names.index("forward") + 1][2]  # the end of the pause after it
    walk_start, walk_end = forward_start, run.stretches[-1][2]
    walking = (times >= walk_start) & (times <= walk_end)
    standing = times >= run.stretch("posture")[0]  # in its stance: not the pre-roll (see slip below)
    polygons = wm.support_polygons(run.log, measured["soles"], measured["support"])
    margins = wm.com_margins(measured["com"], polygons)
    heading = wm.heading_change(times, base, walk_start, walk_end)
    factors = run.real_time_factors
    return WalkMetrics(
        fell=wm.fell(base, measured["com"]),
        distance_m=wm.displacement(times, base, forward_start, stopped),
        commanded_distance_m=FORWARD,
        heading_error_deg=float(abs(np.degrees(heading - (TURN if "turn" in names else 0.0)))),
        steps=wm.step_count(measured["support"][walking]),
        com_margin_min_mm=float(1000.0 * np.nanmin(margins)) if np.isfinite(margins).any() else float("nan"),
        torso_tilt_max_deg=float(wm.tilt_degrees(base).max()),
        foot_slip_max_mm=1000.0
        * wm.sole_slip(times[standing], measured["soles"][standing], measured["support"][standing]),
        real_time_factor=float(np.mean(factors)) if factors else float("nan"),
    )


def format_walk_table(metrics: WalkMetrics) -> str:
    """The walking section of the results table, with the figure each value should reach."""
    rows = [
        ("fell", "yes" if metrics.fell else "no", "no"),
        ("distance walked [m]", f"{metrics.distance_m:.3f}", f"{metrics.commanded_distance_m:.2f} +- 10 %"),
        ("final heading error [deg]", f"{metrics.heading_error_deg:.1f}", "<= 10"),
        ("steps", f"{metrics.steps}", ""),
        ("smallest CoM margin in support [mm]", f"{metrics.com_margin_min_mm:.1f}", ">= 10"),
        ("largest torso tilt [deg]", f"{metrics.torso_tilt_max_deg:.1f}", "<= 10"),
        ("largest sole slip in support [mm]", f"{metrics.foot_slip_max_mm:.1f}", "<= 5"),
        ("real-time factor", f"{metrics.real_time_factor:.2f}", ">= 0.9"),
    ]
    lines = ["Walking (free-standing robot, measured in the simulator)", f"{'':38s}{'value':>10s}   target"]
    lines += [f"  {name:<36s}{value:>10s}   {target}" for name, value, target in rows]
    return "\n".join(lines)


def top_view(run, path: Path) -> Path:
    """Top view: footprints where soles stood, some support polygons, planned ZMP, CoM paths."""
    measured = run.log.measured()
    figure, axis = plt.subplots(figsize=(8, 6))
    polygons = wm.support_polygons(run.log, measured["soles"], measured["support"])
    single = np.flatnonzero(np.isin(measured["support"], (wm.LEFT, wm.RIGHT)))
    for i in single[:: max(len(single) // 40, 1)]:
        corners = np.vstack([polygons[i], polygons[i][:1]])
        axis.fill(corners[:, 0], corners[:, 1], color="C2", alpha=0.08, lw=0)
        axis.plot(corners[:, 0], corners[:, 1], color="C2", lw=0.5, alpha=0.6)
    planned_com = np.array(run.log.planned_com)
    if run.zmp:
        zmp = np.array(run.zmp)
        axis.plot(zmp[:, 1], zmp[:, 2], color="C3", lw=0.8, label="ZMP (planned)")
    axis.plot(planned_com[:, 0], planned_com[:, 1], "k--", lw=0.8, label="CoM (planned)")
    axis.plot(measured["com"][:, 0], measured["com"][:, 1], color="C0", lw=1.0, label="CoM (simulated)")
    axis.plot(
        measured["base"][:, 0],
        measured["base"][:, 1],
        color="C1",
        lw=0.8,
        alpha=0.7,
        label="torso (simulated)",
    )
    axis.plot([], [], color="C2", lw=2, label="support polygon (single support)")
    axis.set_xlabel("x [m] (odom)")
    axis.set_ylabel("y [m] (odom)")
    axis.set_aspect("equal", adjustable="datalim")
    axis.grid(alpha=0.3)
    axis.legend(loc="best", fontsize=8)
    axis.set_title("Top view of the walk: support, ZMP and CoM")
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)
    return path


def robot_at(run, joint_names, t: float) -> tuple[dict[str, float], np.ndarray]:
    """Simulated joint angles [rad] and torso pose (7,) nearest ``t`` [s]."""
    times = np.array(run.log.measured_times)
    i = int(np.argmin(np.abs(times - t)))
    q = run.log.joints[i]
    return dict(zip(joint_names, q)), run.log.bases[i]


def filmstrip(run, urdf: str, servo, moments: list[tuple[str, float]], path: Path) -> tuple[Path, str]:
    """The robot rendered by MuJoCo at ``moments`` [(caption, t)]; stick figures if it cannot render."""
    from ik_solvers.demo import report

    names = run.log.com_model.joint_names
    poses = [(f"{caption} (t = {t:.0f} s)", *robot_at(run, names, t)) for caption, t in moments]
    return report.robot_poses(urdf, poses, servo, path)


def animation(run, urdf: str, servo, start: float, end: float, path: Path) -> Path | None:
    """An animated GIF of the robot from ``start`` to ``end`` [s]; None when MuJoCo cannot render."""
    from PIL import Image

    from ik_solvers.demo import report

    names = run.log.com_model.joint_names
    times = np.arange(start, end, 1.0 / GIF_FPS)
    poses = [("", *robot_at(run, names, t)) for t in times]
    try:
        images = report._render(urdf, poses, servo)
    except (RuntimeError, OSError, ImportError):
        return None
    frames = [Image.fromarray(image[::2, ::2]) for image in images]
    frames[0].save(path, save_all=True, append_images=frames[1:], duration=int(1000 / GIF_FPS / 2), loop=0)
    return path
