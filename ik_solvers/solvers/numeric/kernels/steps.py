"""One iteration's joint step for each method, for one configuration (numba kernels).

``jacobian`` (6, n) is the geometric Jacobian at q, ``error`` (6,) the pose error of
:func:`~ik_solvers.solvers.numeric.kernels.pose_error.pose_error`, ``energy`` half the squared norm of the
weighted task error. Only the task's m rows (6, or 3 for position tasks) take part, scaled by the
task row weights. The step J⁺e (+ (I − J⁺J)η with the null-space goals of Liégeois 1977) comes before the
step-size factor, the step-norm bound and the joint limits, which :func:`project` applies.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ik_solvers.compiled.jit import borrowing, compiled
from ik_solvers.solvers.numeric.kernels.linear import cholesky, smallest_eigenvalue, solve_factored
from ik_solvers.solvers.numeric.kernels.model import (
    CCD,
    DLS,
    I_GOALS,
    I_JOINT_WEIGHTS,
    I_METHOD,
    I_ROWS,
    P_CCD_ORIENTATION_WEIGHT,
    P_CCD_POSITION_WEIGHT,
    P_DAMPING,
    P_DAMPING_BIAS,
    P_MAX_STEP,
    P_REST_WEIGHT,
    P_SINGULAR_CUTOFF,
    P_SINGULAR_DAMPING,
    P_SINGULAR_THRESHOLD,
    P_STEP_SIZE,
    PINV,
    TRANSPOSE,
)


class StepBuffers(NamedTuple):
    """Buffers of :func:`joint_step` for n joints; only the task's m rows and the r right-hand
    sides in use are read."""

    scaled: np.ndarray  # (6, n) the Jacobian with its rows scaled by the task row weights
    weighted: np.ndarray  # (6, n) scaled times W⁻¹ (the joint weight's inverse)
    rhs: np.ndarray  # (6, 2) right-hand sides: the weighted error, the null-space direction's image
    gram: np.ndarray  # (6, 6) the Gram matrix
    factor: np.ndarray  # (6, 6) its Cholesky factor
    solution: np.ndarray  # (6, 2) the damped solution
    inverse: np.ndarray  # (n, 2) J⁺ times the right-hand sides
    eta: np.ndarray  # (n,) the null-space direction η


@compiled
def step_workspace(n):
    """:class:`StepBuffers` for n joints."""
    return StepBuffers(
        np.empty((6, n)),
        np.empty((6, n)),
        np.empty((6, 2)),
        np.empty((6, 6)),
        np.empty((6, 6)),
        np.empty((6, 2)),
        np.empty((n, 2)),
        np.empty(n),
    )


@borrowing
def joint_step(model, q, jacobian, error, relative, energy, step, buffers):
    """(n,) step of the model's method into ``step``; see the module docstring. buffers: from
    :func:`step_workspace`."""
    weights, ints = model.weights, model.ints
    if ints[I_METHOD] == CCD:
        ccd_sweep(model, q, jacobian, error, relative, step)
        return
    m, n = ints[I_ROWS], q.shape[0]
    row_weights = weights.rows
    scaled, rhs = buffers.scaled, buffers.rhs
    for r in range(m):
        rhs[r, 0] = error[r] * row_weights[r]
        for j in range(n):
            scaled[r, j] = jacobian[r, j] * row_weights[r]
    _step_of_scaled(model, q, m, energy, step, buffers)
    lower, upper = model.limits.lower, model.limits.upper
    blocked = False
    for j in range(n):  # a joint at a limit that the step pushes further out takes no part
        if (q[j] <= lower[j] and step[j] < 0.0) or (q[j] >= upper[j] and step[j] > 0.0):
            blocked = True
            for r in range(m):
                scaled[r, j] = 0.0
    if blocked:  # the task solved again by the joints free to move (clamping, as in KDL's and TRAC-IK's)
        _step_of_scaled(model, q, m, energy, step, buffers)
        for j in range(n):
            if (q[j] <= lower[j] and step[j] < 0.0) or (q[j] >= upper[j] and step[j] > 0.0):
                step[j] = 0.0


@borrowing
def _step_of_scaled(model, q, m, energy, step, buffers):
    """step = J⁺ rhs (+ the null-space term) for the scaled Jacobian and right-hand side in buffers."""
    ints = model.ints
    n = q.shape[0]
    scaled, rhs, inverse, eta = buffers.scaled, buffers.rhs, buffers.inverse, buffers.eta
    columns = 2 if ints[I_GOALS] else 1
    if columns == 2:
        goal_direction(model, q, eta)
        for r in range(m):
            total = 0.0
            for j in range(n):
                total += scaled[r, j] * eta[j]
            rhs[r, 1] = total
    _inverse(model, m, columns, energy, buffers)
    for j in range(n):
        step[j] = inverse[j, 0] + (eta[j] - inverse[j, 1] if columns == 2 else 0.0)


@borrowing
def _inverse(model, m, columns, energy, buffers):
    """J⁺ rhs into buffers.inverse[:, :columns] for the right-hand sides buffers.rhs[:m, :columns],
    J⁺ the method's generalised inverse of the scaled Jacobian buffers.scaled[:m]."""
    params, ints, weights = model.params, model.ints, model.weights
    if ints[I_METHOD] == DLS:
        _dls(m, columns, energy, params, weights.inverse, ints[I_JOINT_WEIGHTS] != 0, buffers)
    else:
        _factored_inverse(model, m, columns, buffers)


@compiled
def _factored_inverse(model, m, columns, buffers):
    """:func:`_inverse` of the methods that factor J (SVD) or use its transpose (they allocate)."""
    params, ints, weights = model.params, model.ints, model.weights
    scaled, rhs = buffers.scaled[:m].copy(), buffers.rhs[:m, :columns].copy()
    if ints[I_METHOD] == TRANSPOSE:
        inverse = _transpose(scaled, rhs)
    elif ints[I_METHOD] == PINV or ints[I_JOINT_WEIGHTS] == 0:
        inverse = _pinv(scaled, rhs, params[P_SINGULAR_CUTOFF])
    else:
        root = weights.root  # weighted pseudoinverse (Whitney 1969): J_W⁺ = L⁻ᵀ (J L⁻ᵀ)⁺ with W = L Lᵀ
        inverse = root @ _pinv(scaled @ root, rhs, params[P_SINGULAR_CUTOFF])
    buffers.inverse[:, :columns] = inverse


@borrowing
def _dls(m, columns, energy, params, inverse_weight, use_weight, buffers):
    """Damped least squares: J⁺ = W⁻¹Jᵀ(JW⁻¹Jᵀ + λI)⁻¹ with λ = (w + w_s·s)·E + bias.

    Like Sugihara (2011) the damping follows the error energy E, so it vanishes at the solution
    and convergence stays quadratic; the bias keeps the system regular. Where a step would exceed
    ``max_step`` (near a singular posture, or far from the target), the factor s = 1 − σ²/ε²
    (0 when σ ≥ ε) raises the damping as the smallest singular value σ of J W^-1/2 falls below
    the threshold ε (Nakamura-Hanafusa's rule), and the step is solved again.
    """
    scaled, weighted, gram, inverse = buffers.scaled, buffers.weighted, buffers.gram, buffers.inverse
    rhs, factor, solution = buffers.rhs, buffers.factor, buffers.solution
    n = scaled.shape[1]
    if use_weight:
        for i in range(m):
            for j in range(n):
                total = 0.0
                for k in range(n):
                    total += scaled[i, k] * inverse_weight[k, j]
                weighted[i, j] = total
    else:
        weighted = scaled
    for i in range(m):
        for k in range(i + 1):
            total = 0.0
            for j in range(n):
                total += weighted[i, j] * scaled[k, j]
            gram[i, k] = gram[k, i] = total
    damping = params[P_DAMPING] * energy + params[P_DAMPING_BIAS]
    _damped_inverse(weighted, rhs, gram, factor, solution, inverse, damping, m, columns)
    if params[P_SINGULAR_DAMPING] > 0:
        norm = 0.0
        for j in range(n):
            norm += inverse[j, 0] ** 2
        threshold = params[P_SINGULAR_THRESHOLD] ** 2
        # σ²_min ≥ ε² (shortfall 0, the same step) exactly when gram − ε²I is positive definite
        if norm > params[P_MAX_STEP] ** 2 and not cholesky(gram, -threshold, m, factor):
            smallest = smallest_eigenvalue(gram, params[P_DAMPING_BIAS], m, factor, solution)
            shortfall = max(0.0, 1.0 - smallest / threshold)
            extra = damping + params[P_SINGULAR_DAMPING] * shortfall * energy
            _damped_inverse(weighted, rhs, gram, factor, solution, inverse, extra, m, columns)


@borrowing
def _damped_inverse(weighted, rhs, gram, lower, x, inverse, damping, m, columns):
    """inverse (n, r) = weightedᵀ x with x (m, r) = (gram + damping·I)⁻¹ rhs, by the Cholesky
    factor ``lower`` of the symmetric PSD gram (m, m) (r = columns; only m rows of each used)."""
    cholesky(gram, damping, m, lower)
    for col in range(columns):
        solve_factored(lower, rhs, col, m, x)
        for j in range(weighted.shape[1]):
            total = 0.0
            for i in range(m):
                total += weighted[i, j] * x[i, col]
            inverse[j, col] = total


@compiled
def _pinv(scaled, rhs, cutoff):
    """Moore-Penrose pseudoinverse by SVD (Buss 2009, section 5), dropping singular values below the cutoff."""
    u, s, vt = np.linalg.svd(scaled, full_matrices=False)
    projected = u.T @ rhs
    for i in range(s.shape[0]):
        projected[i, :] *= 1.0 / s[i] if s[i] > cutoff else 0.0
    return vt.T @ projected


@compiled
def _transpose(scaled, rhs):
    """Jacobian transpose, α Jᵀ b, with Buss's step α = ⟨b, JJᵀb⟩ / |JJᵀb|² (per right-hand side)."""
    step = scaled.T @ rhs
    moved = scaled @ step
    for col in range(rhs.shape[1]):
        alpha = np.sum(rhs[:, col] * moved[:, col]) / max(np.sum(moved[:, col] ** 2), 1e-300)
        step[:, col] *= alpha
    return step


@borrowing
def goal_direction(model, q, eta):
    """η (n,) of the null-space goals into ``eta``: lowers Σ gain·(q − mid)² / 2 (joint-limit avoidance, bounded
    joints) plus rest_weight·|q − rest|² / 2 (rest posture, continuous joints the short way)."""
    limits, goals, params = model.limits, model.goals, model.params
    continuous = limits.continuous
    limit_gain, middle, rest = goals
    for j in range(q.shape[0]):
        from_rest = wrap_angle(q[j] - rest[j]) if continuous[j] else q[j] - rest[j]
        eta[j] = -limit_gain[j] * (q[j] - middle[j]) - params[P_REST_WEIGHT] * from_rest


@borrowing
def project(model, q, step, moved):
    """moved = q + step, scaled by step_size, its norm bounded by max_step, clipped into the limits
    (continuous joints wrapped into [-pi, pi))."""
    lower, upper, continuous = model.limits
    params = model.params
    norm = 0.0
    for j in range(q.shape[0]):
        norm += step[j] * step[j]
    norm = np.sqrt(norm)
    scale = params[P_STEP_SIZE] * min(1.0, params[P_MAX_STEP] / max(norm, 1e-300))
    for j in range(q.shape[0]):
        value = min(max(q[j] + step[j] * scale, lower[j]), upper[j])
        moved[j] = wrap_angle(value) if continuous[j] else value


@borrowing
def wrap_angle(angle):
    """Angle [rad] wrapped into [-pi, pi)."""
    return (angle + np.pi) % (2.0 * np.pi) - np.pi


@compiled
def ccd_sweep(model, q, jacobian, error, relative, step):
    """One CCD sweep (Wang and Chen 1991): joints tip to base, each turned to its best angle; into ``step``.

    For joint axis a, lever u = a × (p − r) and w = a × u, turning by θ moves the tip by
    sinθ u + (1 − cosθ) w. With position error e and the rotation error R_e (target · actualᵀ),
    the weighted cost wp|e'|² + wo(3 − tr R_e') is minimal at θ = atan2(P, Q), where
    P = 2wp e·u + 2wo a·s (s: vector of R_e's skew part) and
    Q = 2wp (|u|² − e·w) + wo (tr R_e − aᵀR_e a). After each turn the tip error, the levers and
    R_e are updated in closed form; prismatic joints are left where they are, the swept
    configuration stays within the limits.
    """
    prismatic = model.terms.prismatic
    lower, upper, continuous = model.limits
    wp, wo = model.params[P_CCD_POSITION_WEIGHT], model.params[P_CCD_ORIENTATION_WEIGHT]
    levers, axes = jacobian[:3].copy(), jacobian[3:]
    e, rel = error[:3].copy(), relative.copy()
    step[:] = 0.0
    for i in range(q.shape[0] - 1, -1, -1):
        if prismatic[i]:
            continue
        a, u = axes[:, i].copy(), levers[:, i].copy()
        w = np.cross(a, u)
        skew = np.array([rel[2, 1] - rel[1, 2], rel[0, 2] - rel[2, 0], rel[1, 0] - rel[0, 1]]) * 0.5
        along = a @ (rel @ a)
        p = 2 * wp * (e @ u) + 2 * wo * (a @ skew)
        q_term = 2 * wp * (u @ u - e @ w) + wo * (rel[0, 0] + rel[1, 1] + rel[2, 2] - along)
        angle = np.arctan2(p, q_term)
        if not continuous[i]:
            angle = min(max(q[i] + angle, lower[i]), upper[i]) - q[i]
        step[i] = angle
        sin, one_minus_cos = np.sin(angle), 1.0 - np.cos(angle)
        moved = sin * u + one_minus_cos * w
        e -= moved
        for j in range(q.shape[0]):
            levers[:, j] += np.cross(axes[:, j].copy(), moved)
        k = np.array([[0.0, -a[2], a[1]], [a[2], 0.0, -a[0]], [-a[1], a[0], 0.0]])
        turn = np.eye(3) + sin * k + one_minus_cos * (k @ k)
        rel = rel @ turn.T
