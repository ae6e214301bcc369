"""The 7-DoF S-R-S arm in closed form.

- :mod:`.solver`: :class:`Arm7Solver`, the construction (elbow, swivel circle, joint split, search).
- :mod:`.geometry`: the arm's constants read from the chain (centres, elbow, tool offset).
- :mod:`.axis_triple`: a rotation split into three revolute joints about given axes.
- :mod:`.elbow_direction`: where the elbow points, by pole, seed or default.
- :mod:`.swivel_search`: the nearest swivel angle at which every joint is within its limits.
"""
