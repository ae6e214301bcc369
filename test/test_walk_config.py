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
