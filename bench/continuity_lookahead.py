"""How far ahead a 7-DoF arm must see its targets to avoid every jump: jumps per 10,000 steps when
each step may look W targets ahead, perfectly.

The paths and the jump rule of ``continuity_bench.py``. At every target the arm's solutions are
sampled as ``solve_path`` samples them (swivel grid × branches × elbow roots, plus the path's own
configuration: the policy below gets every advantage). A backward pass gives, for every sample,
how many more targets it can be followed without a jump (knowing all future targets). The policy
then moves, at each step, to the sample within the jump threshold that survives longest — counting
at most W steps ahead, i.e. seeing only the next W targets — and nearest among equals. W = 1 is a
solver that knows only the next target; W = 400 knows the whole path (no jump: the path exists).

    python bench/continuity_lookahead.py [--paths 25] [--only arm]
"""

from __future__ import annotations

import argparse
import itertools
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent / "test")]

from continuity_bench import JUMP_FACTOR, JUMP_FLOOR, STEPS, chains, smooth_paths, whole_path_solver

from ik_solvers.solvers.geometric.arm7.path import _solutions

WINDOWS = (1, 5, 20, 50, 100, STEPS)


def survival(sets: list[np.ndarray], thresholds: np.ndarray) -> list[np.ndarray]:
    """Per target, per sample: how many more targets it can be followed without a jump."""
    ahead = [np.zeros(len(sets[-1]), dtype=int)]
    for k, (there, here) in enumerate(itertools.pairwise(sets[::-1])):
        steps = np.abs(here[:, None, :] - there[None, :, :]).max(axis=2)
        reachable = steps <= thresholds[len(sets) - 1 - k]
        ahead.append(np.where(reachable, ahead[-1][None, :], -1).max(axis=1) + 1)
    return ahead[::-1]


def jumps_with_window(path: np.ndarray, sets: list, ahead: list, thresholds: np.ndarray, window: int) -> int:
    """Jumps of the policy that sees ``window`` targets ahead, from the path's start."""
    previous, jumps = path[0], 0
    for found, lasting, threshold in zip(sets, ahead, thresholds):
        distance = np.abs(found - previous).max(axis=1)
        allowed = distance <= threshold
        if not allowed.any():
            jumps, allowed = jumps + 1, np.ones(len(found), dtype=bool)
        score = np.where(allowed, 10.0 * np.minimum(lasting, window) - distance, -np.inf)
        previous = found[np.argmax(score)]
    return jumps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--paths", type=int, default=25)
    parser.add_argument("--only", default="arm", help="only chains whose label contains this")
    args = parser.parse_args()
    print(f"{args.paths} paths × {STEPS} steps; jumps per 10,000 steps when seeing W targets ahead")
    print(f"{'chain':26s} " + " ".join(f"{f'W={w}':>7s}" for w in WINDOWS))
    for label, chain in chains():
        solver = whole_path_solver(chain)
        if args.only not in label or solver is None:
            continue
        totals = dict.fromkeys(WINDOWS, 0)
        for path in smooth_paths(chain, args.paths, np.random.default_rng(0)):
            own = np.abs(np.diff(np.vstack([path[:1], path]), axis=0)).max(axis=1)
            thresholds = np.maximum(JUMP_FLOOR, JUMP_FACTOR * own)
            sets = [np.vstack([_solutions(solver, t, path[0]), q]) for t, q in zip(chain.fk(path), path)]
            ahead = survival(sets, thresholds)
            for window in WINDOWS:
                totals[window] += jumps_with_window(path, sets, ahead, thresholds, window)
        per = 1e4 / (args.paths * STEPS)
        print(f"{label:26s} " + " ".join(f"{totals[w] * per:7.1f}" for w in WINDOWS), flush=True)


if __name__ == "__main__":
    main()
