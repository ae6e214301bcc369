"""What a whole-body target is checked for beyond its numbers: the soles' order and the CoM's support.

- Soles swapped or crossed: the left sole's footprint centre is not to the left of the right one's,
  across the soles' mean heading (the sum of their x axes on the floor). Refused: legs commanded
  there would cross through each other; a sender that mixed up left and right is told so.
- CoM target outside the footprints of both soles (their convex hull, whatever the support): a
  robot standing there falls. Commanded, with a warning: a robot in motion may pass there (a
  walking pattern's CoM stays between the feet: 43 mm inside this hull or more in the packaged
  walk's turns, side steps and stops, on the packaged humanoid and four variants).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ik_solvers.limbs.footprint import SoleGeometry
from ik_solvers.walk.walk_metrics import footprint_hull, polygon_margin

MIN_HEADING = 1e-6  # [-] soles whose x axes cancel on the floor have no mean heading: not judged


def crossed_soles(soles: Sequence[SoleGeometry], left: np.ndarray, right: np.ndarray) -> str:
    """Why the soles look swapped or crossed, "" when they do not.

    Args:
        soles: the left and right soles' footprints. left, right: their (4, 4) world poses [m].
    """
    heading = left[:2, 0] + right[:2, 0]
    length = float(np.linalg.norm(heading))
    if length < MIN_HEADING:
        return ""
    across = np.array([-heading[1], heading[0]]) / length  # the soles' mean left direction
    lateral = float(across @ (soles[0].center_in_world(left) - soles[1].center_in_world(right)))
    if lateral > 0.0:
        return ""
    return (
        f"the left sole is {-lateral:.3f} m to the right of the right sole (across their mean "
        "heading): the soles look swapped or crossed and the legs would collide; send the left "
        "sole's pose in left_sole, to the left of the right sole"
    )


def com_outside_support(
    soles: Sequence[SoleGeometry], left: np.ndarray, right: np.ndarray, com: np.ndarray
) -> str:
    """What to warn of when the CoM target ``com`` (2,) world x, y [m] lies outside the footprints
    of both soles (at their (4, 4) world poses ``left``, ``right``); "" when it lies inside."""
    margin = polygon_margin(np.asarray(com, dtype=float)[:2], footprint_hull(soles, (left, right)))
    if margin >= 0.0:
        return ""
    return (
        f"CoM target ({com[0]:.3f}, {com[1]:.3f}) m is {1e3 * -margin:.0f} mm outside the footprints of "
        "both soles: standing there the robot falls; commanded all the same (a robot in motion may "
        "pass there)"
    )
