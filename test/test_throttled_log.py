"""ThrottledLog with a made-up clock and a list as the logger: one line a second per key under a
flood, the latest held-back line written when its period is over (so the log ends on the latest
state), keys independent, and the number of keys bounded."""

from __future__ import annotations

import pytest

from ik_solvers.node.throttled_log import MAX_KEYS, ThrottledLog, kind_of


class Lines:
    def __init__(self) -> None:
        self.lines: list[tuple[str, str]] = []

    def __getattr__(self, level: str):
        return lambda text: self.lines.append((level, text))


def make(period: float = 1.0) -> tuple[ThrottledLog, Lines, list[float]]:
    now = [0.0]
    lines = Lines()
    return ThrottledLog(lines, period, clock=lambda: now[0]), lines, now


def test_a_flood_gives_one_line_a_second_and_the_last_state_comes_out_after():
    log, out, now = make()
    for k in range(1000):  # 1000 lines in 2 s
        now[0] = k * 0.002
        log("port", "error", "port lost" if k < 999 else "port reopened")
        log.flush()
    assert out.lines == [("error", "port lost"), ("error", "port lost (499 more like it not logged)")]
    now[0] = 3.0
    log.flush()
    assert out.lines[-1] == ("error", "port reopened (498 more like it not logged)")
    log.flush()
    assert len(out.lines) == 3


def test_keys_are_throttled_apart():
    log, out, _ = make()
    assert log("follow 4", "error", "l_knee stuck") and log("follow 9", "error", "r_upper_leg stuck")
    assert not log("follow 4", "info", "l_knee follows again")
    assert [text for _, text in out.lines] == ["l_knee stuck", "r_upper_leg stuck"]


def test_the_number_of_keys_is_bounded():
    log, out, _ = make()
    for k in range(10 * MAX_KEYS):
        log(f"key {k}", "warning", f"line {k}")
    assert len(out.lines) == MAX_KEYS + 1


def test_an_rclpy_logger_takes_lines_of_every_level_under_one_key():
    # rclpy's logger refuses a call site whose severity changes ("Logger severity cannot be changed
    # between calls"): one key's lines go out at several levels (port lost: error, back: info).
    rclpy_logging = pytest.importorskip("rclpy.logging")
    log = ThrottledLog(rclpy_logging.get_logger("throttled_log_test"), period=0.0)
    assert all(log("port", level, f"a line at {level}") for level in ("error", "info", "warning", "error"))


def test_a_warning_with_other_numbers_is_the_same_kind_and_another_warning_is_not():
    jump = "l_arm: holding the last command, the solution jumps: 1.25 rad at q3 (limit 0.5)"
    assert kind_of(jump) == kind_of(jump.replace("1.25", "-3e-05").replace("q3", "q4"))
    assert kind_of(jump) != kind_of("l_arm: target refused: stamp 3.0 s old (max_target_age 0.5)")
