"""A step run at a fixed rate on a thread of its own, on a monotonic deadline schedule. No ROS.

The servo bridge's bus cycle runs here instead of on an rclpy timer: a timer callback waits for
the executor, which is busy with subscriptions and services in the same thread, and rclpy's timer
drops a tick whenever one comes late (98 Hz instead of 100 Hz in the demo on a quiet machine).

Schedule: step ``k`` is due at ``start + k x period``; the loop sleeps until the next deadline.
A step that ends after the next deadline is counted as an overrun and the next step starts at
once; the schedule keeps its grid, so one late step does not lower the mean rate. A loop a whole
period or more behind (a step held up, the thread not scheduled) catches up in a bounded burst:
steps run back to back, each gaining on the grid what a step takes less than a period, as long as
the lag can be made up within ``catch_up`` steps at the pace of the recent steps (the median
of the last PACE_STEPS durations). Otherwise (a lag too long, or steps that take a period or
more: the machine has no time to spare) the missed deadlines are dropped, counted in
:attr:`PacedLoop.dropped`, and the loop goes on from the latest of them, on the same grid.

Priority: with ``priority`` 1-99 the thread asks Linux for the real-time policy SCHED_FIFO at that
priority, as ros2_control's controller manager does for its loop (``thread_priority``). On a busy
machine a thread of the ordinary policy can wait a second for a core (servo_bridge's cycles came
0.7-1.3 s apart at load 13-16), longer than the servos' watchdog; a SCHED_FIFO thread runs as soon
as it wakes. Asking needs CAP_SYS_NICE or an ``rtprio`` limit; when refused the thread runs on
and :attr:`scheduling` says why.
"""

from __future__ import annotations

import os
import statistics
import threading
import time
from collections import deque
from collections.abc import Callable

MAX_PRIORITY = 99  # SCHED_FIFO's highest on Linux
PACE_STEPS = 9  # recent steps whose median duration is the pace a lag is caught up at
SCHEDULING_WAIT = 1.0  # [s] most start() waits for the thread to take its policy


class PacedLoop:
    """Calls ``step(now)`` every ``period`` [s] on a daemon thread until :meth:`stop`.

    Args:
        period: time between two steps' deadlines [s], > 0.
        step: the work of one period; ``now`` is its start (``clock()``) [s]. An exception in it
            ends the loop; it is kept in :attr:`error` and ``on_error`` is called with it.
        on_error: told when a step raised (e.g. to stop the process), from the loop's thread.
        name: the thread's name.
        clock: monotonic clock [s].
        sleep: waits its argument [s] (a stop request is seen at the next deadline).
        priority: 0 = the ordinary policy; 1-99 = SCHED_FIFO at that priority (see the module).
        catch_up: the most steps a burst that catches up a lag may take (see the module); 0 = a
            lag of a whole period is dropped at once.

    Raises:
        ValueError: ``period`` not > 0, ``priority`` outside 0-99 or ``catch_up`` < 0.
    """

    def __init__(
        self,
        period: float,
        step: Callable[[float], None],
        on_error: Callable[[BaseException], None] = lambda error: None,
        name: str = "paced loop",
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
        priority: int = 0,
        catch_up: int = 0,
    ) -> None:
        if not period > 0.0:
            raise ValueError(f"period must be > 0 s, not {period!r}")
        if not catch_up >= 0:
            raise ValueError(f"catch_up must be >= 0 steps, not {catch_up!r}")
        if not 0 <= priority <= MAX_PRIORITY:
            raise ValueError(
                f"priority must be 0 (ordinary) to {MAX_PRIORITY} (SCHED_FIFO), not {priority!r}"
            )
        self.priority = priority
        self.scheduling = "ordinary"  # what the thread got, in words, once start() returned
        self._scheduled = threading.Event()
        self.period = period
        self.catch_up = catch_up
        self.durations: deque[float] = deque(maxlen=PACE_STEPS)  # [s] of the recent steps
        self.step = step
        self.on_error = on_error
        self.clock = clock
        self.sleep = sleep
        self.overruns = 0  # steps that ended after the next one's deadline
        self.dropped = 0  # deadlines skipped: a lag that could not be caught up (see the module)
        self.error: BaseException | None = None
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)

    def start(self) -> None:
        """Start the thread (the first step is due at once); return once it has its policy."""
        self._thread.start()
        self._scheduled.wait(SCHEDULING_WAIT)

    def _take_priority(self) -> None:
        """Ask for SCHED_FIFO at :attr:`priority` for the loop's thread."""
        if self.priority:
            self.scheduling = take_fifo_priority(self.priority)
        self._scheduled.set()

    def stop(self, timeout: float = 5.0) -> None:
        """Ask the loop to end after the step in progress and wait up to ``timeout`` [s] for it."""
        self._stopping.set()
        if self._thread.is_alive() and threading.current_thread() is not self._thread:
            self._thread.join(timeout)

    def _run(self) -> None:
        self._take_priority()
        deadline = self.clock()
        while not self._stopping.is_set():
            started = self.clock()
            try:
                self.step(started)
            except BaseException as error:  # noqa: BLE001 - handed on: the loop must not die silently
                self.error = error
                self.on_error(error)
                return
            deadline = self._next_deadline(deadline, started)
            wait = deadline - self.clock()
            if wait > 0.0 and not self._stopping.is_set():
                self.sleep(wait)

    def _next_deadline(self, deadline: float, started: float) -> float:
        """The deadline after ``deadline``, for a step that started at ``started`` [s]; counts an
        overrun; drops the missed deadlines but the latest (due at once, on the same grid) when the
        lag cannot be caught up (see the module)."""
        deadline += self.period
        now = self.clock()
        self.durations.append(now - started)
        if now > deadline:
            self.overruns += 1
            behind = int((now - deadline) / self.period)  # whole periods
            if behind and not self._can_catch_up(now - deadline):
                self.dropped += behind
                deadline += behind * self.period
        return deadline

    def _can_catch_up(self, lag: float) -> bool:
        """Whether steps back to back at the recent pace make up ``lag`` [s] within ``catch_up`` steps."""
        gain = self.period - statistics.median(self.durations)  # [s] a step gains on the grid
        return gain > 0.0 and lag <= self.catch_up * gain


def take_fifo_priority(priority: int) -> str:
    """Ask Linux for SCHED_FIFO at ``priority`` (1-99) for the calling thread (pid 0 = the caller);
    what it got, in words ("SCHED_FIFO priority 50", or "ordinary (… refused: reason)")."""
    try:
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(priority))
    except (OSError, AttributeError) as error:  # no permission; no SCHED_FIFO off Linux
        return f"ordinary (SCHED_FIFO priority {priority} refused: {error})"
    return f"SCHED_FIFO priority {priority}"
