"""WalkingPatternGenerator.stop (walk_node's dead-man timeout and zero cmd_vel): the walk has ended
within one step period (swing + transfer) of the stop, wherever in the step it comes.

"Ended" (docs/node.md): from then on both soles are on the ground and no step is planned any
more — every tick is double support with both soles at height 0, and the plan ends standing.
Stops are swept across a whole step period, walking forward, sideways and turning at the largest
speeds of ``config/walk.yaml``, on the packaged humanoid and a longer-legged, heavier variant.
Along each stop the ZMP reference, the cart-table ZMP and the CoM stay inside the support polygon,
and the soles move without jumps, hardly faster than walking forward. A faster gait whose stop
the preview controller could not follow falls back to a zero command, planned ``command_delay``
later as before.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial import ConvexHull
from walking_helpers import robot

from ik_solvers.walk.config import load_walk_config
from ik_solvers.whole_body import WalkConfig, WalkingPatternGenerator

KINDS = {"forward": (1.0, 0.0, 0.0), "sideways": (0.0, 1.0, 0.0), "turn": (0.0, 0.0, 1.0)}  # of the largest
WALK = 6.0  # [s] before the first stop: the walk is under way (its first swing lifts at 2.6 s)
PHASES = 9  # stops spread over one step period
AFTER = 7.0  # [s] simulated after each stop: the last step, two transfers, the CoM settling


def _margin(generator, tick, point: np.ndarray) -> float:
    """Signed distance [m] of ``point`` inside the support polygon of ``tick`` (negative: outside)."""
    sides = ("left", "right") if tick.support == "double" else (tick.support,)
    corners = [
        generator.geometry.soles[0 if side == "left" else 1].corners_in_world(getattr(tick, f"{side}_sole"))
        for side in sides
    ]
    hull = ConvexHull(np.concatenate(corners))
    return float(-np.max(hull.equations[:, :2] @ point + hull.equations[:, 2]))


def _stop_after(model, kind: str, walk: float):
    """Walk ``kind`` at the largest speed for ``walk`` [s], stop; (generator, stop time, stop()'s
    answer, ticks before, ticks after)."""
    generator = WalkingPatternGenerator(model, load_walk_config())
    generator.set_command(*(np.array(KINDS[kind]) * generator.max_command))
    before = [generator.step() for _ in range(round(walk / generator.config.dt))]
    stopped_at, answer = generator.time, generator.stop()
    after = [generator.step() for _ in range(round(AFTER / generator.config.dt))]
    return generator, stopped_at, answer, before, after


@pytest.fixture(scope="module", params=["packaged", "variant"])
def stops(request):
    """For each kind, stops at PHASES instants spread over one step period."""
    model = robot(request.param)
    period = WalkingPatternGenerator(model, load_walk_config()).config.step_period
    walks = WALK + np.arange(PHASES) * period / PHASES
    return {kind: [_stop_after(model, kind, walk) for walk in walks] for kind in KINDS}


@pytest.mark.parametrize("kind", list(KINDS))
def test_the_walk_has_ended_within_one_step_period_of_the_stop(stops, kind):
    for generator, stopped_at, answer, _, after in stops[kind]:
        assert answer, f"stop at {stopped_at:.2f} s fell back to command_delay"
        bound = stopped_at + generator.config.step_period
        ended = [t for t in after if t.time >= bound - 1e-9]
        for tick in ended:
            assert tick.support == "double", (
                f"stop at {stopped_at:.2f} s: {tick.support} at {tick.time:.2f} s"
            )
            assert tick.left_sole[2, 3] == 0.0 and tick.right_sole[2, 3] == 0.0
        assert all(phase.step is None for phase in generator.planner.phases if phase.end > bound)
        assert not after[-1].walking  # and it came to rest, the soles side by side
        relative = np.linalg.inv(after[-1].right_sole) @ after[-1].left_sole
        assert np.allclose(relative[:3, :3], np.eye(3), atol=1e-9) and abs(relative[0, 3]) < 1e-9


@pytest.mark.parametrize("kind", list(KINDS))
def test_zmp_and_com_stay_inside_the_support_through_the_stop(stops, kind):
    for generator, stopped_at, _, _, after in stops[kind]:
        for tick in after:
            where = f"stop at {stopped_at:.2f} s, t = {tick.time:.2f} s"
            assert _margin(generator, tick, tick.zmp_reference) >= -1e-9, where
            assert _margin(generator, tick, tick.zmp) >= 0.01, where  # the cart-table model's ZMP
            assert _margin(generator, tick, tick.com) >= 0.005, where


def _sole_speeds(generator, ticks) -> np.ndarray:
    """(len(ticks) - 1,) the faster sole's horizontal speed [m/s] between ticks."""
    soles = np.array([[t.left_sole[:2, 3], t.right_sole[:2, 3]] for t in ticks])
    return np.linalg.norm(np.diff(soles, axis=0), axis=2).max(axis=1) / generator.config.dt


@pytest.mark.parametrize("kind", list(KINDS))
def test_soles_move_without_jumps_through_the_stop(stops, kind):
    """A swing redirected in the air goes on from where it was, and a shortened closing swing is
    not much faster than the gait's own: no sole faster than 1.25 times the fastest of the forward
    walk at the largest speed."""
    generator, _, _, forward, _ = stops["forward"][0]
    fastest = _sole_speeds(generator, forward).max()
    for generator, stopped_at, _, before, after in stops[kind]:
        speeds = _sole_speeds(generator, before[-1:] + after)
        assert speeds.max() <= 1.25 * fastest, f"stop at {stopped_at:.2f} s: {speeds.max():.2f} m/s"


def test_a_stop_the_preview_controller_cannot_follow_comes_after_command_delay():
    """The library's default timing walks 3.5 times as fast: a stop late in a forward swing would
    throw the cart-table ZMP out of the soles, so it becomes a zero command like any other."""
    model = robot("packaged")
    generator = WalkingPatternGenerator(model, WalkConfig())
    zeroed = WalkingPatternGenerator(model, WalkConfig())
    for walker in (generator, zeroed):
        walker.set_command(walker.max_command[0], 0.0, 0.0)
        for _ in range(640):  # 6.4 s: late in a swing
            walker.step()
    assert not generator.stop()
    zeroed.set_command(0.0, 0.0, 0.0)
    times = generator.time + np.arange(0.0, 5.0, generator.config.dt)
    generator.planner.extend(times[-1])
    zeroed.planner.extend(times[-1])
    assert np.array_equal(generator.planner.zmp_reference(times), zeroed.planner.zmp_reference(times))
