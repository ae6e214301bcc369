"""Secondary goals for redundant chains: the η of seed 002's null-space term (I − J⁺J)η.

Each goal is the negative gradient of a cost on the joint positions, so that stepping along it in
the Jacobian's null space lowers the cost without moving the tip (to first order).
"""

from __future__ import annotations

import numpy as np

from ik_solvers.chain import Chain
from ik_solvers.solvers.jacobian_options import JacobianOptions


class SecondaryGoals:
    """Joint-limit avoidance and a rest posture, weighted; built once per solver.

    Joint-limit avoidance lowers Σ ((q − mid) / half_range)² / 2 over the bounded joints; the rest
    posture lowers |q − rest|² / 2 (angles wrapped for continuous joints).
    """

    def __init__(self, chain: Chain, options: JacobianOptions) -> None:
        self.active = options.limit_avoidance_weight > 0 or options.rest_weight > 0
        middle = 0.5 * (chain.lower + chain.upper)
        half_range = np.maximum(0.5 * (chain.upper - chain.lower), 1e-9)
        bounded = ~chain.continuous
        self._middle = middle
        self._limit_gain = np.where(bounded, options.limit_avoidance_weight / half_range**2, 0.0)
        rest = middle if options.rest_posture is None else np.asarray(options.rest_posture, dtype=float)
        self._rest = rest
        self._rest_weight = options.rest_weight
        self._continuous = chain.continuous

    def direction(self, q: np.ndarray) -> np.ndarray | None:
        """(K, n) η for configurations q (K, n), or None when no goal is set."""
        if not self.active:
            return None
        from_rest = q - self._rest
        if self._continuous.any():
            from_rest = np.where(self._continuous, wrap_angle(from_rest), from_rest)
        return -self._limit_gain * (q - self._middle) - self._rest_weight * from_rest


def wrap_angle(angle: np.ndarray) -> np.ndarray:
    """Angles [rad] wrapped into [-pi, pi)."""
    return (angle + np.pi) % (2.0 * np.pi) - np.pi
