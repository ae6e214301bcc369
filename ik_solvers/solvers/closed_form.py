"""What the closed-form solvers share: target checks, wrapping and clipping, the FK check, batches.

A subclass supplies three pieces written in plain arithmetic (they run on floats for ``solve`` and
on numpy columns for ``solve_batch``, see :mod:`ik_solvers.solvers.vectors`):

- ``_closed_form(rotation, translation, branch, ops) -> (q, reason)``: raw joint angles
  (tuple of n) and a reach reason code (0 = reachable, else a key of ``reach_messages``) for one
  of the solver's ``branches`` (the first is the default; the others are tried where it fails, or
  all of them when a seed is given, keeping the successful one nearest the seed);
- ``_forward(q, ops) -> (rotation, translation)``: the tip pose of q, for the honest error check;
- ``reach_messages``: reason code → message.

Everything else is here: a returned q is wrapped near each joint's reference (limits midpoint, or
the seed for continuous joints), clipped into the limits, its FK compared with the target, and the
result tagged with the first reason that applies (reach, joint limit, tolerance).
"""

from __future__ import annotations

import numpy as np

from ik_solvers.chain import Chain
from ik_solvers.solvers.base import BatchResult, IKResult, InvalidTargetError, check_seed
from ik_solvers.solvers.vectors import COLUMNS, SCALAR, Ops, pose_columns, pose_errors, valid_pose, wrap

BLOCK = 4096  # targets per block in solve_batch: big enough to amortise numpy calls, small for cache
LIMIT_SLACK = 1e-9  # [rad] clipping by more than this counts as a joint-limit violation
INVALID, NOT_MET, LIMIT = 90, 91, 100  # reason codes; LIMIT + i: joint i clipped
INVALID_MESSAGE = (
    "target is not a finite pose with an orthonormal rotation (det +1); "
    "send finite numbers and a unit quaternion or rotation matrix"
)


class ClosedFormSolver:
    """Base of the geometric solvers: ``solve`` and ``solve_batch`` around a subclass's closed form.

    Args:
        chain: the chain to solve. tolerance: [m] and [rad]; a result counts as a success when its
            FK is within it of the target (and no joint was clipped, no reach limit hit).
    """

    reach_messages: dict[int, str]  # set by the subclass before ClosedFormSolver.__init__
    branches: tuple = (None,)  # branch options passed to _closed_form; the first is the default
    structure = "closed form"

    def __init__(self, chain: Chain, tolerance: float = 1e-9) -> None:
        if not tolerance > 0.0:
            raise ValueError(f"tolerance must be a positive number of metres/radians, got {tolerance!r}")
        self.chain = chain
        self.tolerance = float(tolerance)
        self._lower, self._upper = chain.lower.tolist(), chain.upper.tolist()
        self._middle = [0.5 * (lo + hi) for lo, hi in zip(self._lower, self._upper)]
        self._continuous = chain.continuous.tolist()
        self._rest_pose = chain.fk(np.clip(np.zeros(chain.n), chain.lower, chain.upper)).ravel().tolist()
        self._messages = self._message_table()
        self._rest_references = self._references(check_seed(chain, None).tolist())

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

    # -- shared machinery --------------------------------------------------------------------------
    def _branch_rows(self, entries, references, branch, ops: Ops):
        """One branch for targets given as 16 row-major entries: (q, reason, errors)."""
        rotation, translation = pose_columns(entries)
        raw, reason = self._closed_form(rotation, translation, branch, ops)
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
        reason = ops.where((reason == 0) & missed, NOT_MET, reason)
        return q, reason, position_error, orientation_error

    def _solve_scalar(self, entries, references, seed):
        """Best branch for one target: the first that succeeds, or with a seed the nearest that does."""
        best = self._branch_rows(entries, references, self.branches[0], SCALAR)
        for branch in self.branches[1:]:
            if best[1] == 0 and seed is None:
                break
            other = self._branch_rows(entries, references, branch, SCALAR)
            if other[1] == 0 and (best[1] != 0 or _distance(other[0], seed) < _distance(best[0], seed)):
                best = other
        return best

    def _solve_columns(self, columns: np.ndarray, references, seeds, out) -> None:
        """Solve all rows of (16, N) ``columns`` into ``out`` = (q (n, N), reason, errors, errors).

        The first branch runs on every row; each further branch on the rows still failing (on every
        row when ``seeds`` (n, N) is given, keeping the successful solution nearest the seed).
        """
        q, reason = out[0], out[1]
        count = columns.shape[1]
        for k, branch in enumerate(self.branches):
            rows = np.arange(count) if k == 0 or seeds is not None else np.flatnonzero(reason != 0)
            for start in range(0, rows.size, BLOCK):
                index = slice(start, start + BLOCK) if k == 0 else rows[start : start + BLOCK]
                picked = [r[index] if isinstance(r, np.ndarray) else r for r in references]
                found = self._branch_rows(list(columns[:, index]), picked, branch, COLUMNS)
                if k > 0:
                    better = found[1] == 0
                    if seeds is not None:
                        nearer = _distance(found[0], seeds[:, index]) < _distance(
                            q[:, index], seeds[:, index]
                        )
                        better &= (reason[index] != 0) | nearer
                    index, found = (
                        index[better],
                        [[x[better] for x in found[0]]] + [x[better] for x in found[1:]],
                    )
                for i, angle in enumerate(found[0]):
                    q[i, index] = angle
                for target, values in zip(out[1:], found[1:]):
                    target[index] = values

    def _references(self, seed):
        """Per joint, the angle near which to wrap: the seed for continuous joints, else mid-limits."""
        return [seed[i] if self._continuous[i] else self._middle[i] for i in range(self.chain.n)]

    def solve(
        self, target: np.ndarray, seed: np.ndarray | None = None, pole: np.ndarray | None = None
    ) -> IKResult:
        """Solve one target.

        Args:
            target: (4, 4) pose of the tip link in the chain's base frame [m].
            seed: (n,) joints [rad]; picks the turn of continuous joints (and branches, where the
                subclass says so). pole: (3,) accepted for interface compatibility; see the subclass.
        Returns:
            IKResult; q in chain.joint_names order, finite and within limits. iterations is 0.
        Raises:
            InvalidTargetError: target not a finite (4, 4) pose with a rotation; bad seed or pole.
        """
        target = np.asarray(target, dtype=float)
        if target.shape != (4, 4):
            raise InvalidTargetError(f"target has shape {target.shape}; expected (4, 4) homogeneous pose")
        entries = target.ravel().tolist()
        if not valid_pose(*pose_columns(entries)):
            raise InvalidTargetError(INVALID_MESSAGE)
        _check_pole(pole, 1)
        seed_values = None if seed is None else check_seed(self.chain, seed).tolist()
        references = self._rest_references if seed is None else self._references(seed_values)
        q, reason, position_error, orientation_error = self._solve_scalar(entries, references, seed_values)
        message = self._messages[reason] or f"solved in closed form ({self.structure})"
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
        targets = np.asarray(targets, dtype=float)
        if targets.ndim != 3 or targets.shape[1:] != (4, 4):
            raise InvalidTargetError(
                f"targets have shape {targets.shape}; expected (N, 4, 4) homogeneous poses"
            )
        count, n = targets.shape[0], self.chain.n
        _check_pole(poles, count)
        seeds_given, seeds = seeds, check_seed(self.chain, seeds, count)
        out = (np.empty((n, count)), np.empty(count, dtype=np.int64), np.empty(count), np.empty(count))
        columns = np.ascontiguousarray(targets.reshape(-1, 16).T)
        valid = valid_pose(*pose_columns(columns))
        if not valid.all():
            columns[:, ~valid] = np.array(self._rest_pose)[:, None]
        seed_columns = seeds.T
        self._solve_columns(
            columns, self._references(seed_columns), None if seeds_given is None else seed_columns, out
        )
        q, reason, position_error, orientation_error = out
        q = np.ascontiguousarray(q.T)
        reason[~valid] = INVALID
        position_error[~valid] = orientation_error[~valid] = np.nan  # nothing was solved there
        success = reason == 0
        table = self._messages
        messages = tuple(map(table.__getitem__, reason.tolist()))
        return BatchResult(
            success, q, position_error, orientation_error, np.zeros(count, dtype=int), messages
        )

    def _block_entries(self, block: np.ndarray) -> tuple[list[np.ndarray], np.ndarray]:
        """16 contiguous columns of a (B, 4, 4) block; invalid rows replaced by the rest pose."""
        columns = np.ascontiguousarray(block.reshape(-1, 16).T)
        valid = valid_pose(*pose_columns(columns))
        if not valid.all():
            columns[:, ~valid] = np.array(self._rest_pose)[:, None]
        return list(columns), valid


def _check_pole(pole, count: int) -> None:
    """A pole is optional; when given it must be finite, shape (3,) for one solve or (count, 3)."""
    if pole is None:
        return
    pole = np.asarray(pole, dtype=float)
    shape = (3,) if count == 1 and pole.ndim == 1 else (count, 3)
    if pole.shape != shape or not np.all(np.isfinite(pole)):
        raise InvalidTargetError(
            f"pole has shape {pole.shape} or non-finite entries; expected finite {shape} [m]"
        )


def _distance(q, seed):
    """Squared joint-space distance between q and seed (sequences of floats or columns)."""
    return sum((a - b) * (a - b) for a, b in zip(q, seed))
