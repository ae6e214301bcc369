"""The constants the kernels read: one :class:`KernelModel` built once per solver.

Named tuples of arrays; the scalar settings are packed in two arrays, ``params`` (float64, indexed
by the P_* constants) and ``ints`` (int64, I_*), so that the kernels' types do not depend on the
options. Python hands the model to the kernels as nested plain tuples (:func:`plain`), which the
entry kernel names again (:func:`named`): numba types a named tuple argument from Python about
0.25 µs per field slower than a plain one, and the model has 20 fields.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ik_solvers.chain import Chain, KinematicTerms
from ik_solvers.compiled.jit import inlined
from ik_solvers.solvers.numeric.options import METHODS, JacobianOptions, joint_weight_matrix

# ints[I_METHOD]: the method's index in options.METHODS.
DLS, PINV, WEIGHTED_PINV, TRANSPOSE, CCD = (
    METHODS.index(name) for name in ("dls", "pinv", "weighted_pinv", "transpose", "ccd")
)

# params
P_POSITION_TOLERANCE, P_ORIENTATION_TOLERANCE, P_DAMPING, P_DAMPING_BIAS = 0, 1, 2, 3
P_SINGULAR_THRESHOLD, P_SINGULAR_DAMPING, P_STEP_SIZE, P_MAX_STEP, P_SINGULAR_CUTOFF = 4, 5, 6, 7, 8
P_REST_WEIGHT, P_CCD_POSITION_WEIGHT, P_CCD_ORIENTATION_WEIGHT = 9, 10, 11
PARAM_COUNT = 12

# ints
I_METHOD, I_ROWS, I_MAX_ITERATIONS, I_PATIENCE, I_SLOTS, I_SEED_ITERATIONS = 0, 1, 2, 3, 4, 5
I_GOALS, I_JOINT_WEIGHTS = 6, 7
INT_COUNT = 8


class Limits(NamedTuple):
    """Joint limits [rad or m] as the kernels clip: continuous joints have ∓inf bounds."""

    lower: np.ndarray  # (n,)
    upper: np.ndarray  # (n,)
    continuous: np.ndarray  # (n,) bool


class Goals(NamedTuple):
    """The null-space goals: joint-limit avoidance gain (n,) around ``middle`` (n,), rest posture (n,)."""

    limit_gain: np.ndarray
    middle: np.ndarray
    rest: np.ndarray


class Weights(NamedTuple):
    """Task row weights (6,) (position rows divided by the chain length), W⁻¹ and L⁻ᵀ (n, n) of
    the joint weight W = L Lᵀ."""

    rows: np.ndarray
    inverse: np.ndarray
    root: np.ndarray


class KernelModel(NamedTuple):
    """Everything constant the kernels read for one chain and one set of options."""

    terms: KinematicTerms
    limits: Limits
    goals: Goals
    weights: Weights
    params: np.ndarray  # (PARAM_COUNT,) float64, P_* indices
    ints: np.ndarray  # (INT_COUNT,) int64, I_* indices


def build_model(chain: Chain, options: JacobianOptions, length: float, patience: int) -> KernelModel:
    """The kernels' model for ``chain`` under ``options``.

    Args:
        length: [m] chain length that normalises position errors. patience: rounds without
            progress after which an attempt is abandoned.
    """
    opts = options
    n = chain.n
    rows = 3 if opts.task == "position" else 6
    task_weights = (opts.position_weight, opts.orientation_weight) if opts.task == "weighted" else (1.0, 1.0)
    row_weights = np.repeat([task_weights[0] / length, task_weights[1]], 3)
    inverse_weight, weight_root = np.eye(n), np.eye(n)
    if opts.joint_weights is not None:
        weight = joint_weight_matrix(chain, opts.joint_weights)
        inverse_weight = np.linalg.inv(weight)
        weight_root = np.ascontiguousarray(np.linalg.inv(np.linalg.cholesky(weight)).T)  # L⁻ᵀ, W = L Lᵀ
    middle = 0.5 * (chain.lower + chain.upper)
    half_range = np.maximum(0.5 * (chain.upper - chain.lower), 1e-9)
    limit_gain = np.where(chain.continuous, 0.0, opts.limit_avoidance_weight / half_range**2)
    rest = middle if opts.rest_posture is None else np.asarray(opts.rest_posture, dtype=float)
    params = np.zeros(PARAM_COUNT)
    params[[P_POSITION_TOLERANCE, P_ORIENTATION_TOLERANCE, P_DAMPING, P_DAMPING_BIAS]] = (
        opts.position_tolerance,
        opts.orientation_tolerance,
        opts.damping,
        opts.damping_bias,
    )
    params[[P_SINGULAR_THRESHOLD, P_SINGULAR_DAMPING, P_STEP_SIZE, P_MAX_STEP, P_SINGULAR_CUTOFF]] = (
        opts.singular_threshold,
        opts.singular_damping,
        opts.step_size,
        opts.max_step,
        opts.singular_cutoff,
    )
    params[P_REST_WEIGHT] = opts.rest_weight
    params[P_CCD_POSITION_WEIGHT] = row_weights[0] ** 2
    params[P_CCD_ORIENTATION_WEIGHT] = 0.0 if opts.task == "position" else task_weights[1] ** 2
    ints = np.zeros(INT_COUNT, dtype=np.int64)
    ints[I_METHOD], ints[I_ROWS], ints[I_MAX_ITERATIONS] = (
        METHODS.index(opts.method),
        rows,
        opts.max_iterations,
    )
    ints[I_PATIENCE], ints[I_SEED_ITERATIONS] = patience, opts.seed_iterations
    ints[I_SLOTS] = 1 if opts.max_restarts == 0 else opts.parallel_restarts
    ints[I_GOALS] = opts.limit_avoidance_weight > 0 or opts.rest_weight > 0
    ints[I_JOINT_WEIGHTS] = opts.joint_weights is not None
    limits = Limits(
        np.where(chain.continuous, -np.inf, chain.lower),
        np.where(chain.continuous, np.inf, chain.upper),
        chain.continuous.copy(),
    )
    goals = Goals(limit_gain, middle, rest)
    weights = Weights(row_weights, inverse_weight, weight_root)
    return KernelModel(chain.kinematic_terms(), limits, goals, weights, params, ints)


def plain(value: tuple) -> tuple:
    """A (nested) named tuple as nested plain tuples, for calls from Python into the kernels."""
    return tuple(plain(item) if isinstance(item, tuple) else item for item in value)


@inlined
def named(model):
    """The :class:`KernelModel` of the plain tuples :func:`plain` made, inside compiled code
    (inlined: it returns the caller's arrays, so callers without numba's runtime may call it)."""
    terms, limits, goals, weights, params, ints = model
    return KernelModel(
        KinematicTerms(*terms), Limits(*limits), Goals(*goals), Weights(*weights), params, ints
    )
