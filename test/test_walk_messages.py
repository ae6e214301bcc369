"""walk_node's WholeBodyTarget of a tick (no node): a stabiliser's CoM shift goes in ``com_offset``,
the plan's smooth CoM stays ``com_target`` (ik_node's servo compensation takes its ZMP from the
target alone; the feedback's tick-to-tick jitter differenced twice would swamp it)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from ik_solvers.walk.messages import whole_body_target


def _tick():
    """A pattern tick's fields that the message reads (a plain namespace: no generator needed)."""
    left, right = np.eye(4), np.eye(4)
    left[1, 3], right[1, 3] = 0.05, -0.05
    return SimpleNamespace(
        left_sole=left,
        right_sole=right,
        support="double",
        com=np.array([0.01, 0.002]),
        torso_yaw=0.0,
        torso_height=0.45,
    )


def test_the_plan_alone_is_the_com_target():
    message = whole_body_target(_tick(), "odom", None)
    assert message.use_com_target
    assert (message.com_target.x, message.com_target.y) == pytest.approx((0.01, 0.002))
    assert (message.com_offset.x, message.com_offset.y) == (0.0, 0.0)


def test_a_correction_shifts_the_com_by_its_offset_and_keeps_the_plan_as_target():
    correction = SimpleNamespace(com=np.array([0.013, -0.001]), torso_rotation=np.eye(3))
    message = whole_body_target(_tick(), "odom", None, correction)
    assert (message.com_target.x, message.com_target.y) == pytest.approx((0.01, 0.002))
    assert (message.com_offset.x, message.com_offset.y) == pytest.approx((0.003, -0.003))
    shifted = (message.com_target.x + message.com_offset.x, message.com_target.y + message.com_offset.y)
    assert shifted == pytest.approx((0.013, -0.001))  # where the stance solve puts the CoM
