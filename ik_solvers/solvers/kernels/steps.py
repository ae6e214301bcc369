"""One iteration's joint step for each method, for one configuration (numba kernels).

``jacobian`` (6, n) is the geometric Jacobian at q, ``error`` (6,) the pose error of
:func:`~ik_solvers.solvers.kernels.kinematics.pose_error`, ``energy`` half the squared norm of the
weighted task error. Only the task's m rows (6, or 3 for position tasks) take part, scaled by the
task row weights. The step J⁺e (+ (I − J⁺J)η with seed 002's null-space goals) comes before the
step-size factor, the step-norm bound and the joint limits, which :func:`project` applies.
"""

from __future__ import annotations

import numpy as np

from ik_solvers.solvers.kernels import compiled
from ik_solvers.solvers.kernels.model import (
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


@compiled
def joint_step(model, q, jacobian, error, relative, energy, step):
    """(n,) step of the model's method into ``step``; see the module docstring."""
    weights, ints = model[3], model[5]
    if ints[I_METHOD] == CCD:
        ccd_sweep(model, q, jacobian, error, relative, step)
        return
    m, n = ints[I_ROWS], q.shape[0]
    row_weights = weights[0]
    scaled = np.empty((m, n))
    columns = 2 if ints[I_GOALS] else 1
    rhs = np.empty((m, columns))
    for r in range(m):
        rhs[r, 0] = error[r] * row_weights[r]
        for j in range(n):
            scaled[r, j] = jacobian[r, j] * row_weights[r]
    if columns == 2:
        eta = goal_direction(model, q)
        rhs[:, 1] = scaled @ eta
    both = _inverse(model, scaled, rhs, energy)
    step[:] = both[:, 0]
    if columns == 2:
        step += eta - both[:, 1]


@compiled
def _inverse(model, scaled, rhs, energy):
    """(n, r) J⁺ rhs for right-hand sides rhs (m, r), J⁺ the method's generalised inverse."""
    params, ints, weights = model[4], model[5], model[3]
    method, weighted = ints[I_METHOD], ints[I_JOINT_WEIGHTS] != 0
    if method == DLS:
        return _dls(scaled, rhs, energy, params, weights[1], weighted)
    if method == TRANSPOSE:
        return _transpose(scaled, rhs)
    if method == PINV or not weighted:
        return _pinv(scaled, rhs, params[P_SINGULAR_CUTOFF])
    root = weights[2]  # weighted pseudoinverse (seed 002): J_W⁺ = L⁻ᵀ (J L⁻ᵀ)⁺ with W = L Lᵀ
    return root @ _pinv(scaled @ root, rhs, params[P_SINGULAR_CUTOFF])


@compiled
def _dls(scaled, rhs, energy, params, inverse_weight, use_weight):
    """Damped least squares: J⁺ = W⁻¹Jᵀ(JW⁻¹Jᵀ + λI)⁻¹ with λ = (w + w_s·s)·E + bias.

    Like Sugihara (2011) the damping follows the error energy E, so it vanishes at the solution
    and convergence stays quadratic; the bias keeps the system regular. Where a step would exceed
    ``max_step`` (near a singular posture, or far from the target), the factor s = 1 − σ²/ε²
    (0 when σ ≥ ε) raises the damping as the smallest singular value σ of J W^-1/2 falls below
    the threshold ε (Nakamura-Hanafusa's rule), and the step is solved again.
    """
    weighted = scaled @ inverse_weight if use_weight else scaled
    m = scaled.shape[0]
    gram = np.empty((m, m))
    for i in range(m):
        for k in range(i + 1):
            total = 0.0
            for j in range(scaled.shape[1]):
                total += weighted[i, j] * scaled[k, j]
            gram[i, k] = gram[k, i] = total
    damping = params[P_DAMPING] * energy + params[P_DAMPING_BIAS]
    step = _transpose_times(weighted, _solve_damped(gram, damping, rhs))
    if params[P_SINGULAR_DAMPING] > 0 and np.sum(step[:, 0] ** 2) > params[P_MAX_STEP] ** 2:
        smallest = np.linalg.eigvalsh(gram)[0]  # σ²_min
        shortfall = max(0.0, 1.0 - smallest / params[P_SINGULAR_THRESHOLD] ** 2)
        extra = damping + params[P_SINGULAR_DAMPING] * shortfall * energy
        step = _transpose_times(weighted, _solve_damped(gram, extra, rhs))
    return step


@compiled
def _transpose_times(matrix, columns):
    """(n, r) matrixᵀ · columns for matrix (m, n) and columns (m, r), in plain loops."""
    product = np.zeros((matrix.shape[1], columns.shape[1]))
    for i in range(matrix.shape[0]):
        for j in range(matrix.shape[1]):
            for col in range(columns.shape[1]):
                product[j, col] += matrix[i, j] * columns[i, col]
    return product


@compiled
def _solve_damped(gram, damping, rhs):
    """(m, r) solution of (gram + damping·I) x = rhs by Cholesky (gram (m, m) symmetric, PSD)."""
    m, r = rhs.shape
    lower = np.zeros((m, m))
    for i in range(m):
        for j in range(i + 1):
            total = gram[i, j] + (damping if i == j else 0.0)
            for k in range(j):
                total -= lower[i, k] * lower[j, k]
            lower[i, j] = np.sqrt(max(total, 1e-300)) if i == j else total / lower[j, j]
    x = rhs.copy()
    for col in range(r):
        for i in range(m):
            for k in range(i):
                x[i, col] -= lower[i, k] * x[k, col]
            x[i, col] /= lower[i, i]
        for i in range(m - 1, -1, -1):
            for k in range(i + 1, m):
                x[i, col] -= lower[k, i] * x[k, col]
            x[i, col] /= lower[i, i]
    return x


@compiled
def _pinv(scaled, rhs, cutoff):
    """Moore-Penrose pseudoinverse by SVD (seed 003), dropping singular values below the cutoff."""
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


@compiled
def goal_direction(model, q):
    """(n,) η of the null-space goals: lowers Σ gain·(q − mid)² / 2 (joint-limit avoidance, bounded
    joints) plus rest_weight·|q − rest|² / 2 (rest posture, continuous joints the short way)."""
    limits, goals, params = model[1], model[2], model[4]
    continuous = limits[2]
    limit_gain, middle, rest = goals
    eta = np.empty(q.shape[0])
    for j in range(q.shape[0]):
        from_rest = wrap_angle(q[j] - rest[j]) if continuous[j] else q[j] - rest[j]
        eta[j] = -limit_gain[j] * (q[j] - middle[j]) - params[P_REST_WEIGHT] * from_rest
    return eta


@compiled
def project(model, q, step, moved):
    """moved = q + step, scaled by step_size, its norm bounded by max_step, clipped into the limits
    (continuous joints wrapped into [-pi, pi))."""
    lower, upper, continuous = model[1]
    params = model[4]
    norm = np.sqrt(np.sum(step**2))
    scale = params[P_STEP_SIZE] * min(1.0, params[P_MAX_STEP] / max(norm, 1e-300))
    for j in range(q.shape[0]):
        value = min(max(q[j] + step[j] * scale, lower[j]), upper[j])
        moved[j] = wrap_angle(value) if continuous[j] else value


@compiled
def wrap_angle(angle):
    """Angle [rad] wrapped into [-pi, pi)."""
    return (angle + np.pi) % (2.0 * np.pi) - np.pi


@compiled
def ccd_sweep(model, q, jacobian, error, relative, step):
    """One CCD sweep (seed 003): joints tip to base, each turned to its best angle; into ``step``.

    For joint axis a, lever u = a × (p − r) and w = a × u, turning by θ moves the tip by
    sinθ u + (1 − cosθ) w. With position error e and the rotation error R_e (target · actualᵀ),
    the weighted cost wp|e'|² + wo(3 − tr R_e') is minimal at θ = atan2(P, Q), where
    P = 2wp e·u + 2wo a·s (s: vector of R_e's skew part) and
    Q = 2wp (|u|² − e·w) + wo (tr R_e − aᵀR_e a). After each turn the tip error, the levers and
    R_e are updated in closed form; prismatic joints are left where they are, the swept
    configuration stays within the limits.
    """
    prismatic = model[0][4]
    lower, upper, continuous = model[1]
    wp, wo = model[4][P_CCD_POSITION_WEIGHT], model[4][P_CCD_ORIENTATION_WEIGHT]
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
