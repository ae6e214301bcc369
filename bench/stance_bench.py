"""Cost of one stance solve (ik_solvers.whole_body.StanceSolver), and what it is made of.

Cases, each on the packaged humanoid (and ``--urdf`` another):
- tracking: 2000 ticks of a weight shift at 100 Hz (CoM target swaying between the soles, torso
  bobbing, arms swinging), each solve seeded by the previous one, as the walk node calls it;
- cold: 500 random stances (soles placed and turned at random, any support), the solver reset
  before each (no warm start);
- unreachable: a CoM target 0.5 m ahead (the nearest feasible stance is searched for).
And the leg solver's own seeded single solve, which each leg-solve round calls twice.
Medians over all solves [µs], wall time and this thread's CPU time (which other processes' load
on the shared cores does not inflate); this machine is shared and noisy. Run: ``python bench/stance_bench.py``.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from ik_solvers import RobotModel
from ik_solvers.resources import package_share_path
from ik_solvers.whole_body import StanceSolver


def sole(x: float, y: float, yaw: float = 0.0) -> np.ndarray:
    """(4, 4) level sole pose at world (x, y, 0), heading ``yaw`` [rad]."""
    pose = np.eye(4)
    c, s = np.cos(yaw), np.sin(yaw)
    pose[:2, :2] = [[c, -s], [s, c]]
    pose[:2, 3] = (x, y)
    return pose


CPU_TIMES: list[float] = []  # [s] this thread's CPU time of each timed call, in order


def timed(call, *args, **kwargs) -> tuple[float, object]:
    """Wall time [s] of ``call(*args, **kwargs)`` and its result (its CPU time goes to CPU_TIMES)."""
    start, start_cpu = time.perf_counter(), time.thread_time()
    result = call(*args, **kwargs)
    CPU_TIMES.append(time.thread_time() - start_cpu)
    return time.perf_counter() - start, result


def summary(name: str, seconds: list[float], results: list) -> None:
    micro = np.array(seconds) * 1e6
    cpu = np.array(CPU_TIMES[-len(seconds) :]) * 1e6
    rounds = [r.iterations for r in results]
    solved = np.mean([r.success for r in results]) * 100.0
    print(
        f"{name:<12} median {statistics.median(micro):7.1f} µs (CPU {statistics.median(cpu):6.1f})   "
        f"p90 {np.percentile(micro, 90):7.1f} µs   "
        f"rounds median {statistics.median(rounds):.0f}   solved {solved:5.1f} %   ({len(micro)} solves)"
    )


def bench_model(name: str, model: RobotModel) -> None:
    solver = StanceSolver(model)
    leg = solver.legs.chains[0]
    width = float(leg.fk(np.zeros(leg.n))[1, 3])
    height = -0.9 * float(leg.fk(np.zeros(leg.n))[2, 3])
    left, right = sole(0.0, width), sole(0.0, -width)
    print(f"== {name}: {solver.com.total_mass:.2f} kg, torso at {height:.3f} m, soles ±{width:.3f} m")
    seconds, results = [], []
    for tick in range(2000):
        t = tick * 0.01
        arms = {"l_shoulder_pitch": 0.4 * np.sin(t), "r_shoulder_pitch": -0.4 * np.sin(t)}
        took, result = timed(
            solver.solve,
            left,
            right,
            height - 0.01 * (1 - np.cos(t)),
            com_offset=(0.0, 0.8 * width * np.sin(t)),
            joints=arms,
        )
        seconds.append(took)
        results.append(result)
    summary("tracking", seconds, results)
    tracking = statistics.median(seconds)
    rng = np.random.default_rng(0)
    seconds, results = [], []
    for _ in range(500):
        solver.reset()
        yaw = rng.uniform(-0.3, 0.3)
        stance = (sole(rng.uniform(-0.05, 0.05), width + rng.uniform(-0.01, 0.03), yaw), sole(0.0, -width))
        support = ("left", "right", "double")[rng.integers(3)]
        took, result = timed(solver.solve, *stance, height, support=support)
        seconds.append(took)
        results.append(result)
    summary("cold", seconds, results)
    solver.reset()
    seconds, results = [], []
    for _ in range(50):
        took, result = timed(solver.solve, left, right, height, com_target=(0.5, 0.0))
        seconds.append(took)
        results.append(result)
    summary("unreachable", seconds, results)
    good = solver.solve(left, right, height)
    target = np.linalg.inv(good.torso_pose) @ left
    leg_solver, seed = solver.legs.solvers[0], good.q[:6]
    leg_seconds = [timed(leg_solver.solve, target, seed=seed)[0] for _ in range(3000)]
    leg = statistics.median(leg_seconds)
    print(f"{'leg solve':<12} median {leg * 1e6:7.1f} µs (one leg, seeded; 2 per round)")
    print(f"tracking stance solve = {tracking / leg:.1f} leg solves (a ratio the machine's load moves less)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--urdf", help="another humanoid URDF to time as well")
    args = parser.parse_args()
    bench_model("packaged humanoid", RobotModel.from_urdf_file(package_share_path("urdf", "humanoid.urdf")))
    if args.urdf:
        bench_model(args.urdf, RobotModel.from_urdf_file(args.urdf))


if __name__ == "__main__":
    main()
