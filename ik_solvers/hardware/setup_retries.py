"""Patient retries for the transactions of a start-up, a torque switch or a reopened port. No ROS.

Nothing moves yet, so a slow answer is worth waiting for: on a loaded machine an answer can come
after the SDK's packet timeout (an emulated servo not scheduled, the bridge itself preempted).
Each transaction is tried up to ``SETUP_ATTEMPTS`` times, each attempt waiting ``SETUP_MARGINS``
longer for its answer, but at most ``SETUP_PATIENCE`` seconds of such extra waits between two
:meth:`SetupRetries.renew` calls, so that a bus with no servo powered is refused in seconds, not
minutes. A servo is missing after this many unanswered pings.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from ik_solvers.hardware.bus import BusError, ServoBus
from ik_solvers.hardware.bus_health import BusHealth

SETUP_ATTEMPTS = 5
SETUP_MARGINS = (0.0, 0.05, 0.1, 0.2, 0.4)  # [s] extra answer wait of each attempt
SETUP_PATIENCE = 3.0  # [s]

T = TypeVar("T")


class SetupRetries:
    """Runs transactions on ``bus`` with patient retries; failures are recorded in ``health``."""

    def __init__(self, bus: ServoBus, health: BusHealth) -> None:
        self.bus = bus
        self.health = health
        self.patience = SETUP_PATIENCE  # [s] of extra answer wait left

    def renew(self) -> None:
        """A new start-up, torque switch or reopening: the whole patience again."""
        self.patience = SETUP_PATIENCE

    def __call__(self, call: Callable[[], T]) -> T:
        """``call()`` tried up to SETUP_ATTEMPTS times; a failure other than a lost port is recorded
        and retried after clearing the input; the last one is raised."""
        try:
            for attempt, margin in enumerate(SETUP_MARGINS[:SETUP_ATTEMPTS]):
                self.bus.answer_margin = min(margin, self.patience)
                try:
                    return call()
                except BusError as error:
                    if error.kind == "port" or attempt == SETUP_ATTEMPTS - 1:
                        raise
                    self.patience -= self.bus.answer_margin
                    self.health.record_error(error.kind, str(error), error.servo_id)
                    self.bus.clear_input()
        finally:
            self.bus.answer_margin = 0.0
        raise AssertionError("unreachable")
