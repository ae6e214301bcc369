"""The closed forms' answers (7-DoF arm, or 6-DoF leg with ``--limb leg``) on a fixed set of targets
and seeds, saved, then compared.

For a change that must keep the answers (the seed following's reference semantics,
docs/continuity.md): run it once with each tree's code on the same command line, then compare.
On the packaged humanoid's ``l_wrist``, ``r_wrist`` and ``l_hand`` (``--limb leg``: ``l_sole``
and ``r_sole``): ``--rows`` targets per chain
(random in-limit configurations' FK, a tenth moved out of reach), each with the seeds none, self,
± 0.1, ± 0.5 and ± 1 rad σ (clipped into the limits) and random; ``solve_batch`` on all of them,
single ``solve`` calls on the first ``--singles``. Saved: q, success, ``continuous``, the
messages and the reported position and orientation errors. ``--compare A B`` prints, per chain and
seed kind, the largest |Δq| [rad] and how many rows differ in success, ``continuous``, message or
errors (to the bit), then the worst over all.

    PYTHONPATH=/work/main .venv/bin/python bench/arm_answers.py --save /tmp/main.npz
    PYTHONPATH=$PWD .venv/bin/python bench/arm_answers.py --save /tmp/branch.npz
    .venv/bin/python bench/arm_answers.py --compare /tmp/main.npz /tmp/branch.npz

(add ``--limb leg`` to the two ``--save`` runs for the legs; ``--compare`` reads the chains from the files).
"""

from __future__ import annotations

import argparse

import numpy as np

TIPS = {"arm": ("l_wrist", "r_wrist", "l_hand"), "leg": ("l_sole", "r_sole")}
SEEDS = ("none", "self", "0.1", "0.5", "1", "random")


def _cases(chain, rows: int, rng: np.random.Generator) -> tuple[np.ndarray, dict]:
    """Targets (rows, 4, 4) and each seed kind's seeds (rows, n) or None."""
    q = chain.random_configurations(rows, rng)
    targets = chain.fk(q)
    far = rng.random(rows) < 0.1
    targets[far, :3, 3] *= 3.0  # three times as far from the base: out of the arm's reach
    seeds = {"none": None, "self": q.copy(), "random": chain.random_configurations(rows, rng)}
    for sigma in ("0.1", "0.5", "1"):
        seeds[sigma] = np.clip(q + rng.normal(0.0, float(sigma), q.shape), chain.lower, chain.upper)
    return targets, {kind: seeds[kind] for kind in SEEDS}


def save(path: str, rows: int, singles: int, limb: str) -> None:
    import ik_solvers as ik
    from ik_solvers.resources import package_share_path

    model = ik.RobotModel.from_urdf_file(str(package_share_path("urdf", "humanoid.urdf")))
    out = {}
    for tip in TIPS[limb]:
        chain = model.chain("base_link", tip)
        solver = ik.make_solver("geometric", chain)
        targets, seeds = _cases(chain, rows, np.random.default_rng(19))
        for kind, seed in seeds.items():
            batch = solver.solve_batch(targets, seeds=seed)
            results = [
                solver.solve(targets[i], seed=None if seed is None else seed[i]) for i in range(singles)
            ]
            key = f"{tip}/{kind}"
            out[key + "/batch_q"], out[key + "/batch_success"] = batch.q, batch.success
            out[key + "/batch_continuous"] = batch.continuous
            out[key + "/batch_messages"] = np.array(batch.messages)
            out[key + "/batch_errors"] = np.stack([batch.position_error, batch.orientation_error], axis=-1)
            out[key + "/single_q"] = np.array([r.q for r in results])
            out[key + "/single_success"] = np.array([r.success for r in results])
            out[key + "/single_continuous"] = np.array([r.continuous for r in results])
            out[key + "/single_messages"] = np.array([r.message for r in results])
            out[key + "/single_errors"] = np.array([(r.position_error, r.orientation_error) for r in results])
    np.savez_compressed(path, **out)
    print(
        f"saved {len(TIPS[limb])} {limb} chains × {len(SEEDS)} seed kinds × ({rows} batch rows + {singles} single solves)"
    )


def _same_errors(a, b, key: str) -> np.ndarray | bool:
    """Per row: both reported errors [m], [rad] equal to the bit (NaN to NaN), or True where a file
    was saved before the errors were."""
    if key not in a.files or key not in b.files:
        return True
    return np.all(a[key].view(np.int64) == b[key].view(np.int64), axis=-1)


def compare(first: str, second: str) -> None:
    a, b = np.load(first), np.load(second)
    worst, differing, rows = 0.0, 0, 0
    tips = sorted({key.split("/")[0] for key in a.files})
    for tip in tips:
        for kind in SEEDS:
            for call in ("batch", "single"):
                key = f"{tip}/{kind}/{call}"
                dq = float(np.max(np.abs(a[key + "_q"] - b[key + "_q"]), initial=0.0))
                flags = ~(
                    (a[key + "_success"] == b[key + "_success"])
                    & (a[key + "_continuous"] == b[key + "_continuous"])
                    & (a[key + "_messages"] == b[key + "_messages"])
                    & _same_errors(a, b, key + "_errors")
                )
                worst, differing, rows = max(worst, dq), differing + int(flags.sum()), rows + len(flags)
                print(
                    f"{key:24} rows {len(flags):7}  max |Δq| {dq:.3e} rad  flags/messages/errors differ {flags.sum()}"
                )
    print(
        f"all: {rows} rows, max |Δq| {worst:.3e} rad, {differing} rows differ in success/continuous/message/errors"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--limb", choices=sorted(TIPS), default="arm", help="the chains to --save")
    parser.add_argument("--save", help="solve and save the answers to this .npz")
    parser.add_argument("--compare", nargs=2, help="compare two saved .npz")
    parser.add_argument("--rows", type=int, default=100_000, help="batch rows per chain and seed kind")
    parser.add_argument("--singles", type=int, default=2_000, help="single solves per chain and seed kind")
    options = parser.parse_args()
    if options.save:
        save(options.save, options.rows, options.singles, options.limb)
    if options.compare:
        compare(*options.compare)


if __name__ == "__main__":
    main()
