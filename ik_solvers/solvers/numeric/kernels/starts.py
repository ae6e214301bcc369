"""Where the restart attempts of a target start (numba kernels, and the table they search).

A target's k-th restart starts, in the order of :data:`SCHEDULE`:

- next to its seed (the seed moved 5 % or 10 % of the way to a random configuration), so that a
  seed attempt blocked by a limit or a singularity is first retried there and the answer stays on
  the seed's branch;
- from the :data:`NEAREST` configurations of the solver's pose table whose tip poses are nearest
  the target: a table of :data:`TABLE_SIZE` random in-limit configurations and their tip poses,
  made once per solver. An attempt that starts a few centimetres and a few tenths of a radian from
  its target converges in fewer iterations, and more often, than one from anywhere (from random
  seeds on the 7-DoF arms: 85-94 % against 47-62 % of single attempts, 5-6 iterations against
  10-12; figures in docs/benchmarks.md);
- from the random in-limit configurations of the restart table (TRAC-IK's random restarts),
  after those.

The table search is nearest neighbours by brute force (about 8 µs for 4,096 entries), run once per
target, when its first restart from the table is due. Distance² between the target (p, R) and an entry (p', R'):
|w_p (p − p')|² + (ORIENTATION_SHARE · w_o)² (3 − tr(Rᵀ R')) with the task's row weights (w_p the
position weight over the chain length, w_o the orientation weight; 3 − tr is 2(1 − cos θ), about θ²
for a rotation θ between the two; position-only tasks leave it out).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ik_solvers.chain import Chain
from ik_solvers.compiled.jit import borrowing
from ik_solvers.solvers.numeric.kernels.model import I_ROWS

TABLE_SIZE = 4096  # configurations in a solver's pose table (their FK: ~4 ms of a solver's construction)
NEAREST = 8  # the table entries a target's restarts start from
ORIENTATION_SHARE = 0.3  # how much a rotation [rad] counts against a position [chain lengths]
# The restarts in order: k < 0 the seed moved NEAR_SHARES[-k - 1] of the way to a random
# configuration, k ≥ 0 the k-th nearest entry of the pose table; then the random restarts.
NEAR_SHARES = (0.05, 0.1)
SCHEDULE = (-1, 0, -2, 1, 2, 3, 4, 5, 6, 7)
NOT_SEARCHED = -2  # a target's nearest entries before the search


class Starts(NamedTuple):
    """Where restarts start, for n joints (R random restarts, M table entries)."""

    random: np.ndarray  # (R, n) random in-limit configurations [rad or m]
    table: np.ndarray  # (M, n) the pose table's configurations
    positions: np.ndarray  # (M, 3) their tip positions in the chain's base frame [m]
    rotations: np.ndarray  # (M, 3, 3) their tip rotations


def make_starts(chain: Chain, restarts: int, random_seed: int) -> Starts:
    """The restart configurations of a solver: ``restarts`` random ones, and the pose table (empty
    when there are no restarts). Both are drawn from ``random_seed``: the same seed, the same answers."""
    rng = np.random.default_rng(random_seed)
    random = chain.random_configurations(restarts, rng)
    table = chain.random_configurations(
        TABLE_SIZE if restarts else 0, np.random.default_rng([random_seed, 1])
    )
    poses = chain.fk(table) if len(table) else np.empty((0, 4, 4))
    positions = np.ascontiguousarray(poses[:, :3, 3])
    rotations = np.ascontiguousarray(poses[:, :3, :3])
    return Starts(random, table, positions, rotations)


@borrowing
def find_nearest(target, starts, row_weights, rows, found, distances):
    """Indices (NEAREST,) of the pose-table entries nearest ``target`` (4, 4) into ``found``,
    nearest first (-1 where the table has fewer entries); ``distances`` (NEAREST,) is scratch.
    row_weights (6,): the task's row weights; rows: 3 for position-only tasks, else 6."""
    positions, rotations = starts.positions, starts.rotations
    position_weight = row_weights[0] ** 2
    turn_weight = (ORIENTATION_SHARE * row_weights[3]) ** 2 if rows == 6 else 0.0
    last = found.shape[0] - 1
    for i in range(found.shape[0]):
        found[i], distances[i] = -1, np.inf
    for e in range(positions.shape[0]):
        dx = target[0, 3] - positions[e, 0]
        dy = target[1, 3] - positions[e, 1]
        dz = target[2, 3] - positions[e, 2]
        distance = position_weight * (dx * dx + dy * dy + dz * dz)
        if distance >= distances[last]:
            continue
        if turn_weight > 0.0:
            trace = 0.0
            for r in range(3):
                for c in range(3):
                    trace += target[r, c] * rotations[e, r, c]
            distance += turn_weight * (3.0 - trace)
            if distance >= distances[last]:
                continue
        i = last
        while i > 0 and distances[i - 1] > distance:
            found[i], distances[i] = found[i - 1], distances[i - 1]
            i -= 1
        found[i], distances[i] = e, distance


@borrowing
def restart(model, target, seed, starts, nearest, k, distances, destination):
    """destination (n,) = where the k-th restart of ``target`` (4, 4) with this seed (n,) starts.
    nearest (NEAREST,): its nearest table entries, searched here at the first table restart
    (:func:`find_nearest`, ``distances`` its scratch)."""
    random = starts.random
    entry = -1
    share = 1.0
    if k < len(SCHEDULE):
        code = SCHEDULE[k]
        if code < 0:
            share = NEAR_SHARES[-code - 1]
        else:
            if nearest[0] == NOT_SEARCHED:
                find_nearest(target, starts, model.weights.rows, model.ints[I_ROWS], nearest, distances)
            entry = nearest[code]
    if entry >= 0:
        for j in range(seed.shape[0]):
            destination[j] = starts.table[entry, j]
    else:
        for j in range(seed.shape[0]):
            destination[j] = seed[j] + share * (random[k, j] - seed[j])
