"""ik_node goes where it is told (issue 21.1): far targets are new goals, not jumps.

One ik_node process with the packaged config and the default branch guard (``max_joint_jump``
0.5 rad, ``allow_branch_switch`` false), its ``robot_description`` a humanoid of other dimensions
(test/humanoid_factory.py: other limb lengths, hip offset and arm axis orders), one leg and one
arm on the geometric solver, the others on the Jacobian one; real DDS on the session's own domain
id. Rounds of far targets (FK of random in-limit configurations, each round one target per chain)
are sent on ``<chain>/target_pose``, each round held until every chain has reached its target.
Jumps along a moving target are still held: test_ik_node_jumps.py.
"""

from __future__ import annotations

import numpy as np
import pytest
import yaml

pytest.importorskip("rclpy")

from humanoid_factory import ArmDims, HumanoidSpec, LegDims, humanoid_urdf
from ik_node_harness import IKNodeClient, node_arguments, positions_of

from ik_solvers import RobotModel
from ik_solvers.spatial import pose_error

SPEC = HumanoidSpec(
    leg=LegDims(hip_y=0.07, w=0.03, thigh=0.27, shank=0.24, sole_z=-0.05),
    arm=ArmDims(upper_arm=0.21, forearm=0.18, hand=0.08, shoulder_axes="xyz", wrist_axes="zxz"),
    name="other_dimensions",
)
CHAINS = {  # name: (tip link, solver)
    "left_leg": ("l_sole", "geometric"),
    "right_leg": ("r_sole", "jacobian"),
    "left_arm": ("l_wrist", "geometric"),
    "right_arm": ("r_wrist", "jacobian"),
}
ROUNDS = 20
MARGIN = 0.1  # [rad] targets' configurations this far inside the limits
TOLERANCE = 2e-4  # [m] and [rad]: the solvers' own tolerance (1e-4) with room
ROUND_TIMEOUT = 15.0  # [s] failure bound of a round (at the velocity limit a round takes about 2 s)


@pytest.fixture(scope="module")
def model() -> RobotModel:
    return RobotModel.from_urdf_string(humanoid_urdf(SPEC))


@pytest.fixture(scope="module")
def ik(ros_module, tmp_path_factory):
    parameters = {
        "robot_description": humanoid_urdf(SPEC),
        "chains": {name: {"solver": solver} for name, (_, solver) in CHAINS.items()},
        # A budget the loaded test machine cannot undercut: the guard is tested, not the speed.
        "jacobian": {"timeout": 0.05},
        "max_velocity_fraction": 1.0,
    }
    params = tmp_path_factory.mktemp("far_targets") / "params.yaml"
    params.write_text(yaml.safe_dump({"ik_node": {"ros__parameters": parameters}}))
    arguments = [*node_arguments(), "--params-file", str(params)]  # the later file overrides
    client = IKNodeClient(ros_module, ros_module.processes.start_console_script("ik_node", *arguments))
    client.wait_ready()
    yield client
    assert client.process.poll() is None, f"ik_node died:\n{client.output()}"


def chain_values(ik: IKNodeClient, chain: str) -> dict[str, str]:
    """The values of the chain's latest diagnostic status ({} before the first)."""
    for array in reversed(ik.diagnostics):
        for status in array.status:
            if status.name == f"ik_node: {chain}":
                return {v.key: v.value for v in status.values}
    return {}


def test_far_targets_on_a_robot_of_other_dimensions_are_reached(ik, model):
    chains = {name: model.chain("base_link", tip) for name, (tip, _) in CHAINS.items()}
    rng = np.random.default_rng(21)
    missed_rounds = {name: [] for name in chains}
    for round_ in range(ROUNDS):
        targets = {
            name: chain.fk(rng.uniform(chain.lower + MARGIN, chain.upper - MARGIN))
            for name, chain in chains.items()
        }

        def missed(message, targets=targets) -> list[str]:
            """The chains whose commanded joints do not put the tip on its target."""
            return [
                name
                for name, chain in chains.items()
                if (q := positions_of(message, chain.joint_names)) is None
                or max(pose_error(targets[name], chain.fk(q))) > TOLERANCE
            ]

        for name, target in targets.items():
            ik.send_target(name, target)
        if ik.wait_for_command(lambda message: not missed(message), ROUND_TIMEOUT) is None:
            for name in missed(ik.commands[-1]) if ik.commands else chains:
                missed_rounds[name].append(round_)
    assert missed_rounds == {name: [] for name in chains}, ik.output()[-3000:]
    ik.spin(1.5)  # one diagnostics period: the counts after the last round
    for name in chains:
        values = chain_values(ik, name)
        assert values["jumps_held"] == "0", values
        assert int(values["new_goals"]) > 0 and values["last_far_solution"].startswith("new goal"), values
