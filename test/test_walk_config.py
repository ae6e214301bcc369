"""WalkConfig: defaults, refusals, and config/walk.yaml in step with it."""

from __future__ import annotations

from dataclasses import asdict, fields
from pathlib import Path

import pytest
import yaml

from ik_solvers.whole_body import WalkConfig

WALK_YAML = Path(__file__).resolve().parent.parent / "config" / "walk.yaml"


def test_walk_yaml_holds_every_field_with_valid_values():
    # Not the defaults: the packaged file holds the slower gait that walks in MuJoCo (docs/walking.md).
    values = yaml.safe_load(WALK_YAML.read_text())["walk_node"]["ros__parameters"]["walk"]
    assert set(values) == {item.name for item in fields(WalkConfig)}
    assert WalkConfig.from_mapping(values).dt == WalkConfig().dt


def test_unknown_or_bad_values_are_refused_by_name():
    with pytest.raises(ValueError, match=r"unknown walk parameters \['step_lenght'\]"):
        WalkConfig.from_mapping({"step_lenght": 0.1})
    with pytest.raises(ValueError, match="single_support"):
        WalkConfig(single_support=-0.5)
    with pytest.raises(ValueError, match="torso_height_ratio"):
        WalkConfig(torso_height_ratio=1.2)
    assert asdict(WalkConfig())["dt"] == 0.01 and WalkConfig().step_period == pytest.approx(0.65)


def test_durations_scale_with_the_square_root_of_the_com_height():
    config = WalkConfig(single_support=0.8, double_support=1.0, timing_com_height=0.4)
    taller = config.for_com_height(0.9)  # 1.5 times the pendulum's time constant
    assert taller.single_support == pytest.approx(1.2) and taller.double_support == pytest.approx(1.5)
    assert taller.preview_time == pytest.approx(1.5 * config.preview_time) and taller.dt == config.dt
    assert WalkConfig().for_com_height(0.9) == WalkConfig()  # timing_com_height 0: as given
    assert config.for_com_height(0.4002) == config  # rounded to whole periods dt


def test_a_robot_with_a_higher_com_walks_with_slower_steps():
    from walking_robots import variant_urdf

    from ik_solvers import RobotModel
    from ik_solvers.walk.config import load_walk_config
    from ik_solvers.whole_body import WalkingPatternGenerator

    config = load_walk_config()
    longer = WalkingPatternGenerator(RobotModel.from_urdf_string(variant_urdf("long_legs_heavier")), config)
    shorter = WalkingPatternGenerator(RobotModel.from_urdf_string(variant_urdf("short_legs_lighter")), config)
    for walker in (longer, shorter):
        scale = (walker.geometry.com_height / config.timing_com_height) ** 0.5
        assert walker.config.step_period == pytest.approx(scale * config.step_period, abs=config.dt)
        periods = walker.config.single_support / config.dt  # whole control periods
        assert periods == pytest.approx(round(periods), abs=1e-9)
    assert longer.config.step_period > config.step_period > shorter.config.step_period


def test_sole_size_is_both_or_neither():
    with pytest.raises(ValueError, match="give both"):
        WalkConfig(sole_length=0.15)
    assert WalkConfig(sole_length=0.15, sole_width=0.07).sole_size == (0.15, 0.07)
    assert WalkConfig().sole_size is None


def test_the_swing_lasts_longer_on_a_smaller_footprint_by_the_larger_ratio():
    config = WalkConfig(single_support=0.8, timing_sole_length=0.16, timing_sole_width=0.08)
    assert config.for_footprint((0.16, 0.08)) is config  # the footprint the swing is given for
    assert config.for_footprint((0.2, 0.1)) is config  # a larger one: as given
    assert config.for_footprint((0.14, 0.06)).single_support == pytest.approx(0.8 * 0.08 / 0.06, abs=0.005)
    assert config.for_footprint((0.08, 0.08)).single_support == pytest.approx(1.6)
    assert config.for_footprint((0.08, 0.08)).double_support == config.double_support  # the swing only
    assert WalkConfig(single_support=0.8).for_footprint((0.08, 0.04)).single_support == 0.8  # 0: not scaled
