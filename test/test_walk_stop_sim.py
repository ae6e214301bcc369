"""Stops mid-walk in real MuJoCo: the floating-base packaged humanoid, walked by the library loop
(:class:`ik_solvers.walk.offline.OfflineWalker`, a ``None`` command stopping at once as walk_node's
dead-man timeout does), with ``config/walk.yaml``.

One walk, four stops at the moments that differ most: early in a forward swing (the swing is
redirected in the air to land beside the support sole), late in a forward swing (it lands as
planned and the other sole closes with a shortened swing), early in a sidestep's opening swing (the
sole goes back), and in the middle of a turn (the sole turns back). The robot must not fall or tilt, its soles must not
slip, and the simulated CoM must stay 10 mm inside the support polygon, as for the walks of
``test_walk_offline.py``.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("mujoco")

from ik_solvers.resources import package_share_path
from ik_solvers.walk import walk_metrics
from ik_solvers.walk.config import load_walk_config
from ik_solvers.walk.offline import OfflineWalker

STOPS = {  # name: (command, fractions of the largest; which swing from standing; when, its time fraction)
    "forward, early in the swing": ((1.0, 0.0, 0.0), 2, 0.25),
    "forward, late in the swing": ((1.0, 0.0, 0.0), 2, 0.75),
    "sideways, early in the opening swing": ((0.0, 1.0, 0.0), 3, 0.25),  # the 1st, 3rd, ... swings open
    "turning, in the opening swing": ((0.0, 0.0, 1.0), 3, 0.4),
}
REST = 5.0  # [s] standing after each stop


@pytest.fixture(scope="module")
def stopped():
    """The walk with its four stops; (walker, measured series, whether each stop came at once)."""
    walker = OfflineWalker(package_share_path("urdf", "humanoid.urdf").read_text(), load_walk_config())
    config, largest = walker.generator.config, walker.generator.max_command
    first_lift = config.command_delay + config.start_transfer  # after a command, from standing
    walker.settle(0.5)
    at_once = {}
    for name, (fractions, swing, phase) in STOPS.items():
        walking = first_lift + (swing - 1) * config.step_period + phase * config.single_support
        walker.run([(walking, tuple(np.array(fractions) * largest)), (0.0, None)])
        at_once[name] = walker.generator.planner.stopping
        walker.run([(REST, None)])
    return walker, walker.log.measured(), at_once


def test_every_stop_comes_at_once(stopped):
    _, _, at_once = stopped
    assert all(at_once.values()), at_once


def test_robot_stops_mid_walk_without_falling_or_slipping(stopped):
    _, measured, _ = stopped
    assert not walk_metrics.fell(measured["base"], measured["com"])
    assert walk_metrics.tilt_degrees(measured["base"]).max() < 10.0
    assert walk_metrics.step_count(measured["support"]) >= 8
    assert walk_metrics.sole_slip(measured["times"], measured["soles"], measured["support"]) < 0.005


def test_com_stays_10_mm_inside_the_support_polygon_through_the_stops(stopped):
    walker, measured, _ = stopped
    polygons = walk_metrics.support_polygons(walker.log, measured["soles"], measured["support"])
    margins = walk_metrics.com_margins(measured["com"], polygons)
    assert np.isfinite(margins).sum() > 0.9 * len(margins)
    assert np.nanmin(margins) >= 0.010
