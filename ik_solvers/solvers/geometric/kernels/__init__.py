"""The closed forms compiled (numba): :mod:`.inputs` (one solve's target and seed checks),
:mod:`.leg` (the biped leg) and :mod:`.planar` (the planar two-link arm), single and batch, on
:mod:`.two_link` and the 3-vector
arithmetic of :mod:`.vector3`, in the same order of operations as the Python float/column forms
they mirror. A solver calls :func:`prepare_kernels` once on construction: the kernels load from
numba's on-disk cache, or compile once (:mod:`ik_solvers.compiled.cache`).
"""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np

from ik_solvers.compiled import cache


@functools.cache
def prepare_kernels() -> None:
    """Compile the closed forms' kernels, or load them from the cache, once per process."""
    cache.prepare(KERNELS)


def _compile_kernels() -> None:
    """Every signature the solvers call (the types are all that count): the leg's on placeholder
    constants, the arm's through a solver of the packaged robot's arm."""
    from ik_solvers.solvers.geometric.kernels import inputs, leg, leg_batch, leg_layout

    joints = np.zeros(6)
    inputs.check(np.eye(4).ravel(), joints, True, joints, joints, np.empty(6))
    inputs.columns(np.eye(4).reshape(1, 16), np.empty((16, 1)), np.empty(1, bool))
    k, work, q = np.ones(leg_layout.SIZE), np.empty(leg.WORK), np.zeros(leg.N)
    leg.solve_entries(k, np.eye(4).ravel(), q, False, q, work)
    leg.check_solve(k, np.eye(4).ravel(), q, False, joints, joints, q, q, work)
    count = 2
    out = (np.empty((count, leg.N)), np.empty(count, np.int64), np.empty(count), np.empty(count))
    rows, seeds = np.repeat(np.eye(4).reshape(1, 16), count, axis=0), np.zeros((count, leg.N))
    arguments = (
        k,
        rows,
        seeds,
        False,
        np.zeros((3, leg.N)),
        (*out, np.empty(count, bool)),
        np.empty_like(seeds),
    )
    leg_batch.solve_rows(*arguments, work)
    leg_batch.solve_rows_dynamic(*arguments, leg_batch.workspaces())
    _compile_planar()
    _compile_arm()


def _compile_planar() -> None:
    from ik_solvers.solvers.geometric.kernels import planar

    k, work, q = np.ones(planar.SIZE), np.empty((2, planar.N)), np.zeros(planar.N)
    planar.solve_entries(k, np.eye(4).ravel(), q, False, q, work)
    count = 2
    out = (np.empty((count, planar.N)), np.empty(count, np.int64), np.empty(count), np.empty(count))
    columns = np.repeat(np.eye(4).reshape(16, 1), count, axis=1)
    planar.solve_columns(k, columns, np.zeros((planar.N, 1)), False, *out, np.empty(count, bool), work)


def _compile_arm() -> None:
    from ik_solvers.model import RobotModel
    from ik_solvers.resources import package_share_path
    from ik_solvers.solvers.geometric.arm7.geometry import ArmGeometry
    from ik_solvers.solvers.geometric.arm7.kernel import NO_POLE, NO_SEED, ArmKernels
    from ik_solvers.solvers.geometric.kernels import arm7_solve

    model = RobotModel.from_urdf_file(package_share_path("urdf", "humanoid.urdf"))
    geometry = ArmGeometry(model.chain("base_link", "l_wrist"))
    kernels = ArmKernels(geometry, geometry.elbow_direction, 0.0, 0.5, 1e-9, np.zeros(7))
    (shoulder, wrist, geo), arm = kernels.constants, kernels.work[0]
    entries, q = np.eye(4).ravel(), np.zeros(7)
    arm7_solve.solve_entries(shoulder, wrist, geo, entries, NO_SEED, False, NO_POLE, False, q, kernels.work)
    kernels.search(arm)
    out = (np.empty((1, 7)), np.empty(1, np.int64), np.empty(1), np.empty(1), np.empty(1, bool))
    rows, seeds, poles, bounds = entries.reshape(1, 16), NO_SEED[None], NO_POLE[None], np.zeros((3, 7))
    arguments = (kernels.constants, rows, seeds, False, poles, False, bounds, out, np.empty_like(seeds))
    arm7_solve.solve_rows(*arguments, kernels.work)
    arm7_solve.solve_rows_dynamic(*arguments, kernels.works)


KERNELS = cache.KernelSet(
    "the closed forms' kernels",
    "about 20 s on a 2-core machine, once",
    (Path(__file__).resolve().parent,),
    _compile_kernels,
)
