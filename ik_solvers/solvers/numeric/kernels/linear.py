"""Cholesky factor and solve of small symmetric matrices in plain loops, without allocations.

For the m x m (m ≤ 6) Gram matrices of the damped least squares step (numba kernels): at this
size LAPACK's call and allocation overheads cost more than the arithmetic.
"""

from __future__ import annotations

import numpy as np

from ik_solvers.compiled.jit import borrowing


@borrowing
def cholesky(matrix, shift, m, lower):
    """Cholesky factor of matrix[:m, :m] + shift·I (symmetric) into lower (m, m), with the
    reciprocals of its diagonal on the diagonal (the upper triangle is left alone).

    Returns False when a pivot is not positive (the shifted matrix is not positive definite);
    such pivots are taken as 1e-300.
    """
    definite = True
    for j in range(m):
        for i in range(j, m):
            total = matrix[i, j] + (shift if i == j else 0.0)
            for k in range(j):
                total -= lower[i, k] * lower[j, k]
            if i == j:
                definite = definite and total > 0.0
                lower[j, j] = 1.0 / np.sqrt(max(total, 1e-300))
            else:
                lower[i, j] = total * lower[j, j]
    return definite


@borrowing
def solve_factored(lower, rhs, column, m, x):
    """x[:m, column] = A⁻¹ rhs[:m, column] for A = L Lᵀ factored by :func:`cholesky`."""
    for i in range(m):
        total = rhs[i, column]
        for k in range(i):
            total -= lower[i, k] * x[k, column]
        x[i, column] = total * lower[i, i]
    for i in range(m - 1, -1, -1):
        total = x[i, column]
        for k in range(i + 1, m):
            total -= lower[k, i] * x[k, column]
        x[i, column] = total * lower[i, i]


INVERSE_ITERATIONS = 3  # of the smallest eigenvalue's estimate


@borrowing
def smallest_eigenvalue(matrix, shift, m, lower, x):
    """Estimate of the smallest eigenvalue of the symmetric positive semi-definite matrix[:m, :m].

    A few steps of inverse iteration with the Cholesky factor of matrix + shift·I (shift > 0
    keeps it regular; ``lower`` (m, m) receives the factor), from a fixed start in x[:m, 0], then
    the Rayleigh quotient of the iterate. The quotient never falls below the true value, and its
    error shrinks with the square of the iterate's: it is close when the smallest eigenvalue is
    well below the next one, the case a singular posture gives.
    """
    cholesky(matrix, shift, m, lower)
    for i in range(m):
        x[i, 0] = 1.0 + 0.1 * i
    for _ in range(INVERSE_ITERATIONS):
        solve_factored(lower, x, 0, m, x)  # in place: each row reads only rows already solved
        norm = 0.0
        for i in range(m):
            norm += x[i, 0] ** 2
        norm = 1.0 / np.sqrt(norm)
        for i in range(m):
            x[i, 0] *= norm
    quotient = 0.0
    for i in range(m):
        total = 0.0
        for k in range(m):
            total += matrix[i, k] * x[k, 0]
        quotient += x[i, 0] * total
    return quotient
