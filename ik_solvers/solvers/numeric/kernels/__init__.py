"""Compiled (numba, nopython) kernels of the Jacobian solvers.

- :mod:`ik_solvers.solvers.numeric.fk_kernel` (outside this package, since Chain uses it too): FK and the
  geometric Jacobian of one configuration.
- :mod:`.pose_error`: the 6D pose error.
- :mod:`.steps`: the joint step of each method, null-space goals, step bound and joint limits.
- :mod:`.linear`: Cholesky factor and solve of the small Gram matrices.
- :mod:`.attempts`: the attempts of many targets (seed, then restarts side by side), round by round.
- :mod:`.starts`: where restarts start (next to the seed, the pose table's nearest entries, random).

Everything here works on one configuration at a time with plain loops, into preallocated
buffers: at 6-7 joints, per-call overheads of numpy (about 1 µs per call) would dominate. The
decorators (:func:`ik_solvers.compiled.jit.compiled`, :func:`ik_solvers.compiled.jit.borrowing`) say which kernels
may allocate.
"""
