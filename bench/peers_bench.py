"""The package's IK against the fastest IK libraries on PyPI, on the same targets in one run.

Peers (bench/requirements.txt; ``make bench`` runs this in .venv-bench/): EAIK (C++, subproblem
decomposition), ik-geo (Rust, IK-Geo), TRAC-IK (pytracik, C++ KDL + NLopt) and roboticstoolbox's
``ik_LM`` (C++ Levenberg-Marquardt). A peer that is not installed is said so and skipped.

Per chain (a 6-DoF leg of two robots, a 7-DoF S-R-S arm, a 7-DoF arm that is not S-R-S): targets
FK(q) of random in-limit q, seeds near the answer (each joint ± 0.1 rad, uniform, clipped into the
limits), random in-limit, or none. Success is judged here, not by the solver: FK of the returned q
by pinocchio (or the package's ``Chain.fk`` without it) within 1e-5 m and 1e-4 rad of the target,
every joint within its limits (1e-7 rad); "exact" counts successes within 1e-9 m and 1e-9 rad.
Times are wall-clock per single call [µs], median and p99, with the peer's choice of one answer
(the in-limit solution nearest the seed, or the first in-limit one) included; "call" is the
analytic peers' bare call. Batches: solves/s over 10,000 targets where the library has a batch
call (ours ``solve_batch``; EAIK ``IK_batched`` on 2 threads, no choice of answer).

EAIK and ik-geo solve 6-DoF chains only: on 7-DoF arms one joint is locked at a fixed value and
they solve the remaining 6 joints, a different and easier problem (printed "locked jN"). The arm
rows run twice: on targets whose locked joint is at that value (the locked problem always has a
solution) and on targets from any q (where it often has none).

    .venv-bench/bin/python bench/peers_bench.py [--count 300] [--batch 10000]
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

from ik_solvers import RobotModel, make_solver
from ik_solvers.solvers.errors import UnsupportedChainError
from ik_solvers.spatial import pose_error

POSITION_TOL, ORIENTATION_TOL, EXACT, LIMIT_TOL = 1e-5, 1e-4, 1e-9, 1e-7
NEAR = 0.1  # [rad] seeds near the answer: each joint ± this, uniform
OTHER_ROBOT = HumanoidSpec(
    leg=LegDims(hip_y=0.075, root_z=-0.045, w=0.032, upper_z=-0.04, thigh=0.27, shank=0.24, sole_z=-0.05),
    arm=ArmDims(upper_arm=0.21, forearm=0.19, hand=0.08, shoulder_axes="xyz", wrist_axes="zxy"),
    name="other_dims",
)
# ik-geo's 6R families, tried in this order (forward and reversed chain) until one recovers the
# known answers of a few targets
IK_GEO_FAMILIES = (
    "spherical_two_intersecting",
    "spherical_two_parallel",
    "spherical",
    "three_parallel_two_intersecting",
)
IK_GEO_FAMILIES += ("three_parallel", "two_parallel", "two_intersecting")


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


# --- the chain in the H, P form of EAIK and ik-geo ----------------------------------------------


def hp_form(chain, q0: np.ndarray, keep: list[int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Joint axes H (6, 3) and offsets P (7, 3) in the base frame at q0 (the unkept joint locked at
    its q0 value, the kept ones measured from q0 = 0), and the tip's rotation at q0 (FK = HP · R)."""
    frames = chain.joint_frames(q0)
    axes = np.einsum("nij,nj->ni", frames[:, :3, :3], chain.axes)[keep]
    origins = frames[keep, :3, 3]
    tip = chain.fk(q0)
    offsets = np.vstack([origins[:1], np.diff(origins, axis=0), tip[None, :3, 3] - origins[-1:]])
    return axes, offsets, tip[:3, :3]


def pick(solutions: np.ndarray, seed: np.ndarray | None, lower, upper) -> np.ndarray | None:
    """The in-limit row of ``solutions`` nearest ``seed`` (the first in-limit one without a seed)."""
    if not len(solutions):
        return None
    inside = np.all((solutions >= lower - LIMIT_TOL) & (solutions <= upper + LIMIT_TOL), axis=1)
    if not inside.any():
        return None
    rows = solutions[inside]
    if seed is None:
        return rows[0]
    return rows[np.argmin(np.sum((rows - seed) ** 2, axis=1))]


class Analytic:
    """A 6R analytic peer on the chain (one joint locked on 7-DoF chains): ``solve`` returns the
    chosen answer as the whole chain's q, ``call`` the bare library call, ``batch`` or None."""

    def __init__(self, chain, lock: int | None, lock_value: float) -> None:
        self.chain, self.lock = chain, lock
        self.keep = [i for i in range(chain.n) if i != lock]
        q0 = np.zeros(chain.n)
        if lock is not None:
            q0[lock] = lock_value
        self.q0 = q0
        self.H, self.P, self.tip_rotation = hp_form(chain, q0, self.keep)
        self.lower, self.upper = chain.lower[self.keep], chain.upper[self.keep]
        self.batch = None

    def full(self, q6: np.ndarray | None) -> np.ndarray | None:
        if q6 is None:
            return None
        q = self.q0.copy()
        q[self.keep] = q6
        return q

    def solve(self, target, seed):
        solutions = self.solutions(self.call(target))
        return self.full(pick(solutions, None if seed is None else seed[self.keep], self.lower, self.upper))


class Eaik(Analytic):
    def __init__(self, chain, lock, lock_value) -> None:
        from eaik.IK_HP import HPRobot

        super().__init__(chain, lock, lock_value)
        self.robot = HPRobot(self.H, self.P)
        if not self.robot.hasKnownDecomposition():
            raise RuntimeError("EAIK knows no decomposition for this chain")
        self.family = self.robot.getKinematicFamily()
        fix = np.eye(4)
        fix[:3, :3] = self.tip_rotation.T
        self.fix = fix
        self.batch = lambda targets: self.robot.IK_batched(targets @ fix, num_worker_threads=2)

    def call(self, target):
        return self.robot.IK(target @ self.fix)

    @staticmethod
    def solutions(found) -> np.ndarray:
        return np.asarray(found.Q)


class IkGeo(Analytic):
    def __init__(self, chain, lock, lock_value, targets, answers) -> None:
        import ik_geo

        super().__init__(chain, lock, lock_value)
        self.tip = np.eye(4)
        self.tip[:3, :3] = self.tip_rotation
        for family in IK_GEO_FAMILIES:
            for reverse in (False, True):
                H, P = (self.H[::-1], -self.P[::-1]) if reverse else (self.H, self.P)
                self.robot, self.reverse = getattr(ik_geo.Robot, family)(H.tolist(), P.tolist()), reverse
                if self._recovers(targets, answers):
                    self.family = family + (" (reversed chain)" if reverse else "")
                    return
        raise RuntimeError("no ik-geo 6R family recovers this chain's answers")

    def _recovers(self, targets, answers) -> bool:
        for target, answer in zip(targets, answers):
            found = self.solutions(self.call(target))
            gap = (found - answer[self.keep] + np.pi) % (2 * np.pi) - np.pi if len(found) else np.ones((1, 1))
            if np.abs(gap).max(axis=1).min() > 1e-6:
                return False
        return True

    def call(self, target):
        # ik-geo reads (and FK writes) the rotation transposed; HP has no tip rotation
        if self.reverse:  # inverse pose: joints in reverse order, angles negated
            pose = self.tip @ np.linalg.inv(target)
        else:
            pose = target @ np.vstack([np.c_[self.tip_rotation.T, np.zeros(3)], [0, 0, 0, 1]])
        return self.robot.get_ik(np.ascontiguousarray(pose[:3, :3].T), pose[:3, 3])

    def solutions(self, found) -> np.ndarray:
        rows = np.array([row for row, _ in found]).reshape(-1, 6)
        return -rows[:, ::-1] if self.reverse else rows


def trac_ik(chain, urdf: str):
    import pytracik
    from scipy.spatial.transform import Rotation

    solver = pytracik.TRAC_IK("link0", "tip", urdf, 0.01, 1e-6, pytracik.SolveType.Speed)
    middle = 0.5 * (chain.lower + chain.upper)

    def solve(target, seed):
        x, y, z, w = Rotation.from_matrix(target[:3, :3]).as_quat()
        found = pytracik.ik(solver, middle if seed is None else seed, *target[:3, 3], x, y, z, w)
        return found[1:] if len(found) == chain.n + 1 and found[0] >= 0 else None

    return solve


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


def time_rows(solve, targets, seeds) -> tuple[list, np.ndarray]:
    solve(targets[0], None if seeds is None else seeds[0])  # loaded, compiled, cached
    answers, times = [], np.empty(len(targets))
    for i, target in enumerate(targets):
        seed = None if seeds is None else seeds[i]
        start = time.perf_counter()
        answers.append(solve(target, seed))
        times[i] = time.perf_counter() - start
    return answers, times * 1e6


def batch_rate(call, targets: np.ndarray, seeds: np.ndarray | None, repeats: int = 3) -> float:
    """Solves/s of ``call(targets, seeds)``, best of ``repeats`` (after a warm-up on 10 rows)."""
    call(targets[:10], None if seeds is None else seeds[:10])
    best = np.inf
    for _ in range(repeats):
        start = time.perf_counter()
        call(targets, seeds)
        best = min(best, time.perf_counter() - start)
    return len(targets) / best


def solvers_for(chain, path, lock, targets, answers, lock_value, notes) -> dict:
    """name → (solve(target, seed) → q or None, bare call or None, batch(targets, seeds) or None)."""
    urdf = serial_urdf(chain)
    found = {}
    try:
        geometric = make_solver("geometric", chain)
        found["ours closed form"] = (lambda t, s: _ours(geometric, t, s), None, geometric.solve_batch)
    except UnsupportedChainError as error:
        notes.append(f"ours closed form: none ({str(error).splitlines()[0]})")
    dls = make_solver("jacobian", chain, method="dls", timeout=0.01)
    found["ours dls"] = (lambda t, s: _ours(dls, t, s), None, dls.solve_batch)
    locked = "" if lock is None else f" locked j{lock + 1}"
    for name, build in (("EAIK", Eaik), ("ik-geo", IkGeo)):
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
        try:
            solve = build(chain, urdf) if build is trac_ik else _rtb(chain, urdf)
            found[name] = (solve, None, None)
        except ImportError as error:
            notes.append(f"{name}: skipped ({error}; pip install -r bench/requirements.txt)")
    return found


def _ours(solver, target, seed):
    result = solver.solve(target, seed)
    return result.q if result.success else None


def _rtb(chain, urdf: str):
    with tempfile.NamedTemporaryFile("w", suffix=".urdf", delete=False) as handle:
        handle.write(urdf)
    solve = rtb_solver(chain, handle.name)
    return lambda target, seed: solve(target, chain.rest_configuration() if seed is None else seed)


NUMERIC = ("ours dls", "TRAC-IK", "rtb ik_LM")


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
            if seeds is None and name in NUMERIC:
                continue
            answers, times = time_rows(solve, targets, seeds)
            solved, exact = judge(chain, fk, targets, answers)
            median = float(np.median(times))
            reference = reference or median
            bare = (
                float(np.median(time_rows(lambda t, s, c=call: c(t), targets, None)[1])) if call else np.nan
            )
            figures[(label, kind, name)] = (solved.mean(), exact.sum() == solved.sum(), median, bare)
            print(
                f"  {kind:6} {name:20} {solved.mean():7.1%} {exact.sum():5}/{solved.sum():<5} "
                f"{median:8.1f} {np.percentile(times, 99):8.1f} {f'{bare:6.1f}' if call else '':>6} {median / reference:6.2f}",
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
                rate = batch_rate(call, targets[rows], seeds[rows], 1)
            else:
                rate = batch_rate(call, targets, seeds)
            figures[(label, "batch " + kind, name)] = rate
            print(f"  batch {kind:6} {name:20} {rate / 1e6:8.3f} M solves/s", flush=True)


def verdicts(figures: dict) -> None:
    """The issue's figures from this run's rows: each measured value and whether it is met."""
    print("\nfigures (ratios of medians; EAIK's and rtb's medians include choosing one answer)")
    rows = {key: value for key, value in figures.items() if not key[1].startswith("batch")}
    for (label, kind, name), (rate, exact, median, _) in rows.items():
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
            peer_rate, _, peer_median, _ = rows[(label, kind, "rtb ik_LM")]
            if kind == "near":
                ok = median <= peer_median and rate >= peer_rate
                _verdict(
                    ok,
                    f"{label}, near: dls / ik_LM {median / peer_median:.2f} (≤ 1.0), solved {rate:.1%} vs {peer_rate:.1%}",
                )
            else:
                _verdict(rate == 1.0, f"{label}, random: dls solved {rate:.1%} within 10 ms (100 %)")
    for (label, kind, name), rate in figures.items():
        if kind.startswith("batch") and name == "ours closed form":
            goal = 2e6 if "arm" in label else 5e6
            _verdict(rate >= goal, f"{label}, {kind}: {rate / 1e6:.2f} M/s (≥ {goal / 1e6:g} M/s)")


def _verdict(ok: bool, text: str) -> None:
    print(f"  {'met ' if ok else 'MISS'} {text}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=300, help="targets per row (300)")
    parser.add_argument("--batch", type=int, default=10_000, help="targets per batch call (10,000)")
    args = parser.parse_args()
    print(
        f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC, load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs"
    )
    figures: dict = {}
    for label, path, base, tip, lock in chains():
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
        )
        print(f"\n{label} ({base} → {tip}, {chain.n} joints; success checked by {fk_name} FK)")
        for note in notes:
            print(f"  {note}")
        for suffix, rows in target_sets.items():
            print(f" {label}{suffix}")
            print(
                f"  {'seeds':6} {'solver':20} {'solved':>7} {'exact':>11} {'median':>8} {'p99 µs':>8} {'call':>6} {'ratio':>6}"
            )
            bench_targets(label + suffix, chain, fk, solvers, rows, args.count, rng, figures)
        bench_batches(label, chain, solvers, q, args.count, rng, args.batch, figures)
    verdicts(figures)


if __name__ == "__main__":
    main()
