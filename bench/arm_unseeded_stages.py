"""Where an unseeded 7-DoF arm solve spends its time: the compiled solve cut stage by stage.

On the packaged humanoid's ``l_wrist`` (``--rows`` random in-limit configurations' FK, a tenth
moved out of reach as ``bench/arm_answers.py`` does), one compiled loop runs every row up to a
stage and stops there; the CPU time per row [ns] of each cut (best of 5 runs) and what each stage
adds is printed, with how many rows reach the swivel search:

0. the construction (elbow, shoulder frame at the default swivel);
1. the split of both triples there (``kernels/arm7.joints``);
2. the swivel forms of both triples, on the rows whose split leaves the limits;
3. the nearest feasible swivel (``kernels/arm7.nearest_feasible_swivel``) on those rows;
4. the split at that swivel (the search's ``joints``), then the other elbow bend where none;
5. the clipping and the FK check (``kernels/arm7_solve._finish``): the whole solve.

CPU time (``time.process_time``): neighbours on a shared machine move it less; the load is
printed first.

    .venv/bin/python bench/arm_unseeded_stages.py [--rows 2000]
"""

from __future__ import annotations

import argparse
import os
import time

import numba
import numpy as np

import ik_solvers as ik
from ik_solvers.resources import package_share_path
from ik_solvers.solvers.geometric.kernels import arm7, arm7_solve
from ik_solvers.solvers.geometric.kernels.axis_triple import LIMIT_TOLERANCE

STAGES = ("construction", "split at the default swivel", "swivel forms", "nearest feasible swivel")
STAGES += ("split there, other elbow", "clip and FK check")


@numba.njit
def _search(shoulder, wrist, geo, arm, q, forms, scratch, stage):
    """arm7.search cut at ``stage`` (2-4)."""
    arm7.groups(shoulder, wrist, geo, arm, forms)
    if stage == 2:
        return True
    found, psi = arm7.nearest_feasible_swivel(shoulder, wrist, forms, arm, -1, -1, scratch)
    if found and stage >= 4:
        arm7.joints(shoulder, wrist, geo, arm, arm7._turned(arm, psi), q)
    return found


@numba.njit
def _run(shoulder, wrist, geo, entries, work, stage, passes):
    """Every row of ``entries`` (N, 16), unseeded, up to ``stage`` (0-5), ``passes`` times; returns
    the rows that reach the search in one pass and a checksum."""
    arm, forms, scratch, _, steps = work
    q, total, searched = np.empty(7), 0.0, 0
    seed, pole = geo[arm7_solve.REST : arm7_solve.REST + 7], (0.0, 0.0, 0.0)
    for _ in range(passes):
        searched = 0
        for m in range(entries.shape[0]):
            rotation, position = arm7_solve._pose(entries[m])
            reason, alternative, _ = arm7_solve.construct(
                geo, rotation, position, seed, False, pole, False, False, arm
            )
            if stage == 0:
                continue
            violation = arm7.joints(shoulder, wrist, geo, arm, arm7._columns(arm, arm7.FRAME), q)
            if stage >= 2 and reason != arm7_solve.ELBOW_LIMITS and violation > LIMIT_TOLERANCE:
                searched += 1
                moved = _search(shoulder, wrist, geo, arm, steps[3], forms, scratch, stage)
                if not moved and alternative and stage >= 4:
                    arm7_solve.construct(geo, rotation, position, seed, False, pole, False, True, arm)
                    moved = _search(shoulder, wrist, geo, arm, steps[3], forms, scratch, stage)
                if moved and stage >= 4:
                    for i in range(7):
                        q[i] = steps[3][i]
            if stage == 5:
                total += arm7_solve._finish(geo, q, reason, rotation, position)[1]
            total += q[0]
    return searched, total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=2000, help="targets (default 2000)")
    parser.add_argument("--passes", type=int, default=5, help="passes over the rows a run (default 5)")
    args = parser.parse_args()
    model = ik.RobotModel.from_urdf_file(str(package_share_path("urdf", "humanoid.urdf")))
    chain = model.chain("base_link", "l_wrist")
    rng = np.random.default_rng(1)
    targets = chain.fk(chain.random_configurations(args.rows, rng))
    targets[rng.random(args.rows) < 0.1, :3, 3] *= 3.0
    entries = np.ascontiguousarray(targets.reshape(-1, 16))
    kernels = ik.make_solver("geometric", chain)._kernels
    print(
        f"load average (1 min) {os.getloadavg()[0]:.1f}; CPU ns a row, best of 5 runs of "
        f"{args.passes} passes over {args.rows} rows"
    )
    previous = 0.0
    for stage, name in enumerate(STAGES):
        searched, _ = _run(*kernels.constants, entries, kernels.work, stage, 1)
        best = np.inf
        for _ in range(5):
            start = time.process_time()
            _run(*kernels.constants, entries, kernels.work, stage, args.passes)
            best = min(best, time.process_time() - start)
        per_row = best / (args.passes * len(entries)) * 1e9
        print(f"{stage} {name:28s} {per_row:7.0f}  (+{per_row - previous:.0f})")
        previous = per_row
    print(f"rows reaching the swivel search: {searched} of {len(entries)}")


if __name__ == "__main__":
    main()
