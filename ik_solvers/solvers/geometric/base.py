"""What the geometric solvers share: target checks, wrapping and clipping, messages, batches.

:class:`GeometricSolver` turns ``solve`` and ``solve_batch`` into two pieces a subclass writes:
``_solve_one`` (one checked target, as arrays) and ``_solve_rows`` (a batch of row-major targets:
the leg's and the arm's compiled batch kernels check them as they solve) or, by default,
``_solve_columns`` (a batch as numpy columns of checked targets).
The leg, the 7-DoF arm and the planar arm run both in compiled kernels
(:mod:`~ik_solvers.solvers.geometric.kernels`); the plain arithmetic they mirror, on Python floats
and numpy columns alike (:mod:`~ik_solvers.solvers.geometric.vectors`), is
:class:`~ik_solvers.solvers.geometric.branches.BranchSolver`'s (a closed form per branch), kept
as the reference the tests compare the kernels with.

Everything else is here: the checks of targets, seeds and poles (one compiled call for a single
solve, :mod:`~ik_solvers.solvers.geometric.kernels.inputs`), the wrapping of continuous joints
near their seed, the message table (reach reasons of the subclass, joint limits, the final FK
check) and the block loop over a batch.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Mapping

import numpy as np

from ik_solvers.chain import Chain
from ik_solvers.compiled.jit import PARALLEL_LOCK
from ik_solvers.solvers.checks import (
    FLOAT64,
    INVALID_POSE,
    ONE_STRIDE,
    check_pole,
    check_seed,
    float_array,
    seed_array,
)
from ik_solvers.solvers.errors import InvalidTargetError
from ik_solvers.solvers.geometric.kernels import inputs, prepare_kernels
from ik_solvers.solvers.results import DISCONTINUOUS, BatchResult, IKResult

BLOCK = 8192  # targets per block in solve_batch: big enough to amortise numpy calls, small for cache
LIMIT_SLACK = 1e-9  # [rad] clipping by more than this counts as a joint-limit violation
INVALID, NOT_MET, LIMIT = inputs.INVALID_ROW, 91, 100  # reason codes; LIMIT + i: joint i clipped
TWO_PI = 2.0 * math.pi


class GeometricSolver(ABC):
    """Base of the geometric (closed-form) solvers: ``solve`` and ``solve_batch`` around a subclass's
    ``_solve_one`` (one target) and ``_solve_rows`` or ``_solve_columns`` (a batch).

    Args:
        chain: the chain to solve. structure: what the solver solves, for messages ("biped leg").
        reach_messages: the subclass's reason codes (1 to 89) → message, e.g. out of reach.
        tolerance: [m] and [rad]; a result counts as a success when its FK is within it of the
            target (and no joint was clipped, no reach limit hit).
    """

    def __init__(
        self, chain: Chain, structure: str, reach_messages: Mapping[int, str], tolerance: float = 1e-9
    ) -> None:
        if not tolerance > 0.0:
            raise ValueError(f"tolerance must be a positive number of metres/radians, got {tolerance!r}")
        self.chain = chain
        self.structure = structure
        self.tolerance = float(tolerance)
        self._lower, self._upper = chain.lower.tolist(), chain.upper.tolist()
        self._chain_lower, self._chain_upper = chain.lower.copy(), chain.upper.copy()
        self._clipped_seed = np.empty(chain.n)  # one solve's seed clipped into the limits, reused
        self._middle = [0.5 * (lo + hi) for lo, hi in zip(self._lower, self._upper)]
        self._continuous = chain.continuous.tolist()
        self._any_continuous = any(self._continuous)
        self._rest_q = chain.rest_configuration()
        self._rest_pose = chain.fk(self._rest_q).ravel().tolist()
        self._row_bounds = np.stack([chain.lower, chain.upper, self._rest_q])  # for batch kernels
        self._messages = self._message_table(reach_messages)
        self._batch_messages = self._batch_table(self._messages)
        self._rest_references = self._references(self._rest_q.tolist())
        self._success_message = f"solved in closed form ({structure})"
        self._kept_messages, self._jump_messages = self._solve_tables(self._messages)
        prepare_kernels()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.chain!r})"

    def _message_table(self, reach_messages: Mapping[int, str]) -> dict[int, str]:
        table = {0: "", INVALID: f"target {INVALID_POSE}", **reach_messages}
        table[NOT_MET] = f"the closed form missed the target by more than the tolerance {self.tolerance:g}"
        for i, name in enumerate(self.chain.joint_names):
            table[LIMIT + i] = (
                f"joint limits: '{name}' would leave [{self._lower[i]:.4g}, {self._upper[i]:.4g}]; "
                "q is clipped into the limits (the nearest pose found)"
            )
        return table

    def _solve_tables(self, table: Mapping[int, str]) -> tuple[dict[int, str], dict[int, str]]:
        """One solve's message by reason code r, continuous and not: table[r] (the success
        message for 0), and that with :data:`DISCONTINUOUS` (a seeded solve's hot path looks it
        up rather than joining the strings: 40 % of random-seeded leg solves are not continuous)."""
        kept = {r: text or self._success_message for r, text in table.items()}
        return kept, {r: text + DISCONTINUOUS for r, text in kept.items()}

    @staticmethod
    def _batch_table(table: Mapping[int, str]) -> np.ndarray:
        """A batch row's message by index: reason code r → table[r]; r + size, the same not continuous."""
        size = max(table) + 1
        messages = np.array([table.get(r, "") for r in range(size)] * 2, dtype=object)
        messages[size:] = [(text + DISCONTINUOUS).removeprefix("; ") for text in messages[size:]]
        return messages

    @abstractmethod
    def _solve_one(self, entries: np.ndarray, seed: np.ndarray | None, pole: np.ndarray | None):
        """One checked target (16,) (row-major), seed (n,) within limits and pole (3,) or None, as
        float arrays the subclass may keep: (q (n,) array or n floats, reason code, position error
        [m], orientation error [rad], continuous)."""

    def _check_and_solve(self, entries: np.ndarray, seed: np.ndarray, seeded: bool, clipped: np.ndarray):
        """The compiled check of one target's 16 row-major ``entries`` and, when ``seeded``, of its
        ``seed`` (clipped into the limits into ``clipped``): (:func:`.kernels.inputs.check`'s code,
        None). A subclass that needs no pole may solve in the same compiled call and return its
        :meth:`_solve_one` tuple (unused where the code is not VALID) instead of None."""
        return inputs.check(entries, seed, seeded, self._chain_lower, self._chain_upper, clipped), None

    def _solve_columns(self, columns: np.ndarray, seeds, poles, out) -> None:
        """Solve all rows of (16, N) ``columns`` (checked targets) into ``out`` = (q (n, N), reason,
        errors, errors, continuous), for the default :meth:`_solve_rows`.

        ``seeds``: (n, N) within limits, or None; ``poles``: (3, N) or None.
        """
        raise NotImplementedError(f"{type(self).__name__} solves its batches in _solve_rows")

    def _missed(self, position_error, orientation_error):
        """Where the errors exceed the tolerance (the planar solver ignores orientation)."""
        return (position_error > self.tolerance) | (orientation_error > self.tolerance)

    def _references(self, seed):
        """Per joint, the angle near which to wrap: the seed for continuous joints, else mid-limits."""
        if not self._any_continuous:
            return self._middle
        return [seed[i] if self._continuous[i] else self._middle[i] for i in range(self.chain.n)]

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
        if target.__class__ is not np.ndarray or target.dtype != np.float64:
            target = float_array(target, "target", "(4, 4) homogeneous pose of real numbers").astype(float)
        if target.shape != (4, 4):
            raise InvalidTargetError(f"target has shape {target.shape}; expected (4, 4) homogeneous pose")
        entries = target.ravel()
        seeded = seed is not None
        # a contiguous float64 vector goes to the compiled check as it is (which checks its length);
        # tested here, not in a function: a call is a third of this test's cost, on the hot path
        if seeded and (
            seed.__class__ is not np.ndarray or seed.dtype is not FLOAT64 or seed.strides != ONE_STRIDE
        ):
            seed = np.ascontiguousarray(check_seed(self.chain, seed))
        clipped = self._clipped_seed if seeded else self._chain_lower
        code, found = self._check_and_solve(entries, seed if seeded else clipped, seeded, clipped)
        if code:
            inputs.refuse_target(code, entries)
        if pole is not None:
            pole = check_pole(pole, 1).ravel()
        if code == inputs.BAD_SEED:
            check_seed(self.chain, seed)
        if found is None:
            found = self._solve_one(entries, clipped if seeded else None, pole)
        q, reason, position_error, orientation_error, continuous = found
        message = (self._kept_messages if continuous else self._jump_messages)[reason]
        q = q if q.__class__ is np.ndarray else np.array(q)
        return IKResult.of(reason == 0, q, position_error, orientation_error, 0, message, continuous)

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
        count = targets.shape[0]
        poles = None if poles is None else np.ascontiguousarray(check_pole(poles, count))
        seeds = None if seeds is None else seed_array(self.chain, seeds, count)
        q = np.empty((count, self.chain.n))
        out = (
            q,
            np.empty(count, dtype=np.int64),
            np.empty(count),
            np.empty(count),
            np.ones(count, dtype=bool),
        )
        self._solve_rows(np.ascontiguousarray(targets.reshape(count, 16)), seeds, poles, out)
        _, reason, position_error, orientation_error, continuous = out
        messages = self._row_messages(reason, continuous)
        iterations = np.zeros(count, dtype=int)
        return BatchResult(
            reason == 0, q, position_error, orientation_error, iterations, messages, continuous
        )

    def _solve_rows(self, targets: np.ndarray, seeds, poles, out) -> None:
        """Solve (N, 16) row-major ``targets`` into ``out`` = (q (N, n), reason, position error,
        orientation error, continuous (N,)); a malformed target's row gets INVALID, q at rest and
        NaN errors. seeds: (N, n) of unchecked entries or None; poles: (N, 3) or None.

        By default through numpy columns (:meth:`_solve_columns`); the leg and the arm override it
        with batch kernels that check the targets and clip the seeds as they solve.

        Raises:
            InvalidTargetError: a seed with a non-finite entry.
        """
        seeds = None if seeds is None else check_seed(self.chain, seeds, len(targets)).T
        q, reason, position_error, orientation_error, continuous = out
        columns, valid = self._columns(targets)
        all_valid = bool(valid.all())
        if not all_valid:
            columns[:, ~valid] = np.array(self._rest_pose)[:, None]
        self._solve_columns(columns, seeds, None if poles is None else poles.T, (q.T, *out[1:]))
        if not all_valid:
            q[~valid] = self._rest_q
            reason[~valid] = INVALID
            position_error[~valid] = orientation_error[~valid] = np.nan  # nothing was solved there
            continuous[~valid] = True

    def _run_rows(
        self, kernels: tuple, arguments: tuple, scratch: tuple, parallel_rows: int, seeds, reason: np.ndarray
    ) -> None:
        """Run a row-major batch kernel (:func:`.kernels.leg_batch.solve_rows` and its like) on
        ``arguments``, that write the reason codes into ``reason`` (N,): kernels[0] on this thread in
        scratch[0] below ``parallel_rows`` rows, else kernels[1] on the cores in scratch[1] (under
        :data:`PARALLEL_LOCK`: numba's workqueue layer aborts on two callers at once).

        Raises:
            InvalidTargetError: ``seeds`` (N, n) has a non-finite entry (the kernel marked its row).
        """
        count = len(reason)
        if count < parallel_rows:
            kernels[0](*arguments, scratch[0])
        else:
            with PARALLEL_LOCK:
                kernels[1](*arguments, scratch[1])
        if seeds is not None and (reason == inputs.BAD_SEED_ROW).any():
            check_seed(self.chain, seeds, count)  # raises, naming what the seeds must be

    def _row_messages(self, reason: np.ndarray, continuous: np.ndarray) -> tuple[str, ...]:
        """Each batch row's message by its reason code and ``continuous`` (:meth:`_batch_table`).

        Most rows are continuous successes (""): their message is shared and only the other rows
        are looked up, one at a time while they are under an eighth of the batch (a seeded leg
        batch near its answers: 10 against 14 CPU ns a row for numpy's lookup of every row).
        """
        table, count = self._batch_messages, len(reason)
        keys = reason + (table.size // 2) * ~continuous
        special = np.flatnonzero(keys)
        if special.size * 8 > count:
            return tuple(table[keys].tolist())
        messages = [table[0]] * count
        for row, text in zip(special.tolist(), table[keys[special]].tolist()):
            messages[row] = text
        return tuple(messages)

    @staticmethod
    def _columns(targets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(16, N) row-major pose entries of (N, 4, 4) or (N, 16) ``targets``, and where each pose is valid:
        finite, a rotation, a homogeneous bottom row (compiled, :func:`.kernels.inputs.columns`:
        the verdicts of :mod:`ik_solvers.solvers.checks`' ``valid_pose`` and ``is_homogeneous_row``)."""
        count = targets.shape[0]
        columns, valid = np.empty((16, count)), np.empty(count, dtype=bool)
        inputs.columns(np.ascontiguousarray(targets.reshape(count, 16)), columns, valid)
        return columns, valid


def rows_of(value, index):
    """``value`` (a column, a (named) tuple of them, or a constant) at the rows ``index``."""
    if isinstance(value, np.ndarray) and value.ndim:
        return value[index]
    if isinstance(value, tuple):
        taken = (rows_of(x, index) for x in value)
        return value._make(taken) if hasattr(value, "_make") else tuple(taken)
    return value
