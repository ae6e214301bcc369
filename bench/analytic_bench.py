"""Speed of the geometric (closed-form) solvers, against ikpy on the same targets.

For each chain: the median time of one ``solve`` [µs], the throughput of ``solve_batch`` over
N = 100,000 targets [solves/s], and ikpy's median time per solve on a sample of the same targets
(ikpy has no batch call), with the ratio and both success rates at 1e-6 m / 1e-6 rad. Targets are
FK of random in-limit configurations. Medians over repeats: this machine is shared and noisy.

Legs are timed without and with a seed (tracking, as in the node); arms seeded and once without. Run: ``python bench/analytic_bench.py`` (ikpy from bench/requirements.txt; without it the ikpy
columns stay empty). Each chain is one :func:`bench_chain` call, so adding a chain is one line.
"""

from __future__ import annotations

import argparse
import statistics
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ik_solvers import Chain, RobotModel, make_solver
from ik_solvers.resources import package_share_path
from ik_solvers.spatial import pose_error

PLANAR_URDF = Path(__file__).resolve().parent.parent / "test" / "urdf" / "planar_two_link.urdf"
ACCURACY = 1e-6  # [m], [rad]: what counts as solved when comparing with ikpy


@dataclass
class Row:
    name: str
    single_us: float
    batch_per_s: float
    batch_success: float
    ikpy_us: float | None = None
    ikpy_success: float | None = None


def median_seconds(call, repeats: int) -> float:
    """Median wall time [s] of ``call()`` over ``repeats`` runs."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def bench_chain(
    name: str,
    chain: Chain,
    urdf_path: Path | None,
    batch: int,
    ikpy_sample: int,
    position_only: bool = False,
    seed_offset: float | None = None,
) -> Row:
    """Time one chain's geometric solver (single and batch) and ikpy on the same targets.

    ``seed_offset`` [rad]: when given, each target is solved with its own configuration plus this
    offset as the seed (tracking, where the previous solution seeds the next solve).
    """
    solver = make_solver("geometric", chain)
    rng = np.random.default_rng(0)
    configurations = chain.random_configurations(batch, rng)
    targets = chain.fk(configurations)
    seeds = None if seed_offset is None else configurations + seed_offset
    cases = iter(np.tile(np.arange(2000), 10))
    if seeds is None:
        single = median_seconds(lambda: solver.solve(targets[next(cases)]), repeats=5000)
    else:
        single = median_seconds(lambda: solver.solve(targets[i := next(cases)], seed=seeds[i]), repeats=5000)
    result = solver.solve_batch(targets, seeds)  # also warms caches and the allocator up
    solver.solve_batch(targets, seeds)
    batch_time = median_seconds(lambda: solver.solve_batch(targets, seeds), repeats=7)
    row = Row(name, single * 1e6, batch / batch_time, float(result.success.mean()))
    if urdf_path is not None and ikpy_sample > 0:
        row.ikpy_us, row.ikpy_success = bench_ikpy(chain, urdf_path, targets[:ikpy_sample], position_only)
    return row


def bench_ikpy(chain: Chain, urdf_path: Path, targets: np.ndarray, position_only: bool):
    """ikpy's median µs per solve and its success rate on ``targets`` (None, None without ikpy)."""
    try:
        from ikpy.chain import Chain as IkpyChain
    except ImportError:
        return None, None
    model = RobotModel.from_urdf_file(urdf_path)
    by_child = {joint.child: joint for joint in model.joints.values()}
    link, elements = chain.tip_link, []
    while link != chain.base_link:
        joint = by_child[link]
        elements = [joint.name, joint.child] + elements
        link = joint.parent
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ikpy_chain = IkpyChain.from_urdf_file(str(urdf_path), base_elements=[chain.base_link] + elements)
    movable = [i for i, link in enumerate(ikpy_chain.links) if link.name in chain.joint_names]
    mask = np.zeros(len(ikpy_chain.links), dtype=bool)
    mask[movable] = True
    ikpy_chain.active_links_mask = mask
    mode = None if position_only else "all"
    times, solved = [], 0
    for target in targets:
        start = time.perf_counter()
        full = ikpy_chain.inverse_kinematics(target[:3, 3], target[:3, :3], orientation_mode=mode)
        times.append(time.perf_counter() - start)
        q = np.clip(np.asarray(full)[movable], chain.lower, chain.upper)
        position, orientation = pose_error(target, chain.fk(q))
        solved += position < ACCURACY and (position_only or orientation < ACCURACY)
    return statistics.median(times) * 1e6, solved / len(targets)


def print_table(rows: list[Row]) -> None:
    header = (
        f"{'chain':<22}{'solve µs':>10}{'batch solves/s':>16}{'batch ok':>10}"
        f"{'ikpy µs':>10}{'ikpy ok':>9}{'ikpy/ours':>11}"
    )
    print(header)
    print("-" * len(header))
    for r in rows:
        ikpy = (
            f"{r.ikpy_us:>10.0f}{r.ikpy_success:>9.0%}{r.ikpy_us / r.single_us:>10.0f}x"
            if r.ikpy_us is not None
            else f"{'-':>10}{'-':>9}{'-':>11}"
        )
        print(f"{r.name:<22}{r.single_us:>10.1f}{r.batch_per_s:>16,.0f}{r.batch_success:>10.1%}{ikpy}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=100_000, help="targets per solve_batch call")
    parser.add_argument("--ikpy-sample", type=int, default=100, help="targets solved through ikpy (0: skip)")
    args = parser.parse_args()
    humanoid = package_share_path("urdf", "humanoid.urdf")
    model = RobotModel.from_urdf_file(humanoid)
    rows = [
        bench_chain(f"leg {tip}", model.chain("base_link", tip), humanoid, args.batch, args.ikpy_sample)
        for tip in ("l_sole", "r_sole")
    ]
    left_leg = model.chain("base_link", "l_sole")  # seeded as in the node (the current joint state)
    rows.append(bench_chain("leg l_sole (seeded)", left_leg, humanoid, args.batch, 0, seed_offset=0.01))
    planar = RobotModel.from_urdf_file(PLANAR_URDF).chain("base", "tip")
    rows.append(bench_chain("planar two-link", planar, PLANAR_URDF, args.batch, args.ikpy_sample, True))
    rows += arm_rows(model, humanoid, args.batch, args.ikpy_sample)
    print_table(rows)


def arm_rows(model: RobotModel, urdf_path: Path, batch: int, ikpy_sample: int) -> list[Row]:
    """The 7-DoF arms: seeded as in tracking (seed = configuration + 0.01 rad), and once without a
    seed, where the default swivel often breaks a joint limit and the swivel search runs."""
    rows = [
        bench_chain(
            f"arm {tip} (seeded)",
            model.chain("base_link", tip),
            urdf_path,
            batch,
            ikpy_sample,
            seed_offset=0.01,
        )
        for tip in ("l_wrist", "r_wrist", "l_hand")
    ]
    rows.append(bench_chain("arm l_hand (no seed)", model.chain("base_link", "l_hand"), urdf_path, batch, 0))
    return rows


if __name__ == "__main__":
    main()
