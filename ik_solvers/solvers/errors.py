"""Every error the solvers raise, in one place; each message says what was wrong and what is accepted."""

from __future__ import annotations


class IKError(ValueError):
    """Base class of the solvers' refusals; the message says what was wrong and what is accepted."""


class InvalidTargetError(IKError):
    """A target, seed or pole is malformed (shape, NaN/inf, not a rotation)."""


class UnsupportedChainError(IKError):
    """The chain's structure fits no solver of the requested kind."""


class UnknownSolverError(IKError):
    """No solver is registered under the requested name."""


class InvalidOptionError(IKError):
    """A solver option has a wrong name or value; the message says what is accepted."""


class StructureMismatch(ValueError):
    """The chain does not have the structure a geometric solver needs; the message says why.

    Raised by the structure checks of :mod:`ik_solvers.solvers.geometric.structure`; the geometric
    factory turns the reasons of every structure tried into one :class:`UnsupportedChainError`.
    """
