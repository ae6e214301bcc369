"""A short walk on the floating base in real MuJoCo: pattern generator → stance solve → simulator.

The library and the simulator in one loop (:class:`ik_solvers.walk.offline.OfflineWalker`), with
the packaged ``config/walk.yaml``: a few steps forward, a few steps sideways (the widest stance,
where the CoM comes nearest the support sole's inner edge) and a stop, on the packaged humanoid,
on factory variants of other lengths, hip widths and masses (``test/walking_robots.py``), and on
a maker's humanoid with none of the packaged names (``test/maker_humanoids.py``: no ``base_link``,
no sole frames, its root a frame on the floor below the feet, 5-joint arms, a head; feet of four
contact spheres or an upright cylinder, whose footprints are smaller than the packaged robot's). The
robot must not fall or tilt, its soles must not slip, the simulated CoM must stay 10 mm inside the
support polygon, and it must get roughly where it was sent.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("mujoco")

from maker_humanoids import MakerSpec, maker_urdf
from walking_robots import WALKING_VARIANTS, variant_urdf

from ik_solvers.resources import package_share_path
from ik_solvers.walk import walk_metrics
from ik_solvers.walk.config import load_walk_config
from ik_solvers.walk.offline import OfflineWalker

SPEED = 0.9  # forward and sideways speed, fraction of the robot's largest (as in the demo)
FORWARD, SIDEWAYS, STOP = 5.0, 5.0, 4.0  # [s] of each command
ROBOTS = {"packaged": lambda: package_share_path("urdf", "humanoid.urdf").read_text()}
ROBOTS.update({name: (lambda n=name: variant_urdf(n)) for name in WALKING_VARIANTS})
ROBOTS["maker_root_on_floor"] = lambda: maker_urdf(MakerSpec(arm_joints=5, root_on_floor=True))
# small footprints: 14 x 6 cm between four contact spheres, an 8 cm disc (a longer swing: walk.yaml)
ROBOTS["maker_four_spheres"] = lambda: maker_urdf(MakerSpec(foot="spheres", arm_joints=3))
ROBOTS["maker_cylinder"] = lambda: maker_urdf(MakerSpec(foot="cylinder"))


@pytest.fixture(scope="module", params=list(ROBOTS))
def walked(request) -> tuple[OfflineWalker, dict]:
    walker = OfflineWalker(ROBOTS[request.param](), load_walk_config())
    forward, lateral, _ = SPEED * walker.generator.max_command
    walker.settle(0.5)
    walker.run(
        [
            (0.5, (0.0, 0.0, 0.0)),
            (FORWARD, (forward, 0.0, 0.0)),
            (SIDEWAYS, (0.0, lateral, 0.0)),
            (STOP, (0.0, 0.0, 0.0)),
        ]
    )
    return walker, walker.log.measured()


def test_robot_walks_a_few_steps_without_falling(walked):
    _, measured = walked
    assert not walk_metrics.fell(measured["base"], measured["com"])
    assert walk_metrics.tilt_degrees(measured["base"]).max() < 10.0
    assert walk_metrics.step_count(measured["support"]) >= 4


def test_supporting_soles_do_not_slip(walked):
    _, measured = walked
    assert walk_metrics.sole_slip(measured["times"], measured["soles"], measured["support"]) < 0.005


def test_com_stays_10_mm_inside_the_support_polygon(walked):
    walker, measured = walked
    polygons = walk_metrics.support_polygons(walker.log, measured["soles"], measured["support"])
    margins = walk_metrics.com_margins(measured["com"], polygons)
    assert np.isfinite(margins).sum() > 0.9 * len(margins)  # supported nearly all the time
    assert np.nanmin(margins) >= 0.010


def test_robot_gets_about_as_far_as_its_planned_footsteps(walked):
    walker, measured = walked
    planned = np.array(walker.log.planned_soles)
    planned_distance = np.linalg.norm(planned[-1, :, :2, 3].mean(0) - planned[0, :, :2, 3].mean(0))
    walked_distance = np.linalg.norm(
        measured["soles"][-1, :, :2, 3].mean(0) - measured["soles"][0, :, :2, 3].mean(0)
    )
    assert planned_distance > 0.2
    assert walked_distance == pytest.approx(planned_distance, rel=0.1)
