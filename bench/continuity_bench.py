"""Continuity of seeded solves along smooth joint paths: branch jumps per 10,000 steps.

What ``ik_node`` does while it tracks a moving target: every target is solved seeded with the
previous answer. Paths are smooth and within the limits (400 steps; each joint a sinusoid moving at
most 0.04 rad per step); FK turns them into targets. A third of the paths over-drive some joints
into their limits (they rest there), a third hold the joints whose range contains 0 at exactly 0
for a while (the shoulder and wrist singularities of an S-R-S arm, the stretched knee). A jump is a
step whose largest joint change exceeds max(0.1 rad, 5 × the path's own largest joint change at
that step).

For the 7-DoF arms also ``solve_path``: each path's targets solved at once, the swivel chosen over
the whole path (what a planner that knows the trajectory can do; its time is per target).

Per chain and solver: steps solved, failed solves (the answer misses the target by more than
1e-5 m / 1e-4 rad or leaves the limits, checked here with our FK), successes reported on a wrong
answer (ours only), jumps per 10,000 steps, the worst step [rad] and the median time per solve
[µs]. Peers, seeded the same way on the same targets: roboticstoolbox ``ik_LM`` and ikpy
(bench/requirements.txt; ``make bench`` runs this in .venv-bench/; missing peers are skipped).

    python bench/continuity_bench.py [--paths 25] [--ikpy-paths 5] [--quick] [--no-peers] [--only arm]

ikpy takes about 10 ms per solve here, so it solves the first ``--ikpy-paths`` paths only (the
steps column says how many); the others solve all of them.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path[:0] = [str(HERE), str(ROOT / "test")]

from humanoid_factory import ArmDims, HumanoidSpec, LegDims, humanoid_urdf
from jacobian_bench import ikpy_solver, rtb_solver, serial_urdf

from ik_solvers import Chain, RobotModel, make_solver
from ik_solvers.solvers import UnsupportedChainError
from ik_solvers.spatial import pose_error

STEPS, MAX_STEP, MARGIN = 400, 0.04, 0.02  # steps per path, largest joint step [rad], limit margin [rad]
JUMP_FLOOR, JUMP_FACTOR = 0.1, 5.0  # a jump: a step > max(JUMP_FLOOR, JUMP_FACTOR × the path's step)
POSITION_TOL, ORIENTATION_TOL = 1e-5, 1e-4  # [m], [rad] what counts as solved
PACKAGED = ROOT / "urdf" / "humanoid.urdf"
PANDA = ROOT / "test" / "urdf" / "panda_like.urdf"

VARIANTS = {  # factory humanoids: other lengths and axis orders, tighter limits, a flange offset
    "lengths+axes": HumanoidSpec(
        leg=LegDims(thigh=0.26, shank=0.23, w=0.035, sole_z=-0.05),
        arm=ArmDims(upper_arm=0.19, forearm=0.17, hand=0.08, shoulder_axes="xyz", wrist_axes="zxz"),
    ),
    "tight limits": HumanoidSpec(limit_scale=0.7),
    "flange offset": HumanoidSpec(
        arm=ArmDims(tool_offset=(0.03, 0.02, -0.09), tool_rpy=(0.3, -0.2, 0.5), wrist_axes="yxz")
    ),
}


@dataclass
class Row:
    chain: str
    solver: str
    steps: int
    failed: int
    wrong: int | None
    jumps: int
    worst: float
    median_us: float


def smooth_paths(chain: Chain, count: int, rng: np.random.Generator) -> np.ndarray:
    """(count, STEPS, n) in-limit joint paths; kinds cycle: free, into limits, resting at 0."""
    lower, upper = np.maximum(chain.lower, -np.pi) + MARGIN, np.minimum(chain.upper, np.pi) - MARGIN
    t = np.arange(STEPS)[:, None]
    paths = []
    for k in range(count):
        kind = k % 3
        half = 0.5 * (upper - lower)
        amplitude = half * rng.uniform(0.3, 1.0, chain.n) * (1.4 if kind == 1 else 1.0)
        room = np.maximum(half - amplitude, 0.0)
        centre = 0.5 * (upper + lower) + rng.uniform(-1.0, 1.0, chain.n) * room
        cycles = rng.uniform(0.5, 2.0, chain.n)
        cycles = np.minimum(cycles, MAX_STEP * STEPS / (2 * np.pi * amplitude))  # per-step bound
        phase = rng.uniform(0, 2 * np.pi, chain.n)
        path = centre + amplitude * np.sin(2 * np.pi * cycles * t / STEPS + phase)
        if kind == 2:  # joints whose range holds 0 stay at exactly 0 on one side of it
            zero = (lower < 0.0) & (upper > 0.0)
            path[:, zero] = np.maximum(path[:, zero], 0.0)
        paths.append(np.clip(path, lower, upper))
    return np.array(paths)


def track(chain: Chain, solve, paths: np.ndarray, label: str, name: str) -> Row:
    """Solve every path's targets in order, each seeded with the previous answer; count jumps."""
    answers, reported, times = [], [], []
    for path in paths:
        previous, these, claims = path[0], [], []
        for target in chain.fk(path):
            start = time.perf_counter()
            q, success = solve(target, previous)
            times.append(time.perf_counter() - start)
            these.append(q)
            claims.append(success)
            previous = q
        answers.append(np.array(these))
        reported.append(claims)
    return judge(chain, paths, answers, reported, times, label, name)


def track_whole(chain: Chain, solver, paths: np.ndarray, label: str) -> Row:
    """Each path's targets solved at once with ``solve_path`` from the path's start (time per target)."""
    answers, reported, times = [], [], []
    for path in paths:
        start = time.perf_counter()
        result = solver.solve_path(chain.fk(path), seed=path[0])
        times.append((time.perf_counter() - start) / len(path))
        answers.append(result.q)
        reported.append(list(result.success))
    return judge(chain, paths, answers, reported, times, label, "geometric, whole path")


def judge(
    chain: Chain, paths: np.ndarray, answers: list, reported: list, times: list, label: str, name: str
) -> Row:
    """The row of one chain and solver: failures, wrong successes, jumps, worst step, median time."""
    steps = failed = jumps = 0
    wrong: int | None = 0
    worst = 0.0
    for path, q, claims in zip(paths, answers, reported):
        targets = chain.fk(path)
        position, orientation = pose_error(targets, chain.fk(q))
        met = (position < POSITION_TOL) & (orientation < ORIENTATION_TOL) & chain.within_limits(q, 1e-9)
        change = np.abs(np.diff(np.vstack([path[:1], q]), axis=0)).max(axis=1)
        own = np.abs(np.diff(np.vstack([path[:1], path]), axis=0)).max(axis=1)
        jumped = change > np.maximum(JUMP_FLOOR, JUMP_FACTOR * own)
        steps += len(path)
        failed += int((~met).sum())
        jumps += int(jumped.sum())
        worst = max(worst, float(change.max()))
        if claims[0] is None:
            wrong = None
        elif wrong is not None:
            wrong += int((np.array(claims, dtype=bool) & ~met).sum())
    return Row(label, name, steps, failed, wrong, jumps, worst, float(np.median(times)) * 1e6)


def our_solvers(chain: Chain) -> dict:
    """Our geometric solver (when the chain's structure has one) and the Jacobian DLS solver."""
    solvers = {}
    for kind in ("geometric", "jacobian"):
        try:
            solver = make_solver(kind, chain)
        except UnsupportedChainError:
            continue
        solvers[kind] = lambda target, seed, solver=solver: _ours(solver, target, seed)
    return solvers


def _ours(solver, target: np.ndarray, seed: np.ndarray):
    result = solver.solve(target, seed)
    return result.q, result.success


def whole_path_solver(chain: Chain):
    """Our geometric solver when it solves whole paths at once (the 7-DoF arm's), else None."""
    try:
        solver = make_solver("geometric", chain)
    except UnsupportedChainError:
        return None
    return solver if hasattr(solver, "solve_path") else None


def peer_solvers(chain: Chain) -> dict:
    """roboticstoolbox ik_LM and ikpy on a serial URDF of the chain (skipped when not installed)."""
    with tempfile.NamedTemporaryFile("w", suffix=".urdf", delete=False) as handle:
        handle.write(serial_urdf(chain))
    peers = {}
    for name, factory in (("rtb ik_LM", rtb_solver), ("ikpy", ikpy_solver)):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                solve = factory(chain, handle.name)
        except ImportError as error:
            print(f"  ({name} skipped: {error}; pip install -r bench/requirements.txt)", flush=True)
            continue
        peers[name] = lambda target, seed, solve=solve: (np.asarray(solve(target, seed), dtype=float), None)
    return peers


def chains() -> list[tuple[str, Chain]]:
    """(label, chain): the packaged humanoid's left arm (hand tool point) and leg, the factory
    variants' arms and legs, and the non-S-R-S panda-like arm."""
    found = []
    packaged = RobotModel.from_urdf_file(str(PACKAGED))
    found += [("humanoid arm l_hand", packaged.chain("base_link", "l_hand"))]
    found += [("humanoid arm r_wrist", packaged.chain("base_link", "r_wrist"))]
    found += [("humanoid leg l_sole", packaged.chain("base_link", "l_sole"))]
    for name, spec in VARIANTS.items():
        model = RobotModel.from_urdf_string(humanoid_urdf(spec))
        found.append((f"{name} arm l_hand", model.chain("base_link", "l_hand")))
        if name != "flange offset":
            found.append((f"{name} leg r_sole", model.chain("base_link", "r_sole")))
    found.append(
        ("panda-like (not SRS)", RobotModel.from_urdf_file(str(PANDA)).chain("panda_link0", "panda_link8"))
    )
    return found


def print_row(row: Row) -> None:
    per = 1e4 / max(row.steps, 1)
    wrong = "-" if row.wrong is None else str(row.wrong)
    print(
        f"{row.chain:26s} {row.solver:21s} {row.steps:6d} {row.failed:7d} {wrong:>6s} "
        f"{row.jumps * per:10.1f} {row.worst:8.2f} {row.median_us:9.0f}",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--paths", type=int, default=25, help="paths per chain (25 × 400 = 10,000 steps)")
    parser.add_argument("--ikpy-paths", type=int, default=5, help="paths solved by ikpy (slow)")
    parser.add_argument("--quick", action="store_true", help="3 paths per chain")
    parser.add_argument("--no-peers", action="store_true")
    parser.add_argument("--only", default="", help="only chains whose label contains this")
    args = parser.parse_args()
    count = 3 if args.quick else args.paths
    ikpy_count = min(args.ikpy_paths, count)
    print(f"{count} paths × {STEPS} steps per chain (ikpy: {ikpy_count} paths); jumps per 10,000 steps")
    print(
        f"{'chain':26s} {'solver':21s} {'steps':>6s} {'failed':>7s} {'wrong':>6s} {'jumps/10k':>10s} {'worst':>8s} {'median µs':>9s}"
    )
    for label, chain in chains():
        if args.only not in label:
            continue
        paths = smooth_paths(chain, count, np.random.default_rng(0))
        for name, solve in our_solvers(chain).items():
            print_row(track(chain, solve, paths, label, name))
        whole = whole_path_solver(chain)
        if whole is not None:
            print_row(track_whole(chain, whole, paths, label))
        if not args.no_peers:
            for name, solve in peer_solvers(chain).items():
                print_row(track(chain, solve, paths[:ikpy_count] if name == "ikpy" else paths, label, name))


if __name__ == "__main__":
    main()
