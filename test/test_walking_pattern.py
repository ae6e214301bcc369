"""Walking pattern generator: support polygon, start and stop, swing feet, and the whole loop
through the stance solve, on the packaged humanoid and a factory variant."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial import Delaunay
from walking_helpers import drive, midpoint, robot

from ik_solvers.whole_body import StanceSolver, WalkConfig, WalkingPatternGenerator
from ik_solvers.whole_body.swing import wrap_angle

SEGMENTS = {  # (forward, lateral, yaw rate), seconds
    "forward": [((0.1, 0.0, 0.0), 10.0)],
    "turn": [((0.0, 0.0, 0.25), 0.5 * np.pi / 0.25)],
    "sidestep": [((0.0, 0.05, 0.0), 6.0)],
}
ZMP_TRACKING_BOUND = 0.01  # [m] cart-table ZMP vs reference (measured: about 5 mm)


@pytest.fixture(scope="module", params=["packaged", "variant"])
def walks(request):
    """The demo's walk on this robot, through the stance solve: forward, turn, sidestep, each from
    standing to standing, one after the other; (generator, walk) per part."""
    model = robot(request.param)
    stance = StanceSolver(model)
    generator = WalkingPatternGenerator(model, stance=stance)
    return {name: (generator, drive(generator, segments, stance)) for name, segments in SEGMENTS.items()}


def _sole_corners(generator, tick, side: str) -> np.ndarray:
    geometry = generator.geometry.soles[0 if side == "left" else 1]
    return geometry.corners_in_world(tick.left_sole if side == "left" else tick.right_sole)


@pytest.mark.parametrize("kind", list(SEGMENTS))
def test_zmp_reference_stays_inside_the_support_polygon(walks, kind):
    generator, walk = walks[kind]
    for tick in walk.ticks:
        sides = ("left", "right") if tick.support == "double" else (tick.support,)
        corners = np.concatenate([_sole_corners(generator, tick, side) for side in sides])
        shrunk = corners + 1e-6 * (corners.mean(axis=0) - corners)  # ties on an edge count as inside
        assert Delaunay(shrunk).find_simplex(tick.zmp_reference) >= 0 or np.allclose(
            tick.zmp_reference, corners.mean(axis=0), atol=1e-9
        ), f"t = {tick.time:.2f} s: ZMP reference {tick.zmp_reference} outside the {tick.support} support"


@pytest.mark.parametrize("kind", list(SEGMENTS))
def test_preview_control_tracks_the_zmp_reference(walks, kind):
    _, walk = walks[kind]
    errors = [np.linalg.norm(tick.zmp - tick.zmp_reference) for tick in walk.ticks]
    assert max(errors) <= ZMP_TRACKING_BOUND


@pytest.mark.parametrize("kind", list(SEGMENTS))
def test_every_stance_solve_is_exact_and_within_limits(walks, kind):
    _, walk = walks[kind]
    assert len(walk.stances) == len(walk.ticks) > 500
    for result in walk.stances:
        assert result.success, result.message
        assert result.com_error <= 1e-4


def test_legs_reach_their_soles_in_the_loop(walks):
    _, walk = walks["forward"]
    chains = walk.stance_solver.legs.chains
    for tick, result in zip(walk.ticks[::25], walk.stances[::25]):
        for chain, q, sole in zip(chains, (result.q[:6], result.q[6:]), (tick.left_sole, tick.right_sole)):
            assert np.allclose(result.torso_pose @ chain.fk(q), sole, atol=1e-9)
            assert chain.within_limits(q)


@pytest.mark.parametrize("kind", list(SEGMENTS))
def test_walks_start_and_stop_in_double_support(walks, kind):
    generator, walk = walks[kind]
    first_single = next(i for i, t in enumerate(walk.ticks) if t.support != "double")
    assert first_single * generator.config.dt >= generator.config.start_transfer
    last = walk.ticks[-1]
    assert not last.walking and last.support == "double"
    relative = np.linalg.inv(last.right_sole) @ last.left_sole  # the left sole seen from the right one
    assert np.allclose(relative[:3, :3], np.eye(3), atol=1e-9)  # parallel
    assert relative[0, 3] == pytest.approx(0.0, abs=1e-9)  # side by side
    assert relative[1, 3] == pytest.approx(generator.geometry.foot_separation, abs=1e-9)
    assert np.linalg.norm(last.com - last.zmp_reference) <= 1e-3 and np.linalg.norm(last.com_velocity) <= 1e-3


def _moved(walk) -> np.ndarray:
    """(forward, leftward) displacement [m] between the soles' midpoints, in the starting heading."""
    first, last = walk.ticks[0], walk.ticks[-1]
    c, s = np.cos(first.torso_yaw), np.sin(first.torso_yaw)
    dx, dy = midpoint(last) - midpoint(first)
    return np.array([c * dx + s * dy, -s * dx + c * dy])


def test_walks_cover_what_was_commanded(walks):
    assert _moved(walks["forward"][1]) == pytest.approx((1.0, 0.0), rel=0.1, abs=1e-3)
    _, turn = walks["turn"]
    assert wrap_angle(turn.ticks[-1].torso_yaw - turn.ticks[0].torso_yaw) == pytest.approx(np.pi / 2, rel=0.1)
    assert _moved(walks["sidestep"][1]) == pytest.approx((0.0, 0.3), rel=0.1, abs=1e-3)


@pytest.mark.parametrize("kind", list(SEGMENTS))
def test_feet_never_go_below_the_ground_and_swing_lands_flat(walks, kind):
    generator, walk = walks[kind]
    dt, lift = generator.config.dt, generator.geometry.step_height
    heights = {"left": [], "right": []}
    for tick in walk.ticks:
        for side, sole in (("left", tick.left_sole), ("right", tick.right_sole)):
            assert sole[2, 3] >= -1e-12
            assert np.allclose(sole[:3, 2], (0.0, 0.0, 1.0))  # level all the way: lifts and lands flat
            heights[side].append(sole[2, 3])
        if tick.support in ("left", "right"):
            assert (tick.left_sole if tick.support == "left" else tick.right_sole)[2, 3] == 0.0
    for side, series in heights.items():
        series = np.array(series)
        assert series.max() == pytest.approx(lift, rel=0.02)
        touch_downs = np.flatnonzero((series[:-1] > 0) & (series[1:] == 0))
        assert touch_downs.size > 0
        peak_speed = np.abs(np.diff(series)).max() / dt  # [m/s] during the swing
        assert np.all(series[touch_downs] / dt < 0.02 * peak_speed)  # zero vertical speed at touch-down


def test_support_sole_does_not_move(walks):
    _, walk = walks["forward"]
    for before, after in zip(walk.ticks, walk.ticks[1:]):
        if before.support == after.support and after.support != "double":
            key = "left_sole" if after.support == "left" else "right_sole"
            assert np.array_equal(getattr(before, key), getattr(after, key))


def test_steps_respect_the_reach_limits(walks):
    for generator, _ in walks.values():
        max_x, max_y, max_yaw = generator.geometry.max_step
        for step in generator.footsteps():
            assert np.linalg.norm(step.end[:2] - step.start[:2]) <= 2 * max_x + max_y + 1e-9
            assert abs(wrap_angle(step.end[2] - step.start[2])) <= max_yaw + 1e-9


def test_commands_are_clipped_to_the_step_limits():
    generator = WalkingPatternGenerator(robot("packaged"))
    largest = generator.max_command
    clipped = generator.set_command(5.0, 0.0, -5.0)
    assert np.allclose(clipped, [largest[0], 0.0, -largest[2]])
    clipped = generator.set_command(5.0, -5.0, 5.0)  # forward and sideways: on the ellipse of both
    assert np.hypot(*(clipped[:2] / largest[:2])) == pytest.approx(1.0)
    assert clipped[0] > 0 and clipped[1] < 0 and clipped[2] == pytest.approx(largest[2])
    with pytest.raises(ValueError, match="finite"):
        generator.set_command(float("nan"), 0.0, 0.0)


def test_a_new_command_keeps_the_plan_for_the_command_delay():
    config = WalkConfig()
    generator = WalkingPatternGenerator(robot("packaged"), config)
    generator.set_command(0.1, 0.0, 0.0)
    for _ in range(300):
        generator.step()
    times = generator.time + np.arange(0.0, config.command_delay, config.dt)
    before = generator.planner.zmp_reference(times)
    generator.set_command(0.0, 0.05, 0.3)
    assert np.array_equal(generator.planner.zmp_reference(times), before)


def test_sizes_scale_with_the_robot():
    packaged, variant = (WalkingPatternGenerator(robot(name)).geometry for name in ("packaged", "variant"))
    assert variant.leg_length > packaged.leg_length
    assert variant.com_height > packaged.com_height
    assert variant.foot_separation > packaged.foot_separation
    assert np.all(variant.max_step[:2] > packaged.max_step[:2])
    assert packaged.leg_length == pytest.approx(0.505)
    assert np.allclose(packaged.soles[0].size, (0.16, 0.08))


@pytest.mark.parametrize("name", ["packaged", "variant"])
def test_the_zmp_inset_moves_the_single_support_reference_inwards_by_a_share_of_the_sole(name):
    # walk.zmp_inset_ratio: the single-support ZMP reference lies that share of the sole's width
    # inside the sole's footprint centre, towards the other sole; standing it stays midway
    model, inset = robot(name), 0.2
    centred, inward = (
        drive(WalkingPatternGenerator(model, WalkConfig(zmp_inset_ratio=ratio)), SEGMENTS["forward"])
        for ratio in (0.0, inset)
    )
    width = WalkingPatternGenerator(model).geometry.soles[0].size[1]
    singles = 0
    for plain, moved in zip(centred.ticks, inward.ticks):
        assert plain.support == moved.support
        if moved.support == "double":
            continue
        sole = moved.left_sole if moved.support == "left" else moved.right_sole
        towards_other = sole[:2, 1] * (-1.0 if moved.support == "left" else 1.0)  # the sole's -y / +y
        shift = moved.zmp_reference - plain.zmp_reference
        assert shift @ towards_other == pytest.approx(inset * width, abs=1e-9)
        assert np.hypot(*shift) == pytest.approx(inset * width, abs=1e-9)
        singles += 1
    assert singles > 100
    assert np.allclose(centred.ticks[-1].zmp_reference, inward.ticks[-1].zmp_reference)


def test_an_observed_com_is_steered_back_onto_the_zmp_reference():
    generator = WalkingPatternGenerator(robot("packaged"))
    generator.set_command(0.1, 0.0, 0.0)
    for _ in range(300):
        tick = generator.step()
    generator.observe_com(tick.com + (0.01, -0.01), tick.com_velocity)
    assert np.allclose(generator.controller.state[0], tick.com + (0.01, -0.01))
    errors = [
        np.linalg.norm(generator.step().zmp - generator.planner.zmp_reference(np.array([generator.time]))[0])
    ]
    for _ in range(300):
        tick = generator.step()
        errors.append(np.linalg.norm(tick.zmp - tick.zmp_reference))
    assert max(errors[-100:]) <= ZMP_TRACKING_BOUND
    with pytest.raises(ValueError, match="gain"):
        generator.observe_com(tick.com, gain=2.0)


@pytest.mark.parametrize("name", ["packaged", "variant"])
def test_a_command_held_as_long_as_command_for_says_walks_the_amount_exactly(name):
    generator = WalkingPatternGenerator(robot(name))
    largest = 0.9 * generator.max_command
    for index, amount in ((0, 1.0), (2, 0.5 * np.pi), (1, 0.3)):  # forward [m], turn [rad], sidestep [m]
        rate, duration = generator.planner.command_for(index, amount, largest[index])
        assert 0.0 < rate <= largest[index]
        command = np.zeros(3)
        command[index] = rate
        start = generator.step()
        walk = drive(generator, [(tuple(command), duration)])
        end = walk.ticks[-1]
        moved = (
            wrap_angle(end.torso_yaw - start.torso_yaw)
            if index == 2
            else np.linalg.norm(midpoint(end) - midpoint(start))
        )
        assert moved == pytest.approx(amount, abs=1e-6)  # a command held amount / rate fell short
    with pytest.raises(ValueError, match="axis 0, 1 or 2 and both > 0"):
        generator.planner.command_for(0, 1.0, 0.0)
