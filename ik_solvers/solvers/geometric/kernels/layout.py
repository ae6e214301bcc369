"""How a closed-form kernel's constants sit in its one float array ``k`` (plain Python, no numba).

3-vectors first, then scalars, then ``entries`` floats per joint table (lower, upper, ...): each
kernel module names its own, and the solver fills ``k`` once with :func:`pack`.
"""

from __future__ import annotations

import numpy as np


def offsets(
    vectors: tuple[str, ...], scalars: tuple[str, ...], joints: tuple[str, ...], entries: int
) -> tuple[dict[str, int], int]:
    """Where each constant starts in ``k``, and the size of ``k``."""
    start = {name: 3 * i for i, name in enumerate(vectors)}
    start.update({name: 3 * len(vectors) + i for i, name in enumerate(scalars)})
    tables = 3 * len(vectors) + len(scalars)
    start.update({name: tables + entries * i for i, name in enumerate(joints)})
    return start, tables + entries * len(joints)


def pack(start: dict[str, int], size: int, values: dict, kernel: str) -> np.ndarray:
    """(size,) ``values`` (name → float or floats) laid out by ``start``.

    Raises:
        ValueError: a constant of the layout is missing from ``values`` (named, with the kernel).
    """
    missing = sorted(set(start) - set(values))
    if missing:
        raise ValueError(f"the {kernel} kernel's constants lack {missing}")
    k = np.zeros(size)
    for name, value in values.items():
        entries = np.atleast_1d(np.asarray(value, dtype=float))
        k[start[name] : start[name] + entries.size] = entries
    return k
