"""The interface every solver offers: :class:`Solver`.

A solver answers ``solve(target, seed=None, pole=None)`` with an :class:`IKResult` and
``solve_batch(targets, seeds=None, poles=None)`` with a :class:`BatchResult`. Targets are 4x4 poses
of the chain's tip link in the chain's base link frame [m]; ``q`` is in ``chain.joint_names`` order.
A returned ``q`` is always finite and within the joint limits; when the target cannot be met,
``success`` is False, ``q`` is the closest solution found and ``message`` says why.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, runtime_checkable

import numpy as np

from ik_solvers.solvers.results import BatchResult, IKResult

if TYPE_CHECKING:
    from ik_solvers.chain import Chain


@runtime_checkable
class Solver(Protocol):
    """An IK solver for one chain (what :func:`~ik_solvers.solvers.registry.make_solver` returns)."""

    chain: Chain

    def solve(
        self, target: np.ndarray, seed: np.ndarray | None = None, pole: np.ndarray | None = None
    ) -> IKResult:
        """Joint positions that put the tip at ``target``.

        Args:
            target: (4, 4) tip pose in the chain's base frame [m].
            seed: (n,) joint positions to start from or stay near [rad or m]; None: the rest
                configuration. pole: (3,) elbow or knee hint in the base frame [m], or None.
        Raises:
            InvalidTargetError: a malformed target, seed or pole.
        """
        ...

    def solve_batch(
        self, targets: np.ndarray, seeds: np.ndarray | None = None, poles: np.ndarray | None = None
    ) -> BatchResult:
        """N solves: targets (N, 4, 4), seeds (N, n) or None, poles (N, 3) or None."""
        ...
