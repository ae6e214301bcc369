"""The compiled linear algebra of the Jacobian kernels against numpy's LAPACK."""

from __future__ import annotations

import numpy as np
import pytest

from ik_solvers.solvers.numeric.kernels.linear import smallest_eigenvalue


def near_singular_gram(rng: np.random.Generator, m: int) -> np.ndarray:
    """Gram matrix J Jᵀ (m, m) of a random 7-column Jacobian whose last row is almost dependent."""
    jacobian = rng.normal(size=(m, 7))
    jacobian[-1] = jacobian[0] + 1e-3 * rng.normal(size=7)
    return jacobian @ jacobian.T


@pytest.mark.parametrize("m", [3, 6])
def test_smallest_eigenvalue_estimate_is_close_and_never_below_the_true_value(m):
    rng = np.random.default_rng(4)
    for _ in range(200):
        gram = near_singular_gram(rng, m)
        true = np.linalg.eigvalsh(gram)[0]
        estimate = smallest_eigenvalue(gram, 1e-9, m, np.empty((m, m)), np.empty((m, 1)))
        assert estimate >= true - 1e-12
        assert estimate - true <= 1e-3 * np.linalg.eigvalsh(gram)[1]
