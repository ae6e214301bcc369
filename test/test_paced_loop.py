"""PacedLoop, the servo bridge's bus-cycle thread: steps start on a fixed grid, a late step is
followed by one at once (the grid kept, the mean rate kept), a lag that steps at the recent pace
make up within ``catch_up`` steps is caught up back to back, any other drops the missed deadlines
(on the same grid); an exception is handed on.

A scripted clock (each step takes the time the script says, each sleep advances the clock by what
it was asked) makes the schedule exact and independent of the machine's load; the thread is real.
"""

from __future__ import annotations

import os
import threading
import time

import pytest

from ik_solvers.hardware.paced_loop import PacedLoop

PERIOD = 0.01  # [s]


class ScriptedTime:
    """A clock advanced by the steps (their scripted durations [s]) and by the loop's sleeps."""

    def __init__(self, durations: list[float]) -> None:
        self.now, self.durations, self.starts = 0.0, list(durations), []

    def clock(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds

    def run(self, loop_error=None, catch_up: int = 0) -> tuple[PacedLoop, list[BaseException]]:
        """Run the loop through the script (or until a step raises ``loop_error`` at the second
        step); the loop and the exceptions handed to ``on_error``."""
        done, errors = threading.Event(), []

        def step(now: float) -> None:
            self.starts.append(now)
            self.now += self.durations.pop(0)
            if loop_error is not None and len(self.starts) == 2:
                raise loop_error
            if not self.durations:
                loop.stop()  # from the loop's own thread: the loop ends after this step
                done.set()

        def failed(error: BaseException) -> None:
            errors.append(error)
            done.set()

        loop = PacedLoop(PERIOD, step, failed, clock=self.clock, sleep=self.sleep, catch_up=catch_up)
        loop.start()
        assert done.wait(10.0), "the loop did not get through its script"
        loop.stop()
        return loop, errors


def test_steps_start_on_the_grid_when_they_take_less_than_a_period():
    timing = ScriptedTime([0.002, 0.009, 0.0005, 0.004])
    loop, _ = timing.run()
    assert timing.starts == pytest.approx([0.0, 0.01, 0.02, 0.03])
    assert loop.overruns == 0 and loop.dropped == 0


def test_a_late_step_is_counted_and_the_next_starts_at_once_on_the_same_grid():
    timing = ScriptedTime([0.002, 0.013, 0.002, 0.002])  # the second step ends at 0.023, due 0.02
    loop, _ = timing.run()
    assert timing.starts == pytest.approx([0.0, 0.01, 0.023, 0.03])  # at once, then back on the grid
    assert loop.overruns == 1 and loop.dropped == 0


def test_a_step_a_period_late_drops_the_missed_deadlines_on_the_same_grid_without_catch_up():
    timing = ScriptedTime([0.002, 0.045, 0.002, 0.002])  # ends at 0.055: deadlines 0.02..0.05 missed
    loop, _ = timing.run()  # catch_up 0: a lag of a whole period is dropped
    assert timing.starts == pytest.approx([0.0, 0.01, 0.055, 0.06])  # the latest at once, then the grid
    assert loop.overruns == 1 and loop.dropped == 3


ON_GRID = [0.01 * k for k in range(10)]  # nine steps of 6 ms (the pace), then one of 35 ms at 0.09
HELD_UP = [0.006] * 9 + [0.035]  # the tenth ends at 0.125, 2.5 periods behind


def test_a_lag_is_caught_up_with_steps_back_to_back_when_the_pace_allows_it():
    timing = ScriptedTime([*HELD_UP, *[0.006] * 7, 0.002])  # each 6 ms step gains 4 ms on the grid
    loop, _ = timing.run(catch_up=20)  # 25 ms / 4 ms: 7 steps
    back_to_back = [0.125, 0.131, 0.137, 0.143, 0.149, 0.155, 0.161]
    assert timing.starts == pytest.approx([*ON_GRID, *back_to_back, 0.17])  # on the grid again
    assert loop.overruns == 7 and loop.dropped == 0  # 18 steps in 18 periods: the mean rate kept


def test_a_lag_longer_than_catch_up_steps_make_up_is_dropped():
    timing = ScriptedTime([*HELD_UP, 0.002, 0.002, 0.002])
    loop, _ = timing.run(catch_up=3)  # 3 steps gain 12 ms, not 25
    assert timing.starts == pytest.approx([*ON_GRID, 0.125, 0.13, 0.14])
    assert loop.overruns == 1 and loop.dropped == 2


def test_steps_that_take_a_period_or_more_never_burst_to_catch_up():
    timing = ScriptedTime([0.011] * 12)  # each ends 1 ms later on the grid: the lag only grows
    loop, _ = timing.run(catch_up=100)
    assert timing.starts == pytest.approx([0.011 * k for k in range(12)])  # each at once
    assert loop.dropped == 1  # at the first whole period behind (the tenth step's end)


def test_a_negative_catch_up_is_refused_with_the_value():
    with pytest.raises(ValueError, match=r"catch_up must be >= 0 steps, not -1"):
        PacedLoop(PERIOD, lambda now: None, catch_up=-1)


def test_an_exception_in_a_step_ends_the_loop_and_is_handed_on():
    failure = RuntimeError("bus gone")
    timing = ScriptedTime([0.001] * 5)
    loop, errors = timing.run(loop_error=failure)
    assert loop.error is failure and errors == [failure] and len(timing.starts) == 2


def test_a_period_that_is_not_positive_is_refused_with_the_value():
    with pytest.raises(ValueError, match=r"period must be > 0 s, not 0.0"):
        PacedLoop(0.0, lambda now: None)


def can_use_sched_fifo() -> bool:
    """Whether this process may give a thread SCHED_FIFO (tried on a thread of its own)."""
    allowed = []

    def attempt() -> None:
        try:
            os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(1))
            allowed.append(True)
        except OSError:
            allowed.append(False)

    thread = threading.Thread(target=attempt)
    thread.start()
    thread.join()
    return allowed[0]


def test_a_priority_gives_the_loop_thread_sched_fifo_or_says_why_not():
    policies = []
    loop = PacedLoop(PERIOD, lambda now: policies.append(os.sched_getscheduler(0)), priority=10)
    loop.start()  # returns once the thread has its policy
    try:
        assert spin_wait(lambda: bool(policies))
    finally:
        loop.stop()
    if can_use_sched_fifo():
        assert policies[0] == os.SCHED_FIFO and loop.scheduling == "SCHED_FIFO priority 10"
    else:  # refused: the loop runs on at the ordinary policy and says why
        assert policies[0] == os.SCHED_OTHER and "SCHED_FIFO priority 10 refused" in loop.scheduling
    assert os.sched_getscheduler(0) == os.SCHED_OTHER  # the caller's thread keeps its policy


def test_a_priority_out_of_range_is_refused_with_the_range():
    with pytest.raises(ValueError, match=r"priority must be 0 \(ordinary\) to 99 \(SCHED_FIFO\), not 100"):
        PacedLoop(PERIOD, lambda now: None, priority=100)


def spin_wait(condition, timeout: float = 10.0) -> bool:
    """Poll ``condition`` until true or ``timeout`` [s] passes."""
    deadline = time.monotonic() + timeout
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.01)
    return condition()
