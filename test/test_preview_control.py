"""Cart-table preview controller (Kajita et al. 2003): gains, rest, tracking a stepped reference."""

from __future__ import annotations

import numpy as np
import pytest

from ik_solvers.whole_body.preview_control import GRAVITY, PreviewController


def _track(controller: PreviewController, reference: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """ZMP and CoM (ticks, 2) while following ``reference`` (ticks + horizon + 1, 2)."""
    zmp, com = [], []
    for k in range(len(reference) - controller.horizon - 1):
        state = controller.step(reference[k : k + controller.horizon + 1])
        zmp.append(controller.zmp.copy())
        com.append(state[0].copy())
    return np.array(zmp), np.array(com)


def test_first_preview_gain_is_minus_the_integral_gain_and_the_gains_fade():
    controller = PreviewController(0.01, 0.45)
    assert controller.gain_preview[0] == pytest.approx(-controller.gain_integral)
    assert abs(controller.gain_preview[-2]) < 0.01 * abs(controller.gain_preview[0])
    assert controller.horizon == 160


def test_a_robot_at_rest_over_its_zmp_stays_there():
    controller = PreviewController(0.01, 0.45)
    controller.reset(np.array([0.3, -0.1]))
    zmp, com = _track(controller, np.tile([0.3, -0.1], (400, 1)))
    assert np.allclose(com, [0.3, -0.1], atol=1e-12) and np.allclose(zmp, [0.3, -0.1], atol=1e-12)


@pytest.mark.parametrize("height", [0.3, 0.45, 0.8])
def test_zmp_follows_a_stepping_reference_seen_in_advance(height):
    """Footsteps as a staircase of ZMP targets, ramped over 0.15 s: the cart-table ZMP stays
    within 1 cm of the reference, and the CoM ends over the last target."""
    controller = PreviewController(0.01, height)
    controller.reset(np.zeros(2))
    ticks = np.arange(2000)
    steps = np.clip((ticks - 200) // 65, 0, 15)  # a step every 0.65 s from t = 2 s
    reference = np.stack([0.06 * steps, np.where(steps % 2 == 1, 0.08, -0.08) * (steps > 0)], axis=1)
    kernel = np.ones(15) / 15  # 0.15 s transfer
    reference = np.stack(
        [np.convolve(np.pad(r, (14, 0), mode="edge"), kernel, "valid") for r in reference.T], 1
    )
    zmp, com = _track(controller, reference)
    assert np.abs(zmp - reference[1 : len(zmp) + 1]).max() <= 0.01
    assert np.allclose(com[-1], reference[len(zmp)], atol=1e-3)


def test_cart_table_zmp_formula():
    controller = PreviewController(0.01, 0.5)
    controller.state = np.array([[0.1, 0.2], [0.0, 0.0], [1.0, -2.0]])
    assert np.allclose(controller.zmp, [0.1 - 0.5 / GRAVITY, 0.2 + 1.0 / GRAVITY])


def test_bad_parameters_are_refused():
    with pytest.raises(ValueError, match="com_height"):
        PreviewController(0.01, -0.4)
