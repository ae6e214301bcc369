"""Jacobian IK benchmark: our methods against ikpy, roboticstoolbox (ik_LM) and pinocchio (DLS loop).

The same problems for every solver: targets FK(q) of random in-limit q, seeds random in-limit
("random") or q ± 0.25 rad ("near"). Success = position error < 1e-5 m, orientation error
< 1e-4 rad and joints within limits, checked here with our own FK. Prints success %, median and
p99 µs per solve. Peers that are not installed are skipped (bench/requirements.txt lists them;
``make bench`` runs this in .venv-bench/ with them). Then solve_batch: N = 10,000 targets in one
call [µs per target, amortised], and the time to make the first solver in this process (numba's
kernels loaded from the cache, or compiled when the cache is cold).

    python bench/jacobian_bench.py [--quick] [--methods dls,pinv] [--no-peers]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ik_solvers import RobotModel, make_solver
from ik_solvers.spatial import pose_error

CHAINS = [
    (ROOT / "urdf" / "humanoid.urdf", "base_link", "l_sole"),
    (ROOT / "urdf" / "humanoid.urdf", "base_link", "l_hand"),
    (ROOT / "test" / "urdf" / "panda_like.urdf", "panda_link0", "panda_link8"),
]
POSITION_TOL, ORIENTATION_TOL = 1e-5, 1e-4


def serial_urdf(chain) -> str:
    """A URDF of the chain alone (base, one link per movable joint, tip), for the peers."""
    lines = ['<?xml version="1.0"?>', '<robot name="serial">', '  <link name="link0"/>']
    fixed = chain.kinematic_terms()[0]
    for i, joint in enumerate(chain.joints):
        offset = fixed[i]
        lines += [
            f'  <link name="link{i + 1}"/>',
            f'  <joint name="{joint.name}" type="revolute"><parent link="link{i}"/><child link="link{i + 1}"/>',
            f'    <origin xyz="{_vec(offset[:3, 3])}" rpy="{_vec(_rpy(offset[:3, :3]))}"/>',
            f'    <axis xyz="{_vec(joint.axis)}"/>',
            f'    <limit lower="{joint.lower!r}" upper="{joint.upper!r}" effort="1" velocity="1"/></joint>',
        ]
    tip = fixed[chain.n]
    lines += [
        '  <link name="tip"/>',
        f'  <joint name="tip_fixed" type="fixed"><parent link="link{chain.n}"/><child link="tip"/>',
        f'    <origin xyz="{_vec(tip[:3, 3])}" rpy="{_vec(_rpy(tip[:3, :3]))}"/></joint>',
        "</robot>",
    ]
    return "\n".join(lines)


def _vec(values) -> str:
    return " ".join(repr(float(v)) for v in values)


def _rpy(rotation: np.ndarray) -> tuple[float, float, float]:
    pitch = np.arcsin(-np.clip(rotation[2, 0], -1, 1))
    return np.arctan2(rotation[2, 1], rotation[2, 2]), pitch, np.arctan2(rotation[1, 0], rotation[0, 0])


def ours(chain, method: str):
    solver = make_solver("jacobian", chain, method=method, timeout=0.01)
    return lambda target, seed: solver.solve(target, seed).q


def ikpy_solver(chain, path: str):
    from ikpy.chain import Chain as IkpyChain

    mask = [False] + [True] * chain.n + [False]
    ik_chain = IkpyChain.from_urdf_file(path, base_elements=["link0"], active_links_mask=mask)

    def solve(target, seed):
        full = ik_chain.inverse_kinematics_frame(
            target, initial_position=np.r_[0.0, seed, 0.0], orientation_mode="all"
        )
        return full[1:-1]

    return solve


def rtb_solver(chain, path: str):
    import roboticstoolbox as rtb

    robot = rtb.Robot.URDF(path)

    def solve(target, seed):
        return robot.ik_LM(target, q0=seed, end="tip", tol=1e-12, joint_limits=True, ilimit=30, slimit=100)[0]

    return solve


def pinocchio_solver(chain, path: str):
    import pinocchio as pin

    model = pin.buildModelFromUrdf(path)
    data = model.createData()
    frame = model.getFrameId("tip")

    def solve(target, seed):
        goal, q = pin.SE3(target[:3, :3], target[:3, 3]), seed.copy()
        for _ in range(1000):
            pin.framesForwardKinematics(model, data, q)
            error = pin.log6(data.oMf[frame].actInv(goal)).vector
            if np.linalg.norm(error[:3]) < 1e-6 and np.linalg.norm(error[3:]) < 1e-5:
                break
            jacobian = pin.computeFrameJacobian(model, data, q, frame, pin.LOCAL)
            step = jacobian.T @ np.linalg.solve(jacobian @ jacobian.T + 1e-6 * np.eye(6), error)
            q = np.clip(pin.integrate(model, q, 0.5 * step), chain.lower, chain.upper)
        return q

    return solve


PEERS = {"ikpy": ikpy_solver, "rtb ik_LM": rtb_solver, "pinocchio DLS": pinocchio_solver}


def measure(chain, solve, targets, seeds) -> tuple[float, float, float]:
    times, answers = [], []
    for target, seed in zip(targets, seeds):
        start = time.perf_counter()
        answers.append(np.asarray(solve(target, seed), dtype=float))
        times.append(time.perf_counter() - start)
    answers = np.array(answers)
    position, orientation = pose_error(targets, chain.fk(answers))
    ok = (position < POSITION_TOL) & (orientation < ORIENTATION_TOL) & chain.within_limits(answers, 1e-9)
    micro = np.array(times) * 1e6
    return 100 * ok.mean(), float(np.median(micro)), float(np.percentile(micro, 99))


def problems(chain, count: int, rng: np.random.Generator) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """``count`` reachable targets (FK of random in-limit configurations), and two seed sets for
    them: random in-limit configurations, and the answers ± 0.25 rad clipped into the limits."""
    solutions = chain.random_configurations(count, rng)
    random = chain.random_configurations(count, rng)
    near = np.clip(solutions + rng.uniform(-0.25, 0.25, solutions.shape), chain.lower, chain.upper)
    return chain.fk(solutions), {"random": random, "near": near}


def batch_row(chain, label: str, count: int) -> None:
    """solve_batch of ``count`` targets from random and from near seeds: success % and µs per target."""
    targets, seed_sets = problems(chain, count, np.random.default_rng(1))
    solver = make_solver("jacobian", chain, timeout=0.01)
    for kind, seeds in seed_sets.items():
        start = time.perf_counter()
        batch = solver.solve_batch(targets, seeds)
        micro = (time.perf_counter() - start) * 1e6 / count
        print(
            f"{label:22s} {kind:6s} {'dls solve_batch':16s} {100 * batch.success.mean():9.1f} {micro:10.1f}",
            flush=True,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="100 targets instead of 1000")
    parser.add_argument("--methods", default="dls,pinv,weighted_pinv,transpose,ccd")
    parser.add_argument("--no-peers", action="store_true")
    args = parser.parse_args()
    count = 100 if args.quick else 1000
    first = RobotModel.from_urdf_file(str(CHAINS[0][0])).chain(*CHAINS[0][1:])
    start = time.perf_counter()
    make_solver("jacobian", first)
    print(f"first solver made in {time.perf_counter() - start:.2f} s (kernels loaded or compiled)")
    print(f"{'chain':22s} {'seeds':6s} {'solver':16s} {'success %':>9s} {'median µs':>10s} {'p99 µs':>9s}")
    for path, base, tip in CHAINS:
        chain = RobotModel.from_urdf_file(str(path)).chain(base, tip)
        targets, seed_sets = problems(chain, count, np.random.default_rng(0))
        with tempfile.NamedTemporaryFile("w", suffix=".urdf", delete=False) as handle:
            handle.write(serial_urdf(chain))
        solvers = {method: ours(chain, method) for method in args.methods.split(",")}
        for name, factory in ({} if args.no_peers else PEERS).items():
            try:
                solvers[name] = factory(chain, handle.name)
            except ImportError as error:
                print(f"  ({name} skipped: {error}; pip install -r bench/requirements.txt)")
        for kind, seeds in seed_sets.items():
            for name, solve in solvers.items():
                rate, median, p99 = measure(chain, solve, targets, seeds)
                print(
                    f"{base + '→' + tip:22s} {kind:6s} {name:16s} {rate:9.1f} {median:10.0f} {p99:9.0f}",
                    flush=True,
                )
    print(f"\n{'chain':22s} {'seeds':6s} {'N = ' + str(count * 10):16s} {'success %':>9s} {'µs/target':>10s}")
    for path, base, tip in CHAINS:
        batch_row(RobotModel.from_urdf_file(str(path)).chain(base, tip), base + "→" + tip, count * 10)


if __name__ == "__main__":
    main()
