"""One iteration's joint step for each Jacobian method, on a stack of K configurations at once.

Shapes: ``jacobian`` (K, m, n) holds the task rows of the geometric Jacobian already scaled by the
task weights (m = 6 for pose tasks, 3 for position); ``error`` (K, m) the weighted task error that
the step should remove; ``energy`` (K,) half its squared norm. Every function returns a (K, n)
joint step [rad or m] before the step-size factor, the step-norm bound and the joint limits apply.

The generalised inverses are applied to a stack of right-hand sides (K, m, r) at once, so that the
null-space projection (I − J⁺J)η of seed 002 costs no second factorisation.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ik_solvers.solvers.jacobian_options import JacobianOptions

# g(b): (K, m, r) right-hand sides → (K, n, r) joint steps, J⁺b for the method's inverse J⁺.
Inverse = Callable[[np.ndarray], np.ndarray]


@dataclass(frozen=True)
class StepSettings:
    """What the step functions need beyond the Jacobian: options and the joint weight factors.

    Attributes:
        options: the solver's options.
        inverse_weight: (n, n) W⁻¹ of the joint weight W, or None for the identity.
        weight_root: (n, n) L⁻ᵀ with W = L Lᵀ (weighted pseudoinverse), or None for the identity.
    """

    options: JacobianOptions
    inverse_weight: np.ndarray | None
    weight_root: np.ndarray | None


def dls_inverse(jacobian: np.ndarray, energy: np.ndarray, settings: StepSettings) -> Inverse:
    """Damped least squares: J⁺ = W⁻¹Jᵀ(JW⁻¹Jᵀ + λI)⁻¹ with λ = (w + w_s·s)·E + bias.

    Like Sugihara (2011) the damping follows the error energy E, so it vanishes at the solution
    and convergence stays quadratic; the bias keeps the system regular. Where a step would exceed
    ``max_step`` (near a singular posture, or far from the target), the factor s = 1 − σ²/ε²
    (0 when σ ≥ ε) raises the damping as the smallest singular value σ of J W^-1/2 falls below
    the threshold ε (Nakamura-Hanafusa's rule), and the step is solved again.
    """
    options = settings.options
    weighted = jacobian if settings.inverse_weight is None else jacobian @ settings.inverse_weight
    transposed = weighted.swapaxes(-1, -2)
    gram = weighted @ jacobian.swapaxes(-1, -2)  # (K, m, m) J W⁻¹ Jᵀ
    damping = options.damping * energy + options.damping_bias

    def apply(rhs: np.ndarray) -> np.ndarray:
        step = transposed @ np.linalg.solve(_damped(gram, damping), rhs)
        if options.singular_damping > 0:
            long = np.einsum("kn,kn->k", step[..., 0], step[..., 0]) > options.max_step**2
            if long.any():
                smallest = np.linalg.eigvalsh(gram[long])[:, 0]  # σ²_min
                shortfall = np.maximum(0.0, 1.0 - smallest / options.singular_threshold**2)
                extra = damping[long] + options.singular_damping * shortfall * energy[long]
                step[long] = transposed[long] @ np.linalg.solve(_damped(gram[long], extra), rhs[long])
        return step

    return apply


def _damped(gram: np.ndarray, damping: np.ndarray) -> np.ndarray:
    """(K, m, m) gram + damping·I for damping (K,)."""
    system = gram.copy()
    system.reshape(len(gram), -1)[:, :: gram.shape[-1] + 1] += damping[:, None]
    return system


def pinv_inverse(jacobian: np.ndarray, energy: np.ndarray, settings: StepSettings) -> Inverse:
    """Moore-Penrose pseudoinverse by SVD (seed 003), dropping singular values below the cutoff."""
    u, s, vt = np.linalg.svd(jacobian, full_matrices=False)
    inverse_s = np.where(s > settings.options.singular_cutoff, 1.0 / np.maximum(s, 1e-300), 0.0)
    v = vt.swapaxes(-1, -2)
    ut = u.swapaxes(-1, -2)
    return lambda rhs: v @ (inverse_s[..., None] * (ut @ rhs))


def weighted_pinv_inverse(jacobian: np.ndarray, energy: np.ndarray, settings: StepSettings) -> Inverse:
    """Weighted pseudoinverse (seed 002): minimises Δqᵀ W Δq; J_W⁺ = L⁻ᵀ (J L⁻ᵀ)⁺ with W = L Lᵀ."""
    root = settings.weight_root
    if root is None:
        return pinv_inverse(jacobian, energy, settings)
    inverse = pinv_inverse(jacobian @ root, energy, settings)
    return lambda rhs: root @ inverse(rhs)


def transpose_inverse(jacobian: np.ndarray, energy: np.ndarray, settings: StepSettings) -> Inverse:
    """Jacobian transpose, α Jᵀ b, with Buss's step α = ⟨b, JJᵀb⟩ / |JJᵀb|² (per right-hand side)."""
    transposed = jacobian.swapaxes(-1, -2)

    def apply(rhs: np.ndarray) -> np.ndarray:
        step = transposed @ rhs
        moved = jacobian @ step
        alpha = np.sum(rhs * moved, axis=-2) / np.maximum(np.sum(moved * moved, axis=-2), 1e-300)
        return step * alpha[..., None, :]

    return apply


INVERSES = {
    "dls": dls_inverse,
    "pinv": pinv_inverse,
    "weighted_pinv": weighted_pinv_inverse,
    "transpose": transpose_inverse,
}


def inverse_step(
    method: str,
    jacobian: np.ndarray,
    error: np.ndarray,
    energy: np.ndarray,
    settings: StepSettings,
    secondary: np.ndarray | None,
) -> np.ndarray:
    """(K, n) step J⁺e + (I − J⁺J)η of a Jacobian-inverse method; η = ``secondary`` (K, n) or None."""
    inverse = INVERSES[method](jacobian, energy, settings)
    if secondary is None:
        return inverse(error[..., None])[..., 0]
    rhs = np.stack([error, (jacobian @ secondary[..., None])[..., 0]], axis=-1)
    both = inverse(rhs)
    return both[..., 0] + secondary - both[..., 1]
