"""The solver kinds ``make_solver`` knows, registered here and nowhere else.

A kind is a :class:`SolverKind`: how to build a solver for a chain from keyword options, and what
to do once per process before the first solver of the kind is needed (``warm_up``: the numeric
kind loads its compiled kernels there). The families are imported when first used, so importing
:mod:`ik_solvers.solvers` stays cheap and free of import cycles with :mod:`ik_solvers.chain`.

To add a kind: write its solver (anything that satisfies :class:`~ik_solvers.solvers.base.Solver`)
in a package beside ``geometric/`` and ``numeric/``, and add one entry to :data:`SOLVERS`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ik_solvers.solvers.base import Solver
from ik_solvers.solvers.errors import UnknownSolverError, UnsupportedChainError

if TYPE_CHECKING:
    from ik_solvers.chain import Chain


FULL_POSE_JOINTS = 6  # fewer joints cannot set all six components of a pose


def _nothing() -> None:
    """The warm-up of a kind that needs none."""


@dataclass(frozen=True)
class SolverKind:
    """One solver family.

    Attributes:
        build: ``build(chain, **options) -> Solver``; raises IKError subclasses for a chain it
            cannot solve or options it does not accept.
        warm_up: prepares the kind for a fast first ``build`` (compiles or loads kernels); idempotent.
        description: one line for error messages and parameter descriptions.
        takes_timeout: ``build`` accepts ``timeout`` [s], a time budget per solve (closed forms
            need none).
        options_of: the kind whose options ``build`` takes ("" = its own).
    """

    build: Callable[..., Solver]
    warm_up: Callable[[], None] = _nothing
    description: str = ""
    takes_timeout: bool = False
    options_of: str = ""


def _build_geometric(chain: Chain, **options: object) -> Solver:
    from ik_solvers.solvers.geometric.factory import make_geometric_solver

    return make_geometric_solver(chain, **options)


def _build_jacobian(chain: Chain, **options: object) -> Solver:
    """The Jacobian solver; position only (``task="position"``) unless ``options`` name a task,
    for a chain of fewer than 6 joints (a pose target it could meet exactly is rare)."""
    from ik_solvers.solvers.numeric.jacobian import JacobianSolver

    if chain.n < FULL_POSE_JOINTS:
        options = {"task": "position", **options}
    return JacobianSolver(chain, **options)


def _build_auto(chain: Chain, **options: object) -> Solver:
    """The closed form where the chain's structure fits one, else the Jacobian solver with
    ``options``; position only (``task="position"``) for a chain of fewer than 6 joints."""
    try:
        return _build_geometric(chain)
    except UnsupportedChainError:
        pass
    return _build_jacobian(chain, **options)


def _warm_up_jacobian() -> None:
    from ik_solvers.solvers.numeric.jacobian import prepare_kernels

    prepare_kernels()


SOLVERS: dict[str, SolverKind] = {
    "auto": SolverKind(
        _build_auto,
        _warm_up_jacobian,
        description="the closed form where the chain's structure fits one, else the Jacobian solver "
        "(position only for chains of fewer than 6 joints)",
        takes_timeout=True,
        options_of="jacobian",
    ),
    "geometric": SolverKind(
        _build_geometric,
        description="closed forms picked from the chain's structure (leg, 7-DoF arm, planar)",
    ),
    "jacobian": SolverKind(
        _build_jacobian,
        _warm_up_jacobian,
        description="iterative Jacobian methods for any serial chain (position only for chains of fewer "
        "than 6 joints)",
        takes_timeout=True,
    ),
}


def make_solver(kind: str, chain: Chain, **options: object) -> Solver:
    """The solver ``kind`` ("auto", "geometric" or "jacobian") for ``chain``, configured by
    ``options`` ("auto" takes the Jacobian solver's options, used when it picks that solver).

    Raises:
        UnknownSolverError: no solver of that name; the message lists the valid names.
        UnsupportedChainError: the chain's structure fits none of that kind's solvers.
        InvalidOptionError: an option the kind does not accept, or a value out of its range.
    """
    return solver_kind(kind).build(chain, **options)


def kind_used(kind: str, solver: Solver) -> str:
    """The kind that answers for a solver built as ``kind``: for "auto", the one it picked
    ("geometric" or "jacobian", told by the solver's package); else ``kind`` itself."""
    if kind != "auto":
        return kind
    return "jacobian" if type(solver).__module__.startswith("ik_solvers.solvers.numeric") else "geometric"


def solver_kind(kind: str) -> SolverKind:
    """The registered kind called ``kind``.

    Raises:
        UnknownSolverError: no such kind; the message lists the valid names.
    """
    found = SOLVERS.get(kind)
    if found is None:
        raise UnknownSolverError(f"unknown solver '{kind}'; valid solvers: {', '.join(sorted(SOLVERS))}")
    return found


def warm_up(kinds: tuple[str, ...] | None = None) -> None:
    """Run the warm-up of ``kinds`` (default: every registered kind), so that no later
    ``make_solver`` stalls a running program (the numeric kind: about 0.5 s to load its kernels)."""
    for kind in SOLVERS if kinds is None else kinds:
        solver_kind(kind).warm_up()
