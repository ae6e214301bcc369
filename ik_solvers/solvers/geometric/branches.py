"""Geometric solvers made of one closed form per branch: the search over branches.

A :class:`BranchSolver` subclass supplies, in plain arithmetic for floats and columns alike:

- ``_closed_form(rotation, translation, branch, ops) -> (q, reason)``: raw joint angles (tuple of
  n) and a reach reason code (0 = reachable, else a key of its reach messages) for one of its
  ``branches`` (the first is the default; the others are tried where it fails, or with a seed
  where the result is not near the seed, keeping the successful one nearest it);
- ``_forward(q, ops) -> (rotation, translation)``: the tip pose of q, for the honest error check;

and optionally ``_seed_branch(seed, ops)``: the branch a seed lies on, tried first when seeded, and
where the seed is so near the border of two branches that every branch is tried and the nearest
taken (the seed's own label may belong to the other side's continuation).
Each branch's q is wrapped near each joint's reference (limits midpoint, or the seed for
continuous joints), clipped into the limits, its FK compared with the target, and tagged with the
first reason that applies (reach, joint limit, tolerance).
"""

from __future__ import annotations

import math
from abc import abstractmethod
from collections.abc import Mapping

import numpy as np

from ik_solvers.chain import Chain
from ik_solvers.solvers.checks import pose_columns
from ik_solvers.solvers.geometric.base import (
    BLOCK,
    LIMIT,
    LIMIT_SLACK,
    NOT_MET,
    TWO_PI,
    GeometricSolver,
    rows_of,
)
from ik_solvers.solvers.geometric.vectors import COLUMNS, SCALAR, Ops, pose_errors, wrap


class BranchSolver(GeometricSolver):
    """A geometric solver with one closed form per branch (see the module docstring).

    Args:
        chain, structure, reach_messages, tolerance: as :class:`GeometricSolver`.
        branches: the branch options passed to ``_closed_form``; the first is the default.
        near_seed: [rad²] a seeded solution this near its seed ends the branch search.
    """

    def __init__(
        self,
        chain: Chain,
        structure: str,
        reach_messages: Mapping[int, str],
        tolerance: float = 1e-9,
        branches: tuple = (None,),
        near_seed: float = 0.0,
    ) -> None:
        super().__init__(chain, structure, reach_messages, tolerance)
        self.branches = tuple(branches)
        self.near_seed = float(near_seed)

    @abstractmethod
    def _closed_form(self, rotation, translation, branch, ops: Ops, seed=None):
        """Raw joint angles (n floats or columns) and the reach reason code of one branch; ``seed``
        (n floats, or None) picks among a continuum of solutions where the branch has one."""

    @abstractmethod
    def _forward(self, q, ops: Ops):
        """Tip pose (rotation columns, translation) of q (n floats or columns)."""

    def _seed_branch(self, seed, ops: Ops):
        """(branch the seed (n floats or columns) lies on, or None to start from the default; True
        where the seed is near a border of branches). Default: (None, False)."""
        return None, False

    def _rival(self, branch, first):
        """Where ``branch``'s solution counts, for ``continuous``, as one the seed could have
        followed (a failed one nearer the seed than the answer flags a jump); ``first`` the seed's
        own branch (floats or columns). Default: every branch."""
        return True

    def _branch_rows(self, entries, references, branch, ops: Ops, seed=None):
        """One branch for targets given as 16 row-major entries: (q, reason, errors); ``seed`` as
        in :meth:`_closed_form`."""
        rotation, translation = pose_columns(entries)
        raw, reason = self._closed_form(rotation, translation, branch, ops, seed)
        if ops is SCALAR:
            q, reason = self._limit_scalar(raw, references, reason)
        else:
            q = []
            for i, angle in enumerate(raw):
                angle = wrap(angle, references[i], ops)
                clipped = ops.minimum(ops.maximum(angle, self._lower[i]), self._upper[i])
                clipped_away = abs(clipped - angle) > LIMIT_SLACK
                reason = ops.where((reason == 0) & clipped_away, LIMIT + i, reason)
                q.append(clipped)
        fk_rotation, fk_translation = self._forward(q, ops)
        position_error, orientation_error = pose_errors(
            fk_rotation, fk_translation, rotation, translation, ops
        )
        missed = self._missed(position_error, orientation_error)
        if ops is SCALAR:
            return q, NOT_MET if reason == 0 and missed else reason, position_error, orientation_error
        return q, np.where((reason == 0) & missed, NOT_MET, reason), position_error, orientation_error

    def _limit_scalar(self, raw, references, reason):
        """Floats: each angle wrapped near its reference and clipped; the first clipped joint tagged.

        The column loop of :meth:`_branch_rows` on plain floats, with early exits that numpy
        columns cannot take: one solve's hot path."""
        q = []
        lower, upper = self._lower, self._upper
        for i, angle in enumerate(raw):
            reference = references[i]
            if not reference - math.pi <= angle < reference + math.pi:
                angle -= TWO_PI * math.floor((angle - reference + math.pi) / TWO_PI)
            if lower[i] <= angle <= upper[i]:
                q.append(angle)
                continue
            clipped = min(max(angle, lower[i]), upper[i])
            if reason == 0 and abs(clipped - angle) > LIMIT_SLACK:
                reason = LIMIT + i
            q.append(clipped)
        return q, reason

    def _solve_scalar(self, entries, references, seed):
        """Best branch for one target: the first that succeeds, or with a seed the nearest that does.

        With a seed, the seed's own branch (:meth:`_seed_branch`) goes first; when it succeeds within
        ``near_seed`` of the seed and the seed is not near a border (:meth:`_seed_branch`), the other
        branches are not tried. Returns (q, reason, errors,
        continuous): continuous is False where a branch nearer the seed failed (its joint limits).
        """
        preferred, border = (None, False) if seed is None else self._seed_branch(seed, SCALAR)
        first = self.branches[0] if preferred is None else preferred
        best = self._branch_rows(entries, references, first, SCALAR, seed)
        if best[1] == 0 and (seed is None or (_distance(best[0], seed) < self.near_seed and not border)):
            return (*best, True)
        closest = math.inf if seed is None else _distance(best[0], seed)
        for branch in self.branches:
            if branch == first:
                continue
            other = self._branch_rows(entries, references, branch, SCALAR, seed)
            if seed is not None and self._rival(branch, first):
                closest = min(closest, _distance(other[0], seed))
            if other[1] == 0 and (
                best[1] != 0 or seed is None or _distance(other[0], seed) < _distance(best[0], seed)
            ):
                best = other
                if seed is None:
                    break
        return (*best, seed is None or _distance(best[0], seed) <= closest)

    def _solve_one(self, entries: np.ndarray, seed: np.ndarray | None, pole: np.ndarray | None):
        """One checked target (16,) (row-major), seed (n,) and pole (3,) or None, in Python floats:
        (q as n floats, reason, position error, orientation error, continuous)."""
        seed = None if seed is None else seed.tolist()
        references = self._rest_references if seed is None else self._references(seed)
        return self._solve_scalar(entries.tolist(), references, seed)

    def _solve_columns(self, columns: np.ndarray, seeds, poles, out) -> None:
        """Solve all rows of (16, N) ``columns`` into ``out`` = (q (n, N), reason, errors, errors,
        continuous).

        ``seeds``: (n, N) or None; ``poles``: (3, N) or None (unused here, see the subclasses). The
        rule of :meth:`_solve_scalar`, one numpy pass per branch over the rows it concerns: the first
        branch (the seed's own, with seeds) on every row, each other one on the rows still failing
        (with seeds: also those not within ``near_seed`` of their seed, or near a border).
        """
        references = self._rest_references if seeds is None else self._references(seeds)
        preferred, border = (None, False) if seeds is None else self._seed_branch(tuple(seeds), COLUMNS)
        first = self.branches[0] if preferred is None else preferred
        count = columns.shape[1]
        closest = np.full(count, np.inf)  # per row, the distance of the nearest branch solution tried
        self._branch_pass(columns, references, first, np.arange(count), seeds, out, closest, first=True)
        retried = np.zeros(count, dtype=bool)
        for branch in self.branches[1:] if preferred is None else self.branches:
            retry = out[1] != 0
            if seeds is not None:
                retry |= (_distance(out[0], seeds) >= self.near_seed) | border
            rows = np.flatnonzero(retry)
            retried[rows] = True
            if rows.size:
                rival = self._rival(branch, first)
                self._branch_pass(columns, references, branch, rows, seeds, out, closest, rival)
        out[4][...] = True
        if seeds is not None:
            out[4][retried] = (_distance(out[0], seeds) <= closest)[retried]

    def _branch_pass(
        self, columns, references, branch, rows, seeds, out, closest, rival=True, first: bool = False
    ) -> None:
        """``branch`` on ``rows``, in blocks; a row takes the result where it is better (always if ``first``).

        Better: it succeeds, and the row failed so far or (with seeds) it is nearer the seed.
        ``closest`` (N,): lowered to each tried solution's distance to the seed where ``rival``
        (True, or an (N,) mask: :meth:`_rival`).
        """
        q, reason = out[0], out[1]
        for start in range(0, rows.size, BLOCK):
            index = slice(start, start + BLOCK) if first else rows[start : start + BLOCK]
            picked = [rows_of(r, index) for r in references]
            found = self._branch_rows(list(columns[:, index]), picked, rows_of(branch, index), COLUMNS)
            if seeds is not None:
                nearer = np.minimum(closest[index], _distance(found[0], seeds[:, index]))
                closest[index] = np.where(rows_of(rival, index), nearer, closest[index])
            if not first:
                solved = found[1] == 0
                better = solved & (reason[index] != 0)
                if seeds is not None:
                    seed = seeds[:, index]
                    better |= solved & (_distance(found[0], seed) < _distance(q[:, index], seed))
                index = index[better]
                found = [[x[better] for x in found[0]]] + [x[better] for x in found[1:]]
            for i, angle in enumerate(found[0]):
                q[i, index] = angle
            for target, values in zip(out[1:], found[1:]):
                target[index] = values


def _distance(q, seed):
    """Squared joint-space distance between q and seed (sequences of floats or columns)."""
    return sum((a - b) * (a - b) for a, b in zip(q, seed))
