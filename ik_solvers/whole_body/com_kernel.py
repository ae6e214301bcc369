"""The whole tree's centre of mass and its joint Jacobian for one configuration, compiled (numba).

The tree comes from :func:`ik_solvers.whole_body.center_of_mass.build_tree` as flat arrays, links
in an order where every parent comes before its children (link 0 is the root):

- ``parent`` (L,) int: parent link index (-1 for the root);
- ``origin`` (L, 3, 4): the joint frame in the parent link frame at q = 0 (top rows of the 4x4);
- ``axis`` (L, 3): unit joint axis in the joint frame; ``kind`` (L,) int: 0 fixed, 1 revolute,
  2 prismatic; ``index`` (L,) int: the joint's entry of q (-1 for fixed joints and the root);
- ``mass`` (L,) [kg] and ``center`` (L, 3): each link's centre of mass in its own frame [m].

Every frame and point is expressed in the root link frame; only the top three rows of 4x4
transforms are stored (the bottom row is always 0 0 0 1).
"""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np

from ik_solvers.compiled import cache as kernel_cache
from ik_solvers.compiled.jit import borrowing

FIXED, REVOLUTE, PRISMATIC = 0, 1, 2


@borrowing
def _link_frame(tree, q, frames, k, motion):
    """frames[k] = frames[parent] · origin[k] · joint motion(q); motion (3, 4) is scratch."""
    parent, origin, axis, kind, index = tree[0], tree[1], tree[2], tree[3], tree[4]
    for r in range(3):
        for c in range(4):
            motion[r, c] = origin[k, r, c]
    if kind[k] == REVOLUTE:
        x, y, z = axis[k, 0], axis[k, 1], axis[k, 2]
        s, v = np.sin(q[index[k]]), 1.0 - np.cos(q[index[k]])
        rotation = (  # Rodrigues: I + s K + v K²
            (1.0 - v * (y * y + z * z), -s * z + v * x * y, s * y + v * x * z),
            (s * z + v * x * y, 1.0 - v * (x * x + z * z), -s * x + v * y * z),
            (-s * y + v * x * z, s * x + v * y * z, 1.0 - v * (x * x + y * y)),
        )
        for r in range(3):
            a0, a1, a2 = origin[k, r, 0], origin[k, r, 1], origin[k, r, 2]
            for c in range(3):
                motion[r, c] = a0 * rotation[0][c] + a1 * rotation[1][c] + a2 * rotation[2][c]
    elif kind[k] == PRISMATIC:
        for r in range(3):
            for c in range(3):
                motion[r, 3] += origin[k, r, c] * axis[k, c] * q[index[k]]
    p = parent[k]
    for r in range(3):
        for c in range(4):
            total = frames[p, r, 3] if c == 3 else 0.0
            for m in range(3):
                total += frames[p, r, m] * motion[m, c]
            frames[k, r, c] = total


@borrowing
def com_jacobian(tree, q, frames, subtree, motion, com, jacobian):
    """Centre of mass (3,) and its Jacobian (3, n) w.r.t. q (n,), both in the root link frame.

    Column j of the Jacobian: the CoM velocity [m/s] per unit velocity of joint j (0 for joints
    that move no mass). Scratch: frames (L, 3, 4), subtree (L, 4) (mass-weighted position sum and
    mass of each link's subtree), motion (3, 4).
    """
    parent, axis, kind, index, mass, center = tree[0], tree[2], tree[3], tree[4], tree[5], tree[6]
    count = parent.shape[0]
    for r in range(3):
        for c in range(4):
            frames[0, r, c] = 1.0 if r == c else 0.0
    for k in range(1, count):
        _link_frame(tree, q, frames, k, motion)
    for k in range(count):
        for r in range(3):
            point = frames[k, r, 3]
            for m in range(3):
                point += frames[k, r, m] * center[k, m]
            subtree[k, r] = mass[k] * point
        subtree[k, 3] = mass[k]
    for k in range(count - 1, 0, -1):
        for r in range(4):
            subtree[parent[k], r] += subtree[k, r]
    total = subtree[0, 3]
    for r in range(3):
        com[r] = subtree[0, r] / total
    for j in range(jacobian.shape[1]):
        for r in range(3):
            jacobian[r, j] = 0.0
    for k in range(1, count):
        if kind[k] == FIXED:
            continue
        ax, ay, az = (
            frames[k, 0, 0] * axis[k, 0] + frames[k, 0, 1] * axis[k, 1] + frames[k, 0, 2] * axis[k, 2],
            frames[k, 1, 0] * axis[k, 0] + frames[k, 1, 1] * axis[k, 1] + frames[k, 1, 2] * axis[k, 2],
            frames[k, 2, 0] * axis[k, 0] + frames[k, 2, 1] * axis[k, 1] + frames[k, 2, 2] * axis[k, 2],
        )
        j, weight = index[k], subtree[k, 3] / total
        if kind[k] == PRISMATIC:
            jacobian[0, j] += ax * weight
            jacobian[1, j] += ay * weight
            jacobian[2, j] += az * weight
            continue
        # axis × (subtree CoM − joint origin), weighted by the subtree's share of the mass
        dx = (subtree[k, 0] / total) - weight * frames[k, 0, 3]
        dy = (subtree[k, 1] / total) - weight * frames[k, 1, 3]
        dz = (subtree[k, 2] / total) - weight * frames[k, 2, 3]
        jacobian[0, j] += ay * dz - az * dy
        jacobian[1, j] += az * dx - ax * dz
        jacobian[2, j] += ax * dy - ay * dx


@borrowing
def com_jacobian_batch(tree, q, frames, subtree, motion, com, jacobian):
    """:func:`com_jacobian` for each row of q (N, n) into com (N, 3) and jacobian (N, 3, n)."""
    for i in range(q.shape[0]):
        com_jacobian(tree, q[i], frames, subtree, motion, com[i], jacobian[i])


@functools.cache
def prepare() -> None:
    """Compile the kernels, or load them from numba's on-disk cache, once per process; a partial or
    stale cache is rebuilt and said so, never fatal (:mod:`ik_solvers.compiled.cache`).
    :class:`~ik_solvers.whole_body.center_of_mass.CenterOfMass` calls this before its first use."""
    kernel_cache.prepare(KERNELS)


def _compile_kernels() -> None:
    """Compile both kernels (or load them from numba's cache) on a two-link tree."""
    parent, kind, index = np.array([-1, 0]), np.array([FIXED, REVOLUTE]), np.array([-1, 0])
    origin = np.zeros((2, 3, 4))
    origin[:, :, :3] = np.eye(3)
    tree = (parent, origin, np.array([[0.0, 0, 0], [0, 0, 1]]), kind, index, np.ones(2), np.zeros((2, 3)))
    scratch = (np.empty((2, 3, 4)), np.empty((2, 4)), np.empty((3, 4)))
    com_jacobian_batch(tree, np.zeros((1, 1)), *scratch, np.empty((1, 3)), np.empty((1, 3, 1)))
    com_jacobian(tree, np.zeros(1), *scratch, np.empty(3), np.empty((3, 1)))


KERNELS = kernel_cache.KernelSet(
    "the centre of mass's kernels",
    "a few seconds, once",
    (Path(__file__).resolve().parent,),
    _compile_kernels,
    pattern=Path(__file__).name,
)
