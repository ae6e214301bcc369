"""Every chain solves: the ``auto`` solver kind picks the closed form where the chain's structure fits
one and the Jacobian solver elsewhere, position only below 6 joints (said in the answer); a chain
configured ``geometric`` that fits no closed form falls back with one line instead of stopping."""

from __future__ import annotations

import numpy as np
import pytest
from maker_humanoids import MakerSpec, maker_urdf

from ik_solvers import RobotModel, UnknownSolverError, make_solver
from ik_solvers.control.commander import Commander
from ik_solvers.limbs import find_body


def body_of(arm_joints: int):
    return find_body(RobotModel.from_urdf_string(maker_urdf(MakerSpec(arm_joints=arm_joints))))


def chains_of(arm_joints: int):
    body = body_of(arm_joints)
    return {name: body.model.chain(*links) for name, links in body.chains.items()}


@pytest.mark.parametrize(
    "arm_joints,arm_solver", [(7, "Arm7Solver"), (5, "JacobianSolver"), (3, "JacobianSolver")]
)
def test_auto_takes_the_closed_form_where_it_fits_and_the_jacobian_solver_elsewhere(arm_joints, arm_solver):
    chains = chains_of(arm_joints)
    assert type(make_solver("auto", chains["left_leg"])).__name__ == "LegSolver"
    assert type(make_solver("auto", chains["left_arm"])).__name__ == arm_solver


@pytest.mark.parametrize("arm_joints", [3, 5])
def test_arms_of_fewer_than_6_joints_reach_positions_and_say_the_orientation_is_not_solved(arm_joints):
    arm = chains_of(arm_joints)["right_arm"]
    solver = make_solver("auto", arm, timeout=None)
    targets = arm.fk(arm.random_configurations(20, np.random.default_rng(3)))
    for target in targets:
        result = solver.solve(target)
        assert result.success, result.message
        np.testing.assert_allclose(arm.fk(result.q)[:3, 3], target[:3, 3], atol=1e-5)
        assert f"position only, the orientation is not solved: {arm_joints} joints" in result.message


def test_geometric_on_a_chain_it_does_not_fit_falls_back_to_auto_with_one_line():
    body = body_of(3)
    configured = {name: (*links, "geometric") for name, links in body.chains.items()}
    commander = Commander(body.model, configured, {})
    assert {name: limb.solver_kind for name, limb in commander.limbs.items()} == {
        "left_leg": "geometric",
        "right_leg": "geometric",
        "left_arm": "auto",
        "right_arm": "auto",
    }
    assert len(commander.fallbacks) == 2 and all("\n" not in line for line in commander.fallbacks)
    assert commander.fallbacks[0].startswith("left_arm: no closed form fits its 3 joints")
    assert "position only" in commander.fallbacks[0]


def test_an_unknown_solver_kind_still_stops_start_up():
    body = body_of(3)
    with pytest.raises(UnknownSolverError, match="unknown solver 'analytic'"):
        Commander(body.model, {"left_arm": (*body.chains["left_arm"], "analytic")}, {})
