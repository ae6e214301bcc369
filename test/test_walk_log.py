"""WalkLog: which planned support a measured sample meets (ik_solvers/walk/walk_log.py), on the
packaged humanoid. No simulator: plan instants are recorded as a planner would send them."""

from __future__ import annotations

import numpy as np

from ik_solvers import RobotModel
from ik_solvers.resources import package_share_path
from ik_solvers.walk.walk_log import SUPPORT_CODES, WalkLog


def test_a_sample_meets_the_support_planned_at_its_time_when_plans_came_out_of_order():
    """ik_demo records the plan by its stamps: at the hand-over from its own posture targets to
    walk_node's, a posture target stamped later can come after walk_node's first one."""
    log = WalkLog(
        RobotModel.from_urdf_file(package_share_path("urdf", "humanoid.urdf")), ("l_sole", "r_sole"), ()
    )
    sole = np.eye(4)
    for t, support in ((0.0, "double"), (0.03, "left"), (0.02, "double"), (0.04, "right")):
        log.add_plan(t, support, sole, sole, (0.0, 0.0), (0.0, 0.0))
    codes = log.support_at(np.array([-0.01, 0.0, 0.025, 0.03, 0.035, 0.05]))
    expected = ["-", "double", "double", "left", "left", "right"]
    assert [SUPPORT_CODES.get(name, -1) for name in expected] == codes.tolist()
