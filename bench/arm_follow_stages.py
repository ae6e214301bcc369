"""Where a seeded 7-DoF arm solve spends its time: the compiled seed following cut stage by stage.

On ``bench/quick.py``'s targets (the packaged humanoid's ``l_wrist``, 200 random in-limit
configurations, seeds ± 0.1 rad σ from them), one compiled loop runs every row up to a stage and
stops there; the CPU time per row [µs] of each cut (best of 5 runs of 20 passes), and what each
stage adds, is printed:

0. the construction (elbow, shoulder frame at the seed's swivel);
1. the split of both triples at the seed's swivel on the seed's branches;
2. the swivel forms of both triples;
3. the feasible interval of the seed's branches, where the seed's swivel leaves the limits;
4. the candidate swivels (where a first or third joint takes its seed value, then the samples:
   ``kernels/arm7_follow._best_sample``);
5. the refinement of the best by the Newton steps (``kernels/arm7_newton.descend``).

Then the refinement alone: each row's state before it (construction, forms, best sample) stored
once, and only ``descend`` timed from copies of it (the difference of cuts 4 and 5 is noisy on a
shared machine), with how many rows it refines and how many of those converge.

Since the Newton short way (``kernels/arm7_newton.py``, docs/benchmarks.md "Fifth session"),
stages 4-5 run only on rows whose short answer is not trusted; the cuts here still run them on
every row (the cost of that fallback), not the cost of a seeded solve. The FK check that
``solve`` adds is not included. CPU time (``time.process_time``) so that
neighbours on a shared machine move the figures less; the load is printed first.

    .venv/bin/python bench/arm_follow_stages.py [--seeds random] [--passes 20]
"""

from __future__ import annotations

import argparse
import os
import time

import numba
import numpy as np

import ik_solvers as ik
from ik_solvers.resources import package_share_path
from ik_solvers.solvers.geometric.kernels import arm7, arm7_follow, arm7_newton, arm7_solve
from ik_solvers.solvers.geometric.kernels.axis_triple import LIMIT_TOLERANCE

STAGES = ("construction", "split at the seed's swivel", "swivel forms", "feasible interval")
STAGES += ("candidate swivels", "refinement")


@numba.njit
def _run(shoulder, wrist, geo, entries, seeds, work, stage, passes):
    """Every row of ``entries`` (N, 16) with its seed (N, 7) up to ``stage`` (0-5), ``passes`` times."""
    arm, forms, scratch, order, steps = work
    q, total = np.empty(7), 0.0
    for _ in range(passes):
        for m in range(entries.shape[0]):
            rotation, position = arm7_solve._pose(entries[m])
            arm7_solve.construct(geo, rotation, position, seeds[m], True, (0.0, 0.0, 0.0), False, False, arm)
            if stage == 0:
                continue
            violation, s_up, w_up = arm7.seed_branches(
                shoulder, wrist, geo, arm, arm7._columns(arm, arm7.FRAME), q
            )
            if stage == 1:
                continue
            arm7.groups(shoulder, wrist, geo, arm, forms)
            if stage == 2:
                continue
            psi = 0.0
            if violation > LIMIT_TOLERANCE:
                s_branch, w_branch = 1 if s_up else 0, 1 if w_up else 0
                found, psi = arm7.nearest_feasible_swivel(
                    shoulder, wrist, forms, arm, s_branch, w_branch, scratch
                )
                if not found:
                    continue
                arm7._at(shoulder, wrist, forms, arm, s_up, w_up, psi, q)
            if stage == 3:
                continue
            points = arm7_follow.seed_points(arm)
            count = arm7_follow._candidates(forms, points, scratch, order)
            psi, s_up, w_up = arm7_follow._best_sample(
                shoulder, wrist, forms, arm, points, psi, s_up, w_up, q, steps, scratch, count
            )
            if stage == 5 and arm7_follow._step(q, arm) > arm7_follow.FOLLOW_STEP:
                arm7_newton.descend(shoulder, wrist, geo, forms, arm, s_up, w_up, psi, q, steps[1])
            total += q[0]
    return total


@numba.njit
def _states(shoulder, wrist, geo, entries, seeds, work, arms, forms_of, starts, branches):
    """Every row's state before the refinement (the cuts' stage 4) into arms (N, ARM), forms_of
    (N, 2, ENTRIES, 3), starts (N, 8: ψ [rad], then q) and branches (N, 2); returns a mask of the
    rows the solve refines (the best sample further than FOLLOW_STEP from the seed)."""
    arm, forms, scratch, order, steps = work
    q, refined = np.empty(7), np.zeros(entries.shape[0], np.bool_)
    for m in range(entries.shape[0]):
        rotation, position = arm7_solve._pose(entries[m])
        arm7_solve.construct(geo, rotation, position, seeds[m], True, (0.0, 0.0, 0.0), False, False, arm)
        violation, s_up, w_up = arm7.seed_branches(
            shoulder, wrist, geo, arm, arm7._columns(arm, arm7.FRAME), q
        )
        arm7.groups(shoulder, wrist, geo, arm, forms)
        psi = 0.0
        if violation > LIMIT_TOLERANCE:
            found, psi = arm7.nearest_feasible_swivel(
                shoulder, wrist, forms, arm, 1 if s_up else 0, 1 if w_up else 0, scratch
            )
            if not found:
                continue
            arm7._at(shoulder, wrist, forms, arm, s_up, w_up, psi, q)
        points = arm7_follow.seed_points(arm)
        count = arm7_follow._candidates(forms, points, scratch, order)
        psi, s_up, w_up = arm7_follow._best_sample(
            shoulder, wrist, forms, arm, points, psi, s_up, w_up, q, steps, scratch, count
        )
        refined[m] = arm7_follow._step(q, arm) > arm7_follow.FOLLOW_STEP
        arms[m], forms_of[m], starts[m, 0], starts[m, 1:] = arm, forms, psi, q
        branches[m, 0], branches[m, 1] = s_up, w_up
    return refined


@numba.njit
def _refine(shoulder, wrist, geo, arms, forms_of, starts, branches, rows, passes):
    """``descend`` from each of ``rows``' stored states, ``passes`` times; returns how many converged
    in the last pass."""
    q, trial, converged = np.empty(7), np.empty(7), 0
    for _ in range(passes):
        converged = 0
        for m in rows:
            q[:] = starts[m, 1:]
            converged += arm7_newton.descend(
                shoulder,
                wrist,
                geo,
                forms_of[m],
                arms[m],
                branches[m, 0],
                branches[m, 1],
                starts[m, 0],
                q,
                trial,
            )
    return converged


def _best_time(run, passes: int) -> float:
    """The least CPU time [s] of 5 calls of ``run(passes)``, after one warm-up call."""
    run(1)
    best = np.inf
    for _ in range(5):
        start = time.process_time()
        run(passes)
        best = min(best, time.process_time() - start)
    return best


def _refinement_alone(kernels, entries, seeds, passes: int) -> None:
    """Print the CPU time of the refinement alone, per row refined and per row."""
    count = len(entries)
    arms = np.zeros((count, kernels.work[0].shape[0]))
    forms_of = np.zeros((count, *kernels.work[1].shape))
    starts, branches = np.zeros((count, 8)), np.zeros((count, 2), np.bool_)
    refined = _states(*kernels.constants, entries, seeds, kernels.work, arms, forms_of, starts, branches)
    rows = np.flatnonzero(refined)
    converged = _refine(*kernels.constants, arms, forms_of, starts, branches, rows, 1)
    best = _best_time(
        lambda n: _refine(*kernels.constants, arms, forms_of, starts, branches, rows, n), passes
    )
    per_refined = best / (passes * max(len(rows), 1)) * 1e6
    print(
        f"refinement alone: {len(rows)} of {count} rows refined ({converged} converge), "
        f"{per_refined:.3f} µs a row refined, {per_refined * len(rows) / count:.3f} µs a row"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--seeds", choices=("near", "random"), default="near", help="seeds ± 0.1 rad σ or random"
    )
    parser.add_argument("--passes", type=int, default=20, help="passes over the rows a timing")
    args = parser.parse_args()
    model = ik.RobotModel.from_urdf_file(str(package_share_path("urdf", "humanoid.urdf")))
    chain = model.chain("base_link", "l_wrist")
    rng = np.random.default_rng(1)
    q = chain.random_configurations(200, rng)
    entries = np.ascontiguousarray(chain.fk(q).reshape(-1, 16))
    seeds = np.clip(q + rng.normal(0.0, 0.1, q.shape), chain.lower, chain.upper)
    if args.seeds == "random":
        seeds = chain.random_configurations(len(q), rng)
    kernels = ik.make_solver("geometric", chain)._kernels
    print(
        f"load average (1 min) {os.getloadavg()[0]:.1f}; CPU µs a row, best of 5 × {args.passes} passes "
        "over 200 rows"
    )
    previous = 0.0
    for stage, name in enumerate(STAGES):
        best = _best_time(
            lambda n, stage=stage: _run(*kernels.constants, entries, seeds, kernels.work, stage, n),
            args.passes,
        )
        per_row = best / (args.passes * len(entries)) * 1e6
        print(f"{stage} {name:27s} {per_row:6.2f}  (+{per_row - previous:.2f})")
        previous = per_row
    _refinement_alone(kernels, entries, seeds, args.passes)


if __name__ == "__main__":
    main()
