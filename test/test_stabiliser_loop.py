"""The loop stabiliser when the loop misses periods (a stalled walk_node catching up), scripted states.

The robot's joints are where the stance solve put each tick (a robot that follows its plan
exactly), measured one sample age late; the IMU is level. No simulator.
"""

from __future__ import annotations

import numpy as np
from walking_helpers import robot

from ik_solvers.whole_body import StanceSolver, WalkConfig, WalkingPatternGenerator
from ik_solvers.whole_body.stabiliser_loop import LoopStabiliser

LEVEL = np.array([1.0, 0.0, 0.0, 0.0])


def _joints(stance, tick) -> np.ndarray:
    result = stance.solve(
        tick.left_sole, tick.right_sole, tick.torso_height, tick.torso_rotation, com_target=tick.com
    )
    assert result.success
    return stance.com.configuration(result.positions)


def _largest_error(periods_per_update: list[int]) -> float:
    """[m] the largest DCM error along a walk whose updates come every ``periods_per_update[i]`` ticks."""
    stance = StanceSolver(robot("packaged"))
    config = WalkConfig(stabilise=True, timing_com_height=0.455, single_support=0.4, double_support=0.2)
    generator = WalkingPatternGenerator(stance.model, config, stance=stance)
    stabiliser = LoopStabiliser(generator, stance, actuation_delay=0.0, ramp_time=0.0)
    generator.set_command(0.1, 0.0, 0.0)
    previous = generator.step()
    largest = 0.0
    for i in range(150):
        for _ in range(periods_per_update[i % len(periods_per_update)]):
            measured, tick = previous, generator.step()
            previous = tick
        correction = stabiliser.update(tick, LEVEL, np.zeros(3), _joints(stance, measured), age=config.dt)
        if tick.time > 0.5:
            largest = max(largest, float(np.hypot(*correction.dcm_error)))
    return largest


def test_missed_periods_do_not_read_as_motion():
    steady = _largest_error([1])
    catching_up = _largest_error([1, 3, 1, 1, 2])  # walk_node's timer late, then several periods at once
    assert steady < 0.004
    assert catching_up < 0.01  # the velocity over one period instead of the time measured: 0.031 m


def test_a_capture_step_replan_resets_the_plan_kept(monkeypatch):
    # a capture step lays the plan again from the measured CoM (Stabiliser's on_replan): the plan
    # kept for the delayed comparison becomes the new state, else the comparison saw the jump
    stance = StanceSolver(robot("packaged"))
    config = WalkConfig(stabilise=True, timing_com_height=0.455)
    generator = WalkingPatternGenerator(stance.model, config, stance=stance)
    stabiliser = LoopStabiliser(generator, stance, actuation_delay=0.0, ramp_time=0.0)
    for _ in range(5):
        tick = generator.step()
        stabiliser.update(tick, LEVEL, np.zeros(3), _joints(stance, tick), age=config.dt)

    def replan(tick, estimate, outside) -> bool:
        generator.observe_com(estimate.com[:2] + [0.05, 0.0], np.array([0.1, 0.0]))
        return True

    monkeypatch.setattr(stabiliser.capture, "update", replan)
    tick = generator.step()
    stabiliser.update(tick, LEVEL, np.zeros(3), _joints(stance, tick), age=config.dt)
    com, velocity = generator.controller.state[:2]
    assert len(stabiliser._plan) == 6
    assert all(np.allclose(c, com) and np.allclose(v, velocity) for _, c, v in stabiliser._plan)
