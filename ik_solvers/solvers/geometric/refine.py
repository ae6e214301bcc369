"""Closed-form answers refined to the chain's own FK, for chains that only nearly have a solver's
structure.

The structure checks (:mod:`.structure`) accept axes that meet, or are orthogonal, to within 1e-6
(m, or cosine). A closed form solves the ideal structure exactly; on a chain that deviates from
it by such a gap its answer misses the chain's own FK by up to about the gap. Where a solver's
structure model differs from the chain's FK (:func:`model_deviation`), each answer is refined by
a few Newton steps on the chain's 6 × n geometric Jacobian, damped least squares (Wampler 1986,
"Manipulator inverse kinematic solutions based on vector formulations and damped least-squares
methods"), starting from the closed form: the answer is exact to rounding, on the closed form's
branch.
"""

from __future__ import annotations

import numpy as np

from ik_solvers.chain import Chain
from ik_solvers.spatial import pose_error, rotation_log

MODEL_SLACK = 1e-12  # [m], [rad] a structure model this close to the chain's FK is exact
STEPS = 4  # Newton steps: the closed form is within ~1e-6 of the answer, convergence is quadratic
DAMPING = 1e-9  # [m] damped least squares: finite steps at a stretched knee


def model_deviation(chain: Chain, forward, count: int = 16) -> float:
    """Largest difference [m], [rad] between a structure model's FK and the chain's own.

    Args:
        forward: (N, n) configurations → (N, 4, 4) tip poses by the solver's structure model.
        count: random in-limit configurations compared (a fixed generator: the same every time).
    """
    q = chain.random_configurations(count, np.random.default_rng(0))
    position, orientation = pose_error(chain.fk(q), forward(q))
    return float(max(position.max(), orientation.max()))


def refine(chain: Chain, q: np.ndarray, targets: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Newton steps from (N, n) ``q`` towards (N, 4, 4) ``targets`` on the chain's own FK.

    Returns:
        q (N, n) clipped into the limits, its position errors [m] and orientation errors [rad]
        against the chain's FK (N,).
    """
    identity = DAMPING**2 * np.eye(6)
    for _ in range(STEPS):
        pose, jacobian = chain.fk_and_jacobian(q)
        error = np.concatenate(
            [
                targets[:, :3, 3] - pose[:, :3, 3],
                rotation_log(targets[:, :3, :3] @ np.swapaxes(pose[:, :3, :3], -1, -2)),
            ],
            axis=-1,
        )
        weights = np.linalg.solve(jacobian @ np.swapaxes(jacobian, -1, -2) + identity, error[..., None])
        q = np.clip(q + (np.swapaxes(jacobian, -1, -2) @ weights)[..., 0], chain.lower, chain.upper)
    position, orientation = pose_error(targets, chain.fk(q))
    return q, position, orientation
