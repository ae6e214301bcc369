"""A short walk on the floating base in real MuJoCo: pattern generator → stance solve → simulator.

The library and the simulator in one loop (:class:`ik_solvers.walk.offline.OfflineWalker`), with
the packaged ``config/walk.yaml``: a few steps forward and a stop, on the packaged humanoid and on
a factory variant of other lengths and masses. The robot must not fall, its soles must not slip,
and it must get roughly where it was sent.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("mujoco")

from humanoid_factory import HumanoidSpec, LegDims, humanoid_urdf

from ik_solvers.resources import package_share_path
from ik_solvers.walk import walk_metrics
from ik_solvers.walk.config import load_walk_config
from ik_solvers.walk.offline import OfflineWalker

SPEED = 0.08  # [m/s]
WALK = 5.0  # [s] of forward command
ROBOTS = {
    "packaged": lambda: package_share_path("urdf", "humanoid.urdf").read_text(),
    "long_legs_heavier": lambda: humanoid_urdf(
        HumanoidSpec(leg=LegDims(thigh=0.26, shank=0.24, w=0.03), mass_scale=1.6, leg_servo=(20.0, 4.8))
    ),
}


@pytest.fixture(scope="module", params=list(ROBOTS))
def walked(request) -> tuple[OfflineWalker, dict]:
    walker = OfflineWalker(ROBOTS[request.param](), load_walk_config())
    walker.settle(0.5)
    walker.run([(0.5, (0.0, 0.0, 0.0)), (WALK, (SPEED, 0.0, 0.0)), (4.0, (0.0, 0.0, 0.0))])
    return walker, walker.log.measured()


def test_robot_walks_a_few_steps_without_falling(walked):
    _, measured = walked
    assert not walk_metrics.fell(measured["base"], measured["base"][0, 2])
    assert walk_metrics.tilt_degrees(measured["base"]).max() < 10.0
    assert walk_metrics.step_count(measured["support"]) >= 3


def test_supporting_soles_do_not_slip(walked):
    _, measured = walked
    assert walk_metrics.sole_slip(measured["times"], measured["soles"], measured["support"]) < 0.005


def test_robot_gets_about_as_far_as_its_planned_footsteps(walked):
    walker, measured = walked
    planned = np.array(walker.log.planned_soles)
    planned_distance = np.linalg.norm(planned[-1, :, :2, 3].mean(0) - planned[0, :, :2, 3].mean(0))
    walked_distance = np.linalg.norm(
        measured["soles"][-1, :, :2, 3].mean(0) - measured["soles"][0, :, :2, 3].mean(0)
    )
    assert planned_distance > 0.2
    assert walked_distance == pytest.approx(planned_distance, rel=0.1)
