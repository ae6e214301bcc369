"""Options of the Jacobian solver family, checked once when the solver is made.

Every option has a default that suits the packaged humanoid and other arms and legs of similar
size; errors name the option, the value received and what would be accepted.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

from ik_solvers.chain import Chain
from ik_solvers.solvers.errors import InvalidOptionError

# The methods, named once: the kernels number them by their index here, the node offers these.
METHODS = ("dls", "pinv", "weighted_pinv", "transpose", "ccd")
TASKS = ("pose", "position", "weighted")


@dataclass(frozen=True)
class JacobianOptions:
    """How the Jacobian solvers iterate.

    Attributes:
        method: "dls" (damped least squares, default), "pinv" (SVD pseudoinverse),
            "weighted_pinv" (pseudoinverse weighted by ``joint_weights``), "transpose", "ccd".
        task: "pose" (6D, default), "position" (orientation ignored) or "weighted" (6D with
            ``position_weight`` and ``orientation_weight``).
        position_tolerance: [m] success when the tip is this close to the target.
        orientation_tolerance: [rad] and its orientation this close (not for task "position").
        max_iterations: iterations per attempt (from the seed, or from one restart).
        timeout: [s] time budget of one solve, restarts included (a batch of N gets N times it);
            None: no time limit, ``max_restarts`` bounds the work.
        max_restarts: random in-limit restarts per target after the seed attempt.
        parallel_restarts: attempts iterated side by side per target once the seed attempt has
            had ``seed_iterations`` iterations.
        seed_iterations: iterations the seed attempt gets alone before restarts join it.
        damping: w in the damped least squares damping λ = w·E + damping_bias + singular term,
            with E half the squared, normalised task error (Sugihara 2011).
        damping_bias: the constant part of λ (keeps the system regular at singular postures).
            Small enough to leave a nearly singular direction its Gauss-Newton step near the
            solution: at 1e-5 it outweighed σ² ≈ 1e-8 of the OP3's legs a few mrad from their hip
            gimbal, each step there went ~1 % of the way, and 0.3 % of reachable targets were
            missed (docs/algorithms.md).
        singular_threshold: below this smallest singular value of the normalised Jacobian, the
            damping grows towards ``singular_damping`` (squared-singular-value units).
        singular_damping: the largest extra damping added at a fully singular posture.
        step_size: factor on each step (the α of Buss 2009).
        max_step: [rad or m] largest Euclidean norm of one joint step.
        singular_cutoff: singular values below this are dropped by the pseudoinverse methods.
        joint_weights: (n,) positive or (n, n) symmetric positive-definite joint weight (stiffness:
            a heavier joint moves less), used by "weighted_pinv" and "dls"; None: identity.
        limit_avoidance_weight: gain of the null-space term that pushes joints away from their
            limits (redundant chains; 0 disables it).
        rest_posture: (n,) posture the null-space term pulls towards; None: mid-range.
        rest_weight: gain of that pull (0 disables it).
        position_weight, orientation_weight: task "weighted" only: relative weights of the
            normalised position [per chain length] and orientation [per rad] errors.
        random_seed: seed of the restart configurations; the same seed gives the same answers.
        jump_limit: [rad or m] an answer that is not the seed attempt's own and moves a joint
            further than this from the seed is reported as not continuous (``continuous`` False).
    """

    method: str = "dls"
    task: str = "pose"
    position_tolerance: float = 1e-6
    orientation_tolerance: float = 1e-5
    max_iterations: int = 60
    timeout: float | None = 0.01
    max_restarts: int = 200
    parallel_restarts: int = 2
    seed_iterations: int = 10
    damping: float = 0.1
    damping_bias: float = 1e-7
    singular_threshold: float = 0.05
    singular_damping: float = 1.0
    step_size: float = 1.0
    max_step: float = 1.0
    singular_cutoff: float = 1e-4
    joint_weights: object = None
    limit_avoidance_weight: float = 0.0
    rest_posture: object = None
    rest_weight: float = 0.0
    position_weight: float = 1.0
    orientation_weight: float = 1.0
    random_seed: int = 0
    jump_limit: float = 0.5


POSITIVE = (
    "position_tolerance",
    "orientation_tolerance",
    "step_size",
    "max_step",
    "singular_cutoff",
    "singular_threshold",
    "damping_bias",
    "jump_limit",
)
NON_NEGATIVE = (
    "damping",
    "singular_damping",
    "limit_avoidance_weight",
    "rest_weight",
    "position_weight",
    "orientation_weight",
)
COUNTS = ("max_iterations", "parallel_restarts", "seed_iterations")


def parse_options(chain: Chain, options: dict) -> JacobianOptions:
    """JacobianOptions from keyword options; ``tolerance`` sets both tolerances at once.

    Raises:
        InvalidOptionError: an unknown option or a value out of its range.
    """
    options = dict(options)
    known = {f.name for f in fields(JacobianOptions)}
    if "tolerance" in options:
        tolerance = options.pop("tolerance")
        options.setdefault("position_tolerance", tolerance)
        options.setdefault("orientation_tolerance", tolerance)
    unknown = sorted(set(options) - known)
    if unknown:
        raise InvalidOptionError(
            f"unknown option(s) {unknown} for the jacobian solver; valid: {sorted(known | {'tolerance'})}"
        )
    parsed = JacobianOptions(**options)
    _check_values(parsed)
    _check_vectors(chain, parsed)
    return parsed


def _check_values(options: JacobianOptions) -> None:
    if options.method not in METHODS:
        raise InvalidOptionError(f"method '{options.method}' is unknown; valid methods: {', '.join(METHODS)}")
    if options.task not in TASKS:
        raise InvalidOptionError(f"task '{options.task}' is unknown; valid tasks: {', '.join(TASKS)}")
    for name in POSITIVE + NON_NEGATIVE:
        value = getattr(options, name)
        if not isinstance(value, (int, float)) or not np.isfinite(value) or value < 0:
            raise InvalidOptionError(f"{name}={value!r}; expected a finite number >= 0")
        if name in POSITIVE and value == 0:
            raise InvalidOptionError(f"{name}=0; expected a finite number > 0")
    for name in COUNTS + ("max_restarts",):
        value = getattr(options, name)
        if not isinstance(value, (int, np.integer)) or value < (0 if name == "max_restarts" else 1):
            raise InvalidOptionError(f"{name}={value!r}; expected a whole number >= 1 (max_restarts: >= 0)")
    timeout = options.timeout
    if timeout is not None and (not isinstance(timeout, (int, float)) or not timeout > 0):
        raise InvalidOptionError(f"timeout={timeout!r}; expected seconds > 0, or None for no time limit")


def _check_vectors(chain: Chain, options: JacobianOptions) -> None:
    if options.joint_weights is not None:
        joint_weight_matrix(chain, options.joint_weights)
    if options.rest_posture is not None:
        rest = np.asarray(options.rest_posture, dtype=float)
        if rest.shape != (chain.n,) or not np.all(np.isfinite(rest)):
            raise InvalidOptionError(
                f"rest_posture has shape {rest.shape}; expected {chain.n} finite joint positions "
                f"for {list(chain.joint_names)}"
            )


def joint_weight_matrix(chain: Chain, weights: object) -> np.ndarray:
    """(n, n) symmetric positive-definite weight from an (n,) or (n, n) option value.

    Raises:
        InvalidOptionError: wrong shape, non-finite, or not positive-definite.
    """
    weights = np.asarray(weights, dtype=float)
    matrix = np.diag(weights) if weights.ndim == 1 else weights
    valid = matrix.shape == (chain.n, chain.n) and np.all(np.isfinite(matrix))
    if valid and np.allclose(matrix, matrix.T):
        valid = bool(np.linalg.eigvalsh(matrix)[0] > 0)
    else:
        valid = False
    if not valid:
        raise InvalidOptionError(
            f"joint_weights of shape {weights.shape} is not usable; expected {chain.n} positive numbers or "
            f"a symmetric positive-definite ({chain.n}, {chain.n}) matrix"
        )
    return matrix
