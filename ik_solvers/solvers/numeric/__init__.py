"""Numeric (Jacobian) solvers for any serial chain, with their compiled kernels.

- :mod:`.jacobian`: :class:`~.jacobian.JacobianSolver`, the Python driver (time budget, results).
- :mod:`.options`: its options, checked once. :mod:`.kernels`: the compiled iterations.
- :mod:`.fk_kernel`: FK and Jacobian of one configuration, compiled (the chain uses it too).
- :mod:`.jit`: how the kernels are compiled and cached.

Kept free of imports here: :mod:`ik_solvers.chain` imports :mod:`.fk_kernel`.
The algorithms and their references: ``docs/algorithms.md``.
"""
