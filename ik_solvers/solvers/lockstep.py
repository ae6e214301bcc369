"""Many attempts iterated side by side: N targets × K slots, restarts, and picking the answer.

Each target owns K slots. Slot 0 starts from the target's seed; after ``seed_iterations``
iterations (or when the seed attempt stalls), the other slots start from random in-limit
configurations (TRAC-IK style restarts). A slot whose attempt stalls or runs out of iterations is
refilled with the target's next restart configuration. A target is done at the first iteration in
which any of its slots meets the tolerances; among the slots that do, the one closest to the seed
wins. All active slots of all targets go through one batched iteration at a time: there is no
Python loop over targets, and a target's course depends only on its own slots, so the answers do
not depend on what else is in the batch.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

PROGRESS = 0.9  # an iteration makes progress when it brings the error energy below 90 % of the best


@dataclass(frozen=True)
class Evaluation:
    """One iteration's view of r configurations: errors [m, rad], error energy, tolerances met."""

    position_error: np.ndarray
    orientation_error: np.ndarray
    energy: np.ndarray
    converged: np.ndarray


# advance(q (r, n), target index (r,)) → (evaluation of q, next q (r, n))
Advance = Callable[[np.ndarray, np.ndarray], tuple[Evaluation, np.ndarray]]


@dataclass
class Outcome:
    """Per target: answer q (N, n), converged flags, errors where converged, iterations used."""

    q: np.ndarray
    converged: np.ndarray
    position_error: np.ndarray
    orientation_error: np.ndarray
    iterations: np.ndarray
    restarts: np.ndarray


@dataclass(frozen=True)
class Schedule:
    """How attempts are scheduled; see :class:`~ik_solvers.solvers.jacobian_options.JacobianOptions`."""

    slots: int
    seed_iterations: int
    max_iterations: int
    restarts: np.ndarray  # (max_restarts, n) restart configurations, the same for every target
    deadline: float | None  # time.perf_counter() value, or None
    patience: int = 5  # iterations without progress after which an attempt is abandoned


class Lockstep:
    """The state of N targets × K slots (rows t·K + s) and the loop that drives them."""

    def __init__(self, seeds: np.ndarray, schedule: Schedule, distance: Callable) -> None:
        count = len(seeds)
        self.schedule, self.distance, self.seeds = schedule, distance, seeds
        k = schedule.slots
        self.q = np.repeat(seeds, k, axis=0)
        self.active = np.zeros(count * k, dtype=bool)
        self.active[::k] = True
        self.pending = np.ones(count, dtype=bool)  # restart slots not yet launched
        self.age = np.zeros(count * k, dtype=int)
        self.stale = np.zeros(count * k, dtype=int)
        self.best_energy = np.full(count * k, np.inf)  # over every attempt the slot has run
        self.attempt_energy = np.full(count * k, np.inf)  # over the slot's current attempt
        self.best_q = self.q.copy()
        self.next_restart = np.zeros(count, dtype=int)
        self.outcome = Outcome(
            seeds.copy(),
            np.zeros(count, dtype=bool),
            np.full(count, np.nan),
            np.full(count, np.nan),
            np.zeros(count, dtype=int),
            np.zeros(count, dtype=int),
        )

    def run(self, advance: Advance) -> Outcome:
        """Iterate until every target is done, out of attempts, or the deadline passes."""
        deadline, iteration = self.schedule.deadline, 0
        while True:
            rows = np.flatnonzero(self.active)
            if rows.size == 0 or (deadline is not None and time.perf_counter() > deadline):
                break
            iteration += 1
            evaluation, next_q = advance(self.q[rows], rows // self.schedule.slots)
            self._track_best(rows, evaluation.energy)
            if evaluation.converged.any():
                self._finish(rows[evaluation.converged], evaluation, iteration)
            self.q[rows] = next_q
            self.age[rows] += 1
            self._relaunch()
        self._settle_unfinished(iteration)
        return self.outcome

    def _track_best(self, rows: np.ndarray, energy: np.ndarray) -> None:
        best = self.best_energy[rows]
        better = energy < best
        self.best_q[rows[better]] = self.q[rows[better]]
        self.best_energy[rows] = np.where(better, energy, best)
        attempt = self.attempt_energy[rows]
        progress = energy < PROGRESS * attempt
        self.stale[rows] = np.where(progress, 0, self.stale[rows] + 1)
        self.attempt_energy[rows] = np.where(progress, energy, attempt)

    def _finish(self, rows: np.ndarray, evaluation: Evaluation, iteration: int) -> None:
        """Targets with converged rows: keep, per target, the converged row nearest the seed."""
        k = self.schedule.slots
        targets = rows // k
        order = np.lexsort((self.distance(self.q[rows], self.seeds[targets]), targets))
        winners, first = np.unique(targets[order], return_index=True)
        chosen = rows[order[first]]
        where = np.flatnonzero(evaluation.converged)[order[first]]
        out = self.outcome
        out.q[winners] = self.q[chosen]
        out.converged[winners] = True
        out.position_error[winners] = evaluation.position_error[where]
        out.orientation_error[winners] = evaluation.orientation_error[where]
        out.iterations[winners] = iteration
        self.active.reshape(-1, k)[winners] = False
        self.pending[winners] = False

    def _relaunch(self) -> None:
        """Refill worn-out slots and launch the restart slots of targets whose seed phase ended."""
        schedule, k = self.schedule, self.schedule.slots
        worn = self.active & ((self.age >= schedule.max_iterations) | (self.stale >= schedule.patience))
        expand = self.pending & ((self.age[::k] >= schedule.seed_iterations) | worn[::k])
        if not (worn.any() or expand.any()):
            return
        fill = worn.reshape(-1, k).copy()
        fill[expand, 1:] = True
        self.pending[expand] = False
        for slot in range(k):
            targets = np.flatnonzero(fill[:, slot])
            if targets.size:
                self._refill(targets, targets * k + slot)

    def _refill(self, targets: np.ndarray, rows: np.ndarray) -> None:
        """Start the next restart configuration in ``rows`` (one per target), or retire them."""
        available = self.next_restart[targets] < len(self.schedule.restarts)
        self.active[rows] = available
        targets, rows = targets[available], rows[available]
        self.q[rows] = self.schedule.restarts[self.next_restart[targets]]
        self.next_restart[targets] += 1
        self.outcome.restarts[targets] += 1
        self.age[rows] = 0
        self.stale[rows] = 0
        self.attempt_energy[rows] = np.inf

    def _settle_unfinished(self, iteration: int) -> None:
        """Unconverged targets get the lowest-energy configuration any of their attempts reached."""
        out, k = self.outcome, self.schedule.slots
        left = np.flatnonzero(~out.converged)
        if left.size == 0:
            return
        energy = self.best_energy.reshape(-1, k)[left]
        slot = np.argmin(energy, axis=1)
        reached = np.isfinite(energy[np.arange(left.size), slot])
        out.q[left[reached]] = self.best_q[left[reached] * k + slot[reached]]
        out.iterations[left] = iteration
