"""A humanoid's limbs, soles and footprints, found from its kinematic tree and collision geometry.

No link name is required: the legs are the two 6-DoF chains that end lowest, the arms the chains
on either side of the trunk, a head (or any chain on the middle plane) is left alone
(:mod:`.tree`). A foot without a sole frame gets one from its collision geometry (:mod:`.soles`),
and every sole a footprint polygon (:mod:`.footprint`). No ROS here.

    from ik_solvers.limbs import find_body, sole_geometry

    body = find_body(model)          # body.model: the model with derived sole frames added
    body.chains                      # {"left_leg": (base, tip), ..., "right_arm": (base, tip)}
    body.sole_links                  # (left, right) sole frames, None when it cannot stand
    sole_geometry(body.model, body.sole_links[0])   # footprint (ValueError with the reason)
"""

from ik_solvers.limbs.body import Body, find_body
from ik_solvers.limbs.footprint import SoleGeometry, sole_geometry
from ik_solvers.limbs.tree import Limb

__all__ = ["Body", "Limb", "SoleGeometry", "find_body", "sole_geometry"]
