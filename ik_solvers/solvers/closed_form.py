"""What the closed-form solvers share: target checks, wrapping and clipping, the FK check, batches.

A subclass supplies three pieces written in plain arithmetic (they run on floats for ``solve`` and
on numpy columns for ``solve_batch``, see :mod:`ik_solvers.solvers.vectors`):

- ``_closed_form(rotation, translation, branch, ops) -> (q, reason)``: raw joint angles
  (tuple of n) and a reach reason code (0 = reachable, else a key of ``reach_messages``) for one
  of the solver's ``branches`` (the first is the default; the others are tried where it fails, or
  with a seed where the result is not near the seed, keeping the successful one nearest it);
- ``_forward(q, ops) -> (rotation, translation)``: the tip pose of q, for the honest error check;
- ``reach_messages``: reason code → message;

and optionally ``_seed_branch(seed, ops)``, the branch a seed lies on, tried first when seeded.
A solver that needs more (seeds and poles beyond the branch choice) overrides :meth:`_solve_one`
and :meth:`_solve_columns`, which receive the checked seeds and poles.

Everything else is here: a returned q is wrapped near each joint's reference (limits midpoint, or
the seed for continuous joints), clipped into the limits, its FK compared with the target, and the
result tagged with the first reason that applies (reach, joint limit, tolerance).
"""

from __future__ import annotations

import math

import numpy as np

from ik_solvers.chain import Chain
from ik_solvers.solvers.base import (
    BatchResult,
    IKResult,
    InvalidTargetError,
    check_bottom_row,
    check_seed,
    float_array,
    is_homogeneous_row,
)
from ik_solvers.solvers.vectors import COLUMNS, SCALAR, Ops, pose_columns, pose_errors, valid_pose, wrap

BLOCK = 8192  # targets per block in solve_batch: big enough to amortise numpy calls, small for cache
LIMIT_SLACK = 1e-9  # [rad] clipping by more than this counts as a joint-limit violation
INVALID, NOT_MET, LIMIT = 90, 91, 100  # reason codes; LIMIT + i: joint i clipped
INVALID_MESSAGE = (
    "target is not a finite pose with an orthonormal rotation (det +1) and bottom row [0, 0, 0, 1]; "
    "send finite numbers and a unit quaternion or rotation matrix"
)
TARGET = "(4, 4) homogeneous pose of real numbers"
TWO_PI = 2.0 * math.pi


class ClosedFormSolver:
    """Base of the geometric solvers: ``solve`` and ``solve_batch`` around a subclass's closed form.

    Args:
        chain: the chain to solve. tolerance: [m] and [rad]; a result counts as a success when its
            FK is within it of the target (and no joint was clipped, no reach limit hit).
    """

    reach_messages: dict[int, str]  # set by the subclass before ClosedFormSolver.__init__
    branches: tuple = (None,)  # branch options passed to _closed_form; the first is the default
    near_seed = 0.0  # [rad²] a seeded solution this near its seed ends the branch search
    structure = "closed form"

    def __init__(self, chain: Chain, tolerance: float = 1e-9) -> None:
        if not tolerance > 0.0:
            raise ValueError(f"tolerance must be a positive number of metres/radians, got {tolerance!r}")
        self.chain = chain
        self.tolerance = float(tolerance)
        self._lower, self._upper = chain.lower.tolist(), chain.upper.tolist()
        self._middle = [0.5 * (lo + hi) for lo, hi in zip(self._lower, self._upper)]
        self._continuous = chain.continuous.tolist()
        self._any_continuous = any(self._continuous)
        self._rest_q = check_seed(chain, None)
        self._rest_pose = chain.fk(self._rest_q).ravel().tolist()
        self._messages = self._message_table()
        self._rest_references = self._references(self._rest_q.tolist())
        self._success_message = f"solved in closed form ({self.structure})"

    def _message_table(self) -> dict[int, str]:
        table = {0: "", INVALID: INVALID_MESSAGE, **self.reach_messages}
        table[NOT_MET] = f"the closed form missed the target by more than the tolerance {self.tolerance:g}"
        for i, name in enumerate(self.chain.joint_names):
            table[LIMIT + i] = (
                f"joint limits: '{name}' would leave [{self._lower[i]:.4g}, {self._upper[i]:.4g}]; "
                "q is clipped into the limits (the nearest pose found)"
            )
        return table

    # -- the subclass's pieces -------------------------------------------------------------------
    def _closed_form(self, rotation, translation, branch, ops: Ops):
        raise NotImplementedError

    def _forward(self, q, ops: Ops):
        raise NotImplementedError

    def _missed(self, position_error, orientation_error):
        """Where the errors exceed the tolerance (the planar solver ignores orientation)."""
        return (position_error > self.tolerance) | (orientation_error > self.tolerance)

    def _seed_branch(self, seed, ops: Ops):
        """The branch the seed (n floats or columns) lies on, or None to start from the default."""

    # -- shared machinery --------------------------------------------------------------------------
    def _branch_rows(self, entries, references, branch, ops: Ops):
        """One branch for targets given as 16 row-major entries: (q, reason, errors)."""
        rotation, translation = pose_columns(entries)
        raw, reason = self._closed_form(rotation, translation, branch, ops)
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
        """Floats: each angle wrapped near its reference and clipped; the first clipped joint tagged."""
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
        ``near_seed`` of the seed, the other branches are not tried.
        """
        preferred = None if seed is None else self._seed_branch(seed, SCALAR)
        first = self.branches[0] if preferred is None else preferred
        best = self._branch_rows(entries, references, first, SCALAR)
        if best[1] == 0 and (seed is None or _distance(best[0], seed) < self.near_seed):
            return best
        for branch in self.branches:
            if branch == first:
                continue
            other = self._branch_rows(entries, references, branch, SCALAR)
            if other[1] == 0 and (
                best[1] != 0 or seed is None or _distance(other[0], seed) < _distance(best[0], seed)
            ):
                best = other
                if seed is None:
                    break
        return best

    def _solve_one(self, entries: list, seed: list | None, pole: tuple | None):
        """One checked target (16 floats, row-major), seed (n floats) and pole (3 floats) or None:
        (q as n floats, reason, position error, orientation error)."""
        references = self._rest_references if seed is None else self._references(seed)
        return self._solve_scalar(entries, references, seed)

    def _solve_columns(self, columns: np.ndarray, seeds, poles, out) -> None:
        """Solve all rows of (16, N) ``columns`` into ``out`` = (q (n, N), reason, errors, errors).

        ``seeds``: (n, N) or None; ``poles``: (3, N) or None (unused here, see the subclasses). The
        rule of :meth:`_solve_scalar`, one numpy pass per branch over the rows it concerns: the first
        branch (the seed's own, with seeds) on every row, each other one on the rows still failing
        (with seeds: also those not within ``near_seed`` of their seed).
        """
        references = self._rest_references if seeds is None else self._references(seeds)
        preferred = None if seeds is None else self._seed_branch(tuple(seeds), COLUMNS)
        first = self.branches[0] if preferred is None else preferred
        count = columns.shape[1]
        self._branch_pass(columns, references, first, np.arange(count), seeds, out, first=True)
        for branch in self.branches[1:] if preferred is None else self.branches:
            retry = out[1] != 0
            if seeds is not None:
                retry |= _distance(out[0], seeds) >= self.near_seed
            rows = np.flatnonzero(retry)
            if rows.size:
                self._branch_pass(columns, references, branch, rows, seeds, out)

    def _branch_pass(self, columns, references, branch, rows, seeds, out, first: bool = False) -> None:
        """``branch`` on ``rows``, in blocks; a row takes the result where it is better (always if ``first``).

        Better: it succeeds, and the row failed so far or (with seeds) it is nearer the seed.
        """
        q, reason = out[0], out[1]
        for start in range(0, rows.size, BLOCK):
            index = slice(start, start + BLOCK) if first else rows[start : start + BLOCK]
            picked = [rows_of(r, index) for r in references]
            found = self._branch_rows(list(columns[:, index]), picked, rows_of(branch, index), COLUMNS)
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

    def _references(self, seed):
        """Per joint, the angle near which to wrap: the seed for continuous joints, else mid-limits."""
        if not self._any_continuous:
            return self._middle
        return [seed[i] if self._continuous[i] else self._middle[i] for i in range(self.chain.n)]

    def _seed_values(self, seed) -> list[float]:
        """A (n,) seed as floats, clipped into the limits; check_seed's checks and messages."""
        if seed.__class__ is np.ndarray and seed.shape == (self.chain.n,) and seed.dtype.kind == "f":
            values = seed.tolist()
            lower, upper = self._lower, self._upper
            if all(lower[i] <= x <= upper[i] for i, x in enumerate(values)):  # also False for NaN
                return values
        return check_seed(self.chain, seed).tolist()

    def solve(
        self, target: np.ndarray, seed: np.ndarray | None = None, pole: np.ndarray | None = None
    ) -> IKResult:
        """Solve one target.

        Args:
            target: (4, 4) pose of the tip link in the chain's base frame [m].
            seed: (n,) joints [rad]; picks the turn of continuous joints (and branches, where the
                subclass says so). pole: (3,) point in the base frame [m]; see the subclass.
        Returns:
            IKResult; q in chain.joint_names order, finite and within limits. iterations is 0.
        Raises:
            InvalidTargetError: target not a finite (4, 4) pose with a rotation; bad seed or pole.
        """
        if target.__class__ is not np.ndarray or target.dtype.kind != "f":
            target = float_array(target, "target", TARGET)
        if target.shape != (4, 4):
            raise InvalidTargetError(f"target has shape {target.shape}; expected (4, 4) homogeneous pose")
        entries = target.ravel().tolist()
        if not valid_pose(*pose_columns(entries)):
            raise InvalidTargetError(INVALID_MESSAGE)
        check_bottom_row(entries[12:])
        if pole is not None:
            pole = tuple(check_pole(pole, 1).ravel().tolist())
        seed = None if seed is None else self._seed_values(seed)
        q, reason, position_error, orientation_error = self._solve_one(entries, seed, pole)
        message = self._messages[reason] or self._success_message
        return IKResult(reason == 0, np.array(q), position_error, orientation_error, 0, message)

    def solve_batch(
        self, targets: np.ndarray, seeds: np.ndarray | None = None, poles: np.ndarray | None = None
    ) -> BatchResult:
        """Solve N targets at once, vectorised over the batch (no Python loop over targets).

        Args:
            targets: (N, 4, 4) tip poses in the base frame [m]. seeds: (N, n) or None.
            poles: (N, 3) or None, as in :meth:`solve`.
        Returns:
            BatchResult. A malformed target (NaN, inf, not a rotation) fails its row only, with
            q at the rest pose, NaN errors and a message; the other rows are solved.
        Raises:
            InvalidTargetError: targets not shaped (N, 4, 4); bad seeds or poles.
        """
        targets = float_array(targets, "targets", "(N, 4, 4) homogeneous poses of real numbers")
        if targets.ndim != 3 or targets.shape[1:] != (4, 4):
            raise InvalidTargetError(
                f"targets have shape {targets.shape}; expected (N, 4, 4) homogeneous poses"
            )
        count, n = targets.shape[0], self.chain.n
        poles = None if poles is None else check_pole(poles, count).T
        seeds = None if seeds is None else check_seed(self.chain, seeds, count).T
        q = np.empty((count, n))  # written through its (n, N) transpose: no copy at the end
        out = (q.T, np.empty(count, dtype=np.int64), np.empty(count), np.empty(count))
        columns, valid = self._columns(targets)
        all_valid = bool(valid.all())
        if not all_valid:
            columns[:, ~valid] = np.array(self._rest_pose)[:, None]
        self._solve_columns(columns, seeds, poles, out)
        _, reason, position_error, orientation_error = out
        if not all_valid:
            q[~valid] = self._rest_q
            reason[~valid] = INVALID
            position_error[~valid] = orientation_error[~valid] = np.nan  # nothing was solved there
        success = reason == 0
        table = self._messages
        messages = tuple(map(table.__getitem__, reason.tolist()))
        return BatchResult(
            success, q, position_error, orientation_error, np.zeros(count, dtype=int), messages
        )

    @staticmethod
    def _columns(targets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(16, N) row-major pose entries of (N, 4, 4) ``targets``, and where each pose is valid.

        Transposed block by block, so that source and destination stay in cache.
        """
        count = targets.shape[0]
        columns, valid = np.empty((16, count)), np.empty(count, dtype=bool)
        flat = targets.reshape(count, 16)
        for start in range(0, count, BLOCK):
            block = columns[:, start : start + BLOCK]
            block[...] = flat[start : start + BLOCK].T
            valid[start : start + BLOCK] = valid_pose(*pose_columns(block)) & is_homogeneous_row(block[12:].T)
        return columns, valid


def check_pole(pole, count: int) -> np.ndarray:
    """A pole as a float array: finite, shape (3,) for one solve (``count`` 1) or (count, 3).

    Raises:
        InvalidTargetError: another shape or a non-finite entry.
    """
    pole = float_array(pole, "pole", "a point (3,) [m] of real numbers")
    shape = (3,) if count == 1 and pole.ndim == 1 else (count, 3)
    if pole.shape != shape or not np.all(np.isfinite(pole)):
        raise InvalidTargetError(
            f"pole has shape {pole.shape} or non-finite entries; expected finite {shape} [m]"
        )
    return pole


def rows_of(value, index):
    """``value`` (a column, a (named) tuple of them, or a constant) at the rows ``index``."""
    if isinstance(value, np.ndarray) and value.ndim:
        return value[index]
    if isinstance(value, tuple):
        taken = (rows_of(x, index) for x in value)
        return value._make(taken) if hasattr(value, "_make") else tuple(taken)
    return value


def _distance(q, seed):
    """Squared joint-space distance between q and seed (sequences of floats or columns)."""
    return sum((a - b) * (a - b) for a, b in zip(q, seed))
