"""Humanoid descriptions as other makers publish them (test/descriptions/*/README.md), loaded
unedited: the quirks of their files that the package must take."""

from __future__ import annotations

import numpy as np
import pytest
from description_data import UNITREE_H1_2

from ik_solvers import RobotModel, make_solver
from ik_solvers.limbs import find_body


def test_unnamed_visual_colours_of_unitree_h1_2_do_not_stop_the_parse():
    # every visual of the H1-2 carries <material><color .../></material> without a name, which
    # urdf_parser_py refuses ("Required attribute not set in XML: name"); colours are cosmetic
    model = RobotModel.from_urdf_file(UNITREE_H1_2)
    body = find_body(model)
    assert body.whole_body_problem == ""  # two 6-joint legs with soles from the foot meshes
    assert body.chains["left_leg"] == ("pelvis", "left_ankle_roll_link_sole")
    assert len(model.chain(*body.chains["left_arm"]).joint_names) == 7


@pytest.mark.parametrize("limb", ["left_leg", "right_arm"])
def test_unitree_h1_2_limbs_are_solved_by_auto(limb):
    body = find_body(RobotModel.from_urdf_file(UNITREE_H1_2))
    chain = body.model.chain(*body.chains[limb])
    solver = make_solver("auto", chain)  # hip yaw, pitch, roll: the Jacobian solver
    for q in chain.random_configurations(20, np.random.default_rng(3)):
        result = solver.solve(chain.fk(q))
        assert result.success, result.message
        assert result.position_error < 1e-6 and result.orientation_error < 1e-5
