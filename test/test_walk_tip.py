"""The stabiliser's tip lean (docs/walking.md "Balance", step 7), in MuJoCo: a standing robot
pushed back so hard that its soles roll onto their heels falls without it and stands with it.

Real MuJoCo, the package's offline walking loop and the packaged robot; nothing mocked.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ik_solvers.resources import package_share_path
from ik_solvers.walk.config import load_walk_config
from ik_solvers.walk.pushes import survives

URDF = package_share_path("urdf", "humanoid.urdf").read_text()
# the ankles alone: no capture step (on in walk.yaml), tip lean off
CLOSED = replace(load_walk_config(), stabilise=True, capture_swing=0.0)
LEANING = replace(CLOSED, tip_lean_gain=1.0)
BACK = np.array([-0.35, 0.0])  # [m/s]: the soles roll onto their heels (0.30 they do not)


def test_a_standing_push_back_that_tips_the_soles_is_held_only_with_the_tip_lean():
    assert not survives(URDF, replace(CLOSED, tip_lean_gain=0.0), BACK, walking=False)
    assert survives(URDF, LEANING, BACK, walking=False)
