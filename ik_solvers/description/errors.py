"""The error every part of :mod:`ik_solvers.description` raises."""

from __future__ import annotations


class DescriptionError(ValueError):
    """A robot description cannot be read, expanded or resolved; the message names the file, URI
    or mesh at fault, where it was looked for, and what would be accepted."""
