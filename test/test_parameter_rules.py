"""Parameter rules (no ROS): types, ranges and the refusal's words; WalkConfig's rules and bounds."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from ik_solvers.parameter_rules import ParameterError, Rule
from ik_solvers.whole_body import WalkConfig

NODE_MD = Path(__file__).resolve().parent.parent / "docs" / "node.md"
PERIOD = Rule(0.01, "control period", "s", 0.0, 0.1, low_open=True)


def test_an_int_for_a_float_is_that_number_when_in_range():
    value = Rule(0.5, "timeout", "s", 0.0, 10.0).check("timeout", 2)
    assert value == 2.0 and isinstance(value, float)


@pytest.mark.parametrize("value", [0.0, -1.0, 1, math.nan, math.inf, "fast", True, None, [0.01]])
def test_a_refusal_names_the_parameter_the_value_and_the_range(value):
    with pytest.raises(ParameterError) as refused:
        PERIOD.check("walk.dt", value)
    assert str(refused.value) == f"walk.dt = {value!r} refused: a finite number in (0, 0.1] [s] is required"


def test_strings_choices_booleans_and_string_lists():
    assert Rule("odom", "frame", non_empty=True).check("frame", "map") == "map"
    with pytest.raises(ParameterError, match="frame = '' refused: a non-empty string is required"):
        Rule("odom", "frame", non_empty=True).check("frame", "")
    with pytest.raises(ParameterError, match="one of dls, pinv"):
        Rule("dls", "method", choices=("dls", "pinv")).check("method", "newton")
    with pytest.raises(ParameterError, match="true or false"):
        Rule(False, "flag").check("flag", 1)
    assert Rule(("a",), "names").check("names", ["b", "c"]) == ("b", "c")


def test_a_long_refused_value_is_cut_short():
    with pytest.raises(ParameterError) as refused:
        PERIOD.check("walk.dt", "x" * 10_000)
    assert len(str(refused.value)) < 200 and "10002 characters" in str(refused.value)


def test_walk_config_takes_ints_as_floats_and_bounds_the_preview():
    assert WalkConfig(single_support=1).single_support == 1.0
    with pytest.raises(ParameterError, match="walk.preview_time = 10000.0 refused"):
        WalkConfig(preview_time=1e4)
    with pytest.raises(ParameterError, match="at most 2000 periods"):
        WalkConfig(dt=0.001, preview_time=3.0)
    with pytest.raises(ParameterError, match=r"walk.zmp_error_weight = 1e\+300 refused"):
        WalkConfig(zmp_error_weight=1e300)


def test_walk_config_rules_cover_every_field():
    assert set(WalkConfig.rules()) == set(WalkConfig().__dataclass_fields__)


@pytest.mark.parametrize("module", ["walk", "sim"])
def test_docs_node_md_tables_say_what_the_rules_accept(module):
    pytest.importorskip("rclpy")
    if module == "walk":
        from ik_solvers.walk.walk_node import parameter_rules
    else:
        pytest.importorskip("mujoco")
        from ik_solvers.sim.sim_node import parameter_rules
    lines = NODE_MD.read_text().splitlines()
    for name, rule in parameter_rules().items():
        when = "start-up" if rule.start_up_only else "run time"
        assert any(
            line.startswith(f"| `{name}` |") and f"| {rule.accepted()} | {when} |" in line for line in lines
        ), f"docs/node.md: no row for {name} saying '{rule.accepted()}', '{when}'"
