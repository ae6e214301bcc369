"""The ROBOTIS OP3 as its maker publishes it (test/descriptions/op3_description, Apache-2.0): its
feet found from the tree and their STL meshes, and a walk in MuJoCo with the package's own walker.

The OP3's meshes of the torso, thighs and shins are not in this repository (absent from the
snapshot we could fetch, see the folder's README); the walking test loads the robot with those
collision elements left out (only what touches the floor matters for the walk: the feet, whose
meshes ``ll6.stl`` and ``rl6.stl`` are kept unchanged). Everything else is the published xacro.
"""

from __future__ import annotations

import numpy as np
import pytest
from description_data import OP3_LEFT_LEG, op3_with_the_meshes_we_have
from description_data import OP3_XACRO as OP3

from ik_solvers import RobotModel
from ik_solvers.limbs import find_body
from ik_solvers.walk import walk_metrics
from ik_solvers.walk.config import load_walk_config
from ik_solvers.walk.offline import OfflineWalker


def test_op3_limbs_and_soles_come_from_its_tree_and_foot_meshes():
    body = find_body(RobotModel.from_urdf_file(OP3))
    assert body.chains["left_leg"] == ("body_link", "l_ank_roll_link_sole")  # a sole frame made for it
    leg = body.model.chain(*body.chains["left_leg"])
    assert leg.joint_names == OP3_LEFT_LEG
    # its 3-joint arms end at the elbow link with nothing fixed to it: the tip is a frame made at
    # the forearm's centre of mass, which the elbow moves (the elbow link's origin it cannot)
    assert body.chains["right_arm"] == ("body_link", "r_el_link_tip")
    arm = body.model.chain(*body.chains["right_arm"])
    assert np.linalg.matrix_rank(arm.jacobian(np.array([0.3, 0.5, -0.5]))[:3], tol=1e-3) == 3
    assert body.sole_links is not None, body.whole_body_problem
    for sole, side in zip(body.sole_links, (1.0, -1.0)):
        pose = body.model.chain(body.model.root, sole).fk(np.zeros(6))
        assert pose[2, 2] == pytest.approx(1.0, abs=1e-6)  # z up at the zero configuration
        assert side * pose[1, 3] > 0.02  # each sole on its own side
        assert -0.30 < pose[2, 3] < -0.25  # below the ankle, on the foot mesh's lowest points


def test_op3_walks_forward_and_sideways_without_falling():
    walker = OfflineWalker(op3_with_the_meshes_we_have(), load_walk_config())
    forward, lateral, _ = 0.9 * walker.generator.max_command
    walker.settle(0.5)
    walker.run(
        [
            (0.5, (0.0, 0.0, 0.0)),
            (5.0, (forward, 0.0, 0.0)),
            (5.0, (0.0, lateral, 0.0)),
            (4.0, (0.0, 0.0, 0.0)),
        ]
    )
    measured = walker.log.measured()
    assert not walk_metrics.fell(measured["base"], measured["com"])
    assert walk_metrics.tilt_degrees(measured["base"]).max() < 10.0
    assert walk_metrics.step_count(measured["support"]) >= 4
    assert measured["base"][-1][0] - measured["base"][0][0] > 0.1  # [m] forward
