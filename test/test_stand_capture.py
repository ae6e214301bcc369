"""A standing push caught by a capture step in real MuJoCo (the offline loop, no ROS): the step
lands where the caught DCM lies inside the staggered soles' hull, and the landed stance takes the
DCM where it stopped (:mod:`ik_solvers.whole_body.capture_step`, docs/walking.md "Standing
pushes, 2026-11-29: the hull landing and the landed ZMP").
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

pytest.importorskip("mujoco")

from ik_solvers.resources import package_share_path
from ik_solvers.walk.config import load_walk_config
from ik_solvers.walk.pushes import survives

URDF = package_share_path("urdf", "humanoid.urdf").read_text()
CAPTURE = replace(load_walk_config(), stabilise=True, capture_swing=0.8, capture_threshold=0.05)


def test_a_standing_push_forward_of_045_is_caught_by_one_step():
    """0.45 m/s forward: with the landing a full stance width out and the plan's ZMP reference
    jumping to the soles' midpoint at touch-down, the caught robot rolled over the staggered
    stance's edge (held up to 0.40 m/s)."""
    assert survives(URDF, CAPTURE, np.array([0.45, 0.0]), walking=False)
