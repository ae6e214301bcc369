"""The fast gait (``config/walk_fast.yaml``: 0.6 s steps, the stabiliser on) in real MuJoCo.

The offline walking loop (no ROS) on the packaged humanoid and a longer-legged, heavier factory
variant: forward at 0.9 of the largest speed (0.186 m/s on the packaged robot), then sideways,
then a stop. It must not fall or tilt, its soles must not slip, and it must get about as far as
its footsteps say; open loop the same gait falls (the stabiliser is what makes it walk). The CoM
leaves the support polygon in single support, as a dynamic gait's does: the slow gait's static
margin is not asked of it.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

pytest.importorskip("mujoco")

from walking_robots import variant_urdf

from ik_solvers.resources import package_share_path
from ik_solvers.walk import walk_metrics
from ik_solvers.walk.config import load_walk_config
from ik_solvers.walk.offline import OfflineWalker

FAST = load_walk_config(package_share_path("config", "walk_fast.yaml"))
ROBOTS = {
    "packaged": lambda: package_share_path("urdf", "humanoid.urdf").read_text(),
    "long_legs_heavier": lambda: variant_urdf("long_legs_heavier"),
}


def walk(urdf: str, config) -> OfflineWalker:
    walker = OfflineWalker(urdf, config)
    forward, lateral, _ = 0.9 * walker.generator.max_command
    walker.settle(0.3)
    walker.run([(4.0, (forward, 0.0, 0.0)), (3.0, (0.0, lateral, 0.0)), (2.5, (0.0, 0.0, 0.0))])
    return walker


@pytest.fixture(scope="module", params=list(ROBOTS))
def walked(request) -> tuple[OfflineWalker, dict]:
    walker = walk(ROBOTS[request.param](), FAST)
    return walker, walker.log.measured()


def test_fast_gait_is_three_times_the_slow_one():
    packaged = ROBOTS["packaged"]()
    slow = OfflineWalker(packaged, load_walk_config()).generator.max_command[0]
    fast = OfflineWalker(packaged, FAST).generator.max_command[0]
    assert FAST.step_period <= 0.8
    assert fast >= 0.2 and fast >= 2.9 * slow  # [m/s]


def test_fast_gait_walks_without_falling_slipping_or_tilting(walked):
    walker, measured = walked
    assert not walk_metrics.fell(measured["base"], measured["com"])
    assert walk_metrics.tilt_degrees(measured["base"]).max() < 10.0
    assert walk_metrics.sole_slip(measured["times"], measured["soles"], measured["support"]) < 0.005
    planned = np.array(walker.log.planned_soles)
    planned_distance = np.linalg.norm(planned[-1, :, :2, 3].mean(0) - planned[0, :, :2, 3].mean(0))
    walked_distance = np.linalg.norm(
        measured["soles"][-1, :, :2, 3].mean(0) - measured["soles"][0, :, :2, 3].mean(0)
    )
    assert walked_distance == pytest.approx(planned_distance, rel=0.1)


def test_fast_gait_falls_open_loop():
    walker = walk(ROBOTS["packaged"](), replace(FAST, stabilise=False))
    measured = walker.log.measured()
    assert walk_metrics.fell(measured["base"], measured["com"])
