"""Compiled (numba) kernels' common ground, below every family that compiles code.

- :mod:`.jit`: the decorators (with numba's on-disk cache, with or without its runtime).
- :mod:`.cache`: a kernel set's on-disk cache kept whole (marker, lock, rebuild), knowing no set.
- ``python -m ik_solvers.compiled`` (:mod:`.__main__`): prepares every kernel set of the package.
"""
