"""The package's IK against the fastest IK libraries on PyPI, on the same targets in one run.

Peers (bench/requirements.txt; ``make bench`` runs this in .venv-bench/): EAIK (C++, subproblem
decomposition), ik-geo (Rust, IK-Geo), TRAC-IK (pytracik, C++ KDL + NLopt) and roboticstoolbox's
``ik_LM`` (C++ Levenberg-Marquardt). A peer that is not installed is said so and skipped.

Per chain (a 6-DoF leg of two robots, a 7-DoF S-R-S arm, a 7-DoF arm that is not S-R-S): targets
FK(q) of random in-limit q, seeds near the answer (each joint ± 0.1 rad, uniform, clipped into the
limits), random in-limit, or none. Success is judged here, not by the solver: FK of the returned q
by pinocchio (or the package's ``Chain.fk`` without it) within 1e-5 m and 1e-4 rad of the target,
every joint within its limits (1e-7 rad); "exact" counts successes within 1e-9 m and 1e-9 rad.
Times are per single call [µs]: wall-clock median and p99 and the median CPU time, with the
peer's choice of one answer (the in-limit solution nearest the seed, or the first in-limit one)
included; "call" is the analytic peers' bare call (wall median); "ratio" the wall median over the
first row's. Batches: solves/s over 10,000 targets where the library has a batch
call (ours ``solve_batch``; EAIK ``IK_batched`` on 2 threads, no choice of answer).

Our dls runs with its 10 ms budget, which is wall time: on a shared machine a solve that waits for
a CPU runs out of it. From random seeds it runs once more without a time limit ("ours dls, no
limit"), and the figures say how many of those it solved and the longest CPU time one took.

EAIK and ik-geo solve 6-DoF chains only: on 7-DoF arms one joint is locked at a fixed value and
they solve the remaining 6 joints, a different and easier problem (printed "locked jN"). The arm
rows run twice: on targets whose locked joint is at that value (the locked problem always has a
solution) and on targets from any q (where it often has none).

    .venv-bench/bin/python bench/peers_bench.py [--count 300] [--batch 10000] [--chain TEXT] [--peers NAMES]

``--chain`` keeps the chains whose label holds TEXT (e.g. ``Panda``); ``--peers`` keeps ours and the
named peers (comma-separated, e.g. ``ik_LM`` or ``EAIK,TRAC-IK``); ``--batch 0`` skips the batches.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "test"))

from humanoid_factory import ArmDims, HumanoidSpec, LegDims, humanoid_urdf
from jacobian_bench import rtb_solver, serial_urdf
from peer_solvers import LIMIT_TOL, Eaik, IkGeo, trac_ik

from ik_solvers import RobotModel, make_solver
from ik_solvers.solvers.errors import UnsupportedChainError
from ik_solvers.spatial import pose_error

POSITION_TOL, ORIENTATION_TOL, EXACT = 1e-5, 1e-4, 1e-9
NEAR = 0.1  # [rad] seeds near the answer: each joint ± this, uniform
OTHER_ROBOT = HumanoidSpec(
    leg=LegDims(hip_y=0.075, root_z=-0.045, w=0.032, upper_z=-0.04, thigh=0.27, shank=0.24, sole_z=-0.05),
    arm=ArmDims(upper_arm=0.21, forearm=0.19, hand=0.08, shoulder_axes="xyz", wrist_axes="zxy"),
    name="other_dims",
)


def chains() -> list[tuple[str, object, str, str, int | None]]:
    """(label, URDF path, base, tip, joint locked for the 6-DoF peers or None) per chain."""
    other = Path(tempfile.mkdtemp()) / "other_dims.urdf"
    other.write_text(humanoid_urdf(OTHER_ROBOT))
    packaged = ROOT / "urdf" / "humanoid.urdf"
    return [
        ("leg, packaged humanoid", packaged, "base_link", "l_sole", None),
        ("leg, other dimensions", other, "base_link", "r_sole", None),
        ("S-R-S arm, packaged", packaged, "base_link", "l_hand", 2),
        ("S-R-S arm, other dims", other, "base_link", "r_hand", 2),
        (
            "Panda-like (not S-R-S)",
            ROOT / "test" / "urdf" / "panda_like.urdf",
            "panda_link0",
            "panda_link8",
            4,
        ),
    ]


# --- measuring -----------------------------------------------------------------------------------


def fk_check(chain, urdf: str):
    """FK of (N, n) q by pinocchio from the chain's URDF, or by Chain.fk without pinocchio."""
    try:
        import pinocchio as pin
    except ImportError:
        return chain.fk, "ik_solvers Chain.fk"
    model = pin.buildModelFromXML(urdf)
    data, frame = model.createData(), model.getFrameId("tip")

    def fk(q):
        poses = np.empty((len(q), 4, 4))
        for i, row in enumerate(q):
            pin.framesForwardKinematics(model, data, row)
            poses[i] = data.oMf[frame].homogeneous
        return poses

    return fk, "pinocchio"


def judge(chain, fk, targets, answers: list) -> tuple[np.ndarray, np.ndarray]:
    """Success (1e-5 m, 1e-4 rad, limits) and exactness (1e-9) of each answer (None: not solved)."""
    q = np.array([chain.rest_configuration() if a is None else a for a in answers], dtype=float)
    given = np.array([a is not None for a in answers])
    position, angle = pose_error(targets, fk(q))
    inside = chain.within_limits(q, LIMIT_TOL)
    solved = given & inside & (position < POSITION_TOL) & (angle < ORIENTATION_TOL)
    return solved, solved & (position <= EXACT) & (angle <= EXACT)


def time_rows(solve, targets, seeds) -> tuple[list, np.ndarray, np.ndarray]:
    """Answers of ``solve`` one target at a time, their wall times and CPU times [µs] (this
    process's: what neighbours on a shared machine disturb least)."""
    solve(targets[0], None if seeds is None else seeds[0])  # loaded, compiled, cached
    answers, times, cpu = [], np.empty(len(targets)), np.empty(len(targets))
    for i, target in enumerate(targets):
        seed = None if seeds is None else seeds[i]
        start, start_cpu = time.perf_counter(), time.process_time()
        answers.append(solve(target, seed))
        times[i], cpu[i] = time.perf_counter() - start, time.process_time() - start_cpu
    return answers, times * 1e6, cpu * 1e6


def batch_rate(call, targets: np.ndarray, seeds: np.ndarray | None, repeats: int = 3) -> tuple[float, float]:
    """Solves per wall second and per CPU second of this process (all its threads) of
    ``call(targets, seeds)``, best of ``repeats`` (after a warm-up on 10 rows)."""
    call(targets[:10], None if seeds is None else seeds[:10])
    wall = cpu = np.inf
    for _ in range(repeats):
        start, start_cpu = time.perf_counter(), time.process_time()
        call(targets, seeds)
        wall, cpu = min(wall, time.perf_counter() - start), min(cpu, time.process_time() - start_cpu)
    return len(targets) / wall, len(targets) / cpu


def solvers_for(chain, path, lock, targets, answers, lock_value, notes, peers=None) -> dict:
    """name → (solve(target, seed) → q or None, bare call or None, batch(targets, seeds) or None);
    of the peers only those whose name holds one of ``peers`` (None: all)."""
    urdf = serial_urdf(chain)
    found = {}
    try:
        geometric = make_solver("geometric", chain)
        found["ours closed form"] = (lambda t, s: _ours(geometric, t, s), None, geometric.solve_batch)
    except UnsupportedChainError as error:
        notes.append(f"ours closed form: none ({str(error).splitlines()[0]})")
    dls = make_solver("jacobian", chain, method="dls", timeout=0.01)
    found["ours dls"] = (lambda t, s: _ours(dls, t, s), None, dls.solve_batch)
    unlimited = make_solver("jacobian", chain, method="dls", timeout=None)
    found[UNLIMITED] = (lambda t, s: _ours(unlimited, t, s), None, None)
    locked = "" if lock is None else f" locked j{lock + 1}"
    for name, build in (("EAIK", Eaik), ("ik-geo", IkGeo)):
        if not _wanted(name, peers):
            continue
        try:
            extra = (targets[:20], answers[:20]) if build is IkGeo else ()
            peer = build(chain, lock, lock_value, *extra)
        except (ImportError, RuntimeError) as error:
            notes.append(f"{name}: skipped ({error})")
            continue
        notes.append(f"{name}{locked}: {peer.family}")
        batch = (lambda t, s, b=peer.batch: b(t)) if peer.batch else None
        found[name + locked] = (peer.solve, peer.call, batch)
    for name, build in (("TRAC-IK", trac_ik), ("rtb ik_LM", rtb_solver)):
        if not _wanted(name, peers):
            continue
        try:
            solve = build(chain, urdf) if build is trac_ik else _rtb(chain, urdf)
            found[name] = (solve, None, None)
        except ImportError as error:
            notes.append(f"{name}: skipped ({error}; pip install -r bench/requirements.txt)")
    return found


def _wanted(name: str, peers: list[str] | None) -> bool:
    return peers is None or any(peer in name for peer in peers)


def _ours(solver, target, seed):
    result = solver.solve(target, seed)
    return result.q if result.success else None


def _rtb(chain, urdf: str):
    with tempfile.NamedTemporaryFile("w", suffix=".urdf", delete=False) as handle:
        handle.write(urdf)
    solve = rtb_solver(chain, handle.name)
    return lambda target, seed: solve(target, chain.rest_configuration() if seed is None else seed)


UNLIMITED = "ours dls, no limit"  # random seeds only: what the 10 ms wall budget cuts on a loaded machine
NUMERIC = ("ours dls", UNLIMITED, "TRAC-IK", "rtb ik_LM")


def bench_targets(label, chain, fk, solvers, q, count, rng, figures) -> None:
    targets = chain.fk(q)
    seed_sets = {
        "near": np.clip(q + rng.uniform(-NEAR, NEAR, q.shape), chain.lower, chain.upper),
        "random": chain.random_configurations(count, rng),
        "none": None,
    }
    for kind, seeds in seed_sets.items():
        reference = None
        for name, (solve, call, _) in solvers.items():
            if (seeds is None and name in NUMERIC) or (name == UNLIMITED and kind != "random"):
                continue
            answers, times, cpu = time_rows(solve, targets, seeds)
            solved, exact = judge(chain, fk, targets, answers)
            median = float(np.median(times))
            reference = reference or median
            bare = (
                float(np.median(time_rows(lambda t, s, c=call: c(t), targets, None)[1])) if call else np.nan
            )
            figures[(label, kind, name)] = (
                solved.mean(),
                exact.sum() == solved.sum(),
                median,
                bare,
                cpu.max(),
            )
            print(
                f"  {kind:6} {name:20} {solved.mean():7.1%} {exact.sum():5}/{solved.sum():<5} "
                f"{median:8.1f} {np.percentile(times, 99):8.1f} {np.median(cpu):6.1f} {f'{bare:6.1f}' if call else '':>6} "
                f"{median / reference:6.2f}",
                flush=True,
            )


def bench_batches(label, chain, solvers, q, count, rng, batch, figures) -> None:
    big = np.resize(q, (batch, chain.n))
    targets = chain.fk(big)
    near = np.clip(big + rng.uniform(-NEAR, NEAR, big.shape), chain.lower, chain.upper)
    for name, (_, _, call) in solvers.items():
        for kind, seeds in (("near", near), ("none", None)):
            if call is None or (seeds is None and name in NUMERIC) or (seeds is not None and "EAIK" in name):
                continue
            if name == "ours dls":  # iterations: a tenth of the rows, once
                rows = slice(0, batch // 10)
                rate, cpu_rate = batch_rate(call, targets[rows], seeds[rows], 1)
            else:
                rate, cpu_rate = batch_rate(call, targets, seeds)
            figures[(label, "batch " + kind, name)] = cpu_rate
            print(
                f"  batch {kind:6} {name:20} {rate / 1e6:8.3f} M solves/s ({cpu_rate / 1e6:.3f} M per CPU second)",
                flush=True,
            )


def verdicts(figures: dict) -> None:
    """The issue's figures from this run's rows: each measured value and whether it is met."""
    print("\nfigures (ratios of medians; EAIK's and rtb's medians include choosing one answer)")
    rows = {key: value for key, value in figures.items() if not key[1].startswith("batch")}
    for (label, kind, name), (rate, exact, median, _, _) in rows.items():
        arm = "arm" in label
        if name == "ours closed form":
            eaik = [v for k, v in rows.items() if k[:2] == (label, kind) and k[2].startswith("EAIK")]
            if eaik and (not arm or "targets with" in label):
                goal = 1.0 if arm else 0.5
                ok = median <= goal * eaik[0][2] and (rate == 1.0 or not arm)
                _verdict(
                    ok,
                    f"{label}, {kind}: closed form / EAIK {median / eaik[0][2]:.2f} (≤ {goal}; "
                    f"{median / eaik[0][3]:.2f} of its bare call), solved {rate:.1%}",
                )
            if kind != "none" and (label, "none", name) in rows:
                unseeded = rows[(label, "none", name)][2]
                _verdict(
                    median <= 1.2 * unseeded,
                    f"{label}, {kind}: seeded / unseeded {median / unseeded:.2f} (≤ 1.2)",
                )
            _verdict(exact, f"{label}, {kind}: every closed-form success exact (1e-9 m, 1e-9 rad)")
        if name == "ours dls" and (label, kind, "rtb ik_LM") in rows:
            peer_rate, _, peer_median, _, _ = rows[(label, kind, "rtb ik_LM")]
            if kind == "near":
                ok = median <= peer_median and rate >= peer_rate
                _verdict(
                    ok,
                    f"{label}, near: dls / ik_LM {median / peer_median:.2f} (≤ 1.0), solved {rate:.1%} vs {peer_rate:.1%}",
                )
            else:
                _verdict(rate == 1.0, f"{label}, random: dls solved {rate:.1%} within 10 ms (100 %)")
                unlimited_rate, *_, longest = rows[(label, kind, UNLIMITED)]
                _verdict(
                    unlimited_rate == 1.0 and longest <= 1e4,
                    f"{label}, random: dls without a time limit solved {unlimited_rate:.1%}, the longest in "
                    f"{longest / 1e3:.2f} ms of CPU (100 % within 10 ms)",
                )
    for (label, kind, name), rate in figures.items():
        if kind.startswith("batch") and name == "ours closed form":
            goal = 2e6 if "arm" in label else 5e6
            _verdict(
                rate >= goal, f"{label}, {kind}: {rate / 1e6:.2f} M per CPU second (≥ {goal / 1e6:g} M/s)"
            )


def _verdict(ok: bool, text: str) -> None:
    print(f"  {'met ' if ok else 'MISS'} {text}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=300, help="targets per row (300)")
    parser.add_argument("--batch", type=int, default=10_000, help="targets per batch call (10,000; 0: none)")
    parser.add_argument("--chain", default="", help="only the chains whose label holds this text")
    parser.add_argument("--peers", default=None, help="only these peers, comma-separated (default: all)")
    args = parser.parse_args()
    peers = None if args.peers is None else [name.strip() for name in args.peers.split(",") if name.strip()]
    print(
        f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC, load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs"
    )
    figures: dict = {}
    for label, path, base, tip, lock in chains():
        if args.chain not in label:
            continue
        chain = RobotModel.from_urdf_file(str(path)).chain(base, tip)
        rng = np.random.default_rng(0)
        lock_value = 0.0 if lock is None else float(np.clip(0.0, chain.lower[lock], chain.upper[lock]))
        q = chain.random_configurations(args.count, rng)
        target_sets = {"": q}
        if lock is not None:
            pinned = q.copy()
            pinned[:, lock] = lock_value
            target_sets = {f", targets with j{lock + 1} = {lock_value:g}": pinned, ", targets from any q": q}
        fk, fk_name = fk_check(chain, serial_urdf(chain))
        notes: list[str] = []
        solvers = solvers_for(
            chain,
            path,
            lock,
            chain.fk(next(iter(target_sets.values()))),
            next(iter(target_sets.values())),
            lock_value,
            notes,
            peers,
        )
        print(f"\n{label} ({base} → {tip}, {chain.n} joints; success checked by {fk_name} FK)")
        for note in notes:
            print(f"  {note}")
        for suffix, rows in target_sets.items():
            print(f" {label}{suffix}")
            print(
                f"  {'seeds':6} {'solver':20} {'solved':>7} {'exact':>11} {'median':>8} {'p99 µs':>8} {'CPU':>6} {'call':>6} {'ratio':>6}"
            )
            bench_targets(label + suffix, chain, fk, solvers, rows, args.count, rng, figures)
        if args.batch:
            bench_batches(label, chain, solvers, q, args.count, rng, args.batch, figures)
    verdicts(figures)


if __name__ == "__main__":
    main()
