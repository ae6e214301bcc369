"""Geometric (closed-form) solvers, picked from the chain's structure by :mod:`.factory`.

- :mod:`.structure`: structure detection from the chain's axis lines at q = 0.
- :mod:`.base`, :mod:`.branches`: what the solvers share (checks, limits, batches, branch search).
- :mod:`.vectors`, :mod:`.rotations`: arithmetic that runs on floats and numpy columns alike.
- :mod:`.two_link`, :mod:`.planar`: the planar two-link closed form and its solver.
- :mod:`.leg`: the 6-DoF biped leg. :mod:`.arm7`: the 7-DoF S-R-S arm.

The algorithms and their references: ``docs/algorithms.md``.
"""
