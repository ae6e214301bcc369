"""One arm's compiled swivel choice (:mod:`ik_solvers.solvers.geometric.kernels.arm7`): its
constants and scratch, and the two calls the solver makes on one float construction."""

from __future__ import annotations

import numpy as np

from ik_solvers.solvers.geometric.kernels import arm7, axis_triple, prepare_kernels


class SwivelKernels:
    """The compiled seed following and swivel search of one arm (an :class:`ArmGeometry`)."""

    def __init__(self, geometry) -> None:
        prepare_kernels()
        self._constants = (
            axis_triple.constants(geometry.shoulder),
            axis_triple.constants(geometry.wrist),
            np.array([*geometry.axes[3].vector, *geometry.lower, *geometry.upper]),
        )
        self._forms = np.empty((2, axis_triple.ENTRIES, 3))
        self._scratch = np.empty((3, arm7.ROOTS))
        self._order, self._known = np.empty(arm7.ROOTS, dtype=np.int64), np.empty(arm7.ROOTS, dtype=np.int64)
        self._work = np.empty((5, 14))

    def follow(self, arm) -> list[float] | None:
        """follow.follow_one for the float construction ``arm``: 7 angles [rad], or None."""
        q = np.empty(7)
        found = arm7.follow(
            *self._constants,
            arm7.pack(arm),
            q,
            self._forms,
            self._scratch,
            self._order,
            self._known,
            self._work,
        )
        return q.tolist() if found else None

    def search(self, arm) -> list[float] | None:
        """The 7 angles [rad] at the feasible swivel nearest the requested one, or None."""
        q = np.empty(7)
        found = arm7.search(*self._constants, arm7.pack(arm), q, self._forms, self._scratch, self._order)
        return q.tolist() if found else None
