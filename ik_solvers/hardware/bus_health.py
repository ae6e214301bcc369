"""What went wrong on the bus, per servo and in total, and how fast the cycles run. No ROS.

The bridge records every failed transaction here; the node turns it into diagnostics. A servo is
in trouble while its last transaction failed or it reports a hardware error; it is healthy again
after its next good answer. A servo that answers but does not follow its goal is recorded apart
(:meth:`BusHealth.not_following`): it is reported, but the other servos keep following commands.
What changes (port lost and back, a servo stops or starts following) is also queued as an
:class:`Event` for the node's log.
"""

from __future__ import annotations

from collections import Counter, deque
from dataclasses import dataclass, field

RATE_WINDOW = 100  # cycles over which the cycle rate is measured
PERIOD_BIN = 1e-4  # [s] resolution of the counted times between two cycles
EVENT_QUEUE = 100  # events kept until the node logs them (older ones are dropped)


@dataclass(frozen=True)
class Event:
    """Something the log should say: ``key`` names its kind (throttling is per key), ``level`` is
    ``info``, ``warning`` or ``error``."""

    key: str
    level: str
    text: str


@dataclass
class ServoHealth:
    """One servo's record. ``hardware_error`` is the current alarm in words ("" when none)."""

    joint: str
    servo_id: int
    errors: int = 0
    last_error: str = ""
    failing: bool = False
    hardware_error: str = ""
    not_following: str = ""  # why it does not follow its goal, in words ("" = it follows)

    @property
    def name(self) -> str:
        """``joint (id N)``."""
        return f"{self.joint} (id {self.servo_id})"


@dataclass
class BusHealth:
    """Counters of the whole bus since start-up."""

    servos: dict[int, ServoHealth]
    cycles: int = 0
    good_cycles: int = 0
    errors: Counter = field(default_factory=Counter)  # kind -> count
    port_open: bool = False
    port_reopens: int = 0
    last_error: str = ""
    first_cycle: float | None = None
    cycle_ends: deque = field(default_factory=lambda: deque(maxlen=RATE_WINDOW))
    periods: Counter = field(default_factory=Counter)  # time between two cycles [PERIOD_BIN] -> count
    events: deque = field(default_factory=lambda: deque(maxlen=EVENT_QUEUE))
    last_reading: float | None = None  # [s] end of the last cycle in which some servo answered
    stalled_since: float | None = None  # [s] while no servo has answered for longer than the stall time
    stalls: int = 0
    late_cycles: int = 0
    longest_gap: float = 0.0  # [s] between two cycles in which servos answered

    @classmethod
    def for_servos(cls, joints: dict[int, str]) -> BusHealth:
        """Empty records for servo id -> joint name."""
        return cls({i: ServoHealth(joint, i) for i, joint in joints.items()})

    def record_error(self, kind: str, message: str, servo_id: int | None = None) -> None:
        """Count one failed transaction of ``kind``; a servo's failure marks it failing."""
        self.errors[kind] += 1
        self.last_error = message
        if servo_id in self.servos:
            servo = self.servos[servo_id]
            servo.errors += 1
            servo.last_error = message
            servo.failing = True

    def record_answer(self, servo_id: int, hardware_error: str = "") -> None:
        """A good answer from ``servo_id``, with its hardware alarm in words ("" = none)."""
        servo = self.servos[servo_id]
        servo.failing = False
        if hardware_error and hardware_error != servo.hardware_error:
            servo.errors += 1
            servo.last_error = f"hardware error: {hardware_error}"
            self.errors["hardware"] += 1
        servo.hardware_error = hardware_error

    def record_following(self, servo_id: int, problem: str) -> None:
        """Whether ``servo_id`` follows its goal: ``problem`` in words, or "" when it does; a change
        is queued as an event."""
        servo = self.servos[servo_id]
        if problem and not servo.not_following:
            servo.errors += 1
            servo.last_error = problem
            self.errors["not_following"] += 1
            self.event(f"follow {servo_id}", "error", f"{servo.name} does not follow its goal: {problem}")
        elif servo.not_following and not problem:
            self.event(f"follow {servo_id}", "info", f"{servo.name} follows its goal again")
        servo.not_following = problem

    def record_reading(self, now: float, answered: bool, stall_time: float) -> None:
        """A cycle ended at ``now`` [s] in which some servo ``answered`` (joint_states published) or
        none did; a stretch without answers longer than ``stall_time`` [s] is a stall: queued as an
        error event when found, and as an info event when the servos answer again."""
        if answered:
            if self.last_reading is not None:
                self.longest_gap = max(self.longest_gap, now - self.last_reading)
            if self.stalled_since is not None:
                self.event(
                    "stall",
                    "info",
                    f"servos answer again after {now - self.stalled_since:.2f} s without joint_states",
                )
                self.stalled_since = None
            self.last_reading = now
        elif (
            self.last_reading is not None
            and self.stalled_since is None
            and now - self.last_reading > stall_time
        ):
            self.stalled_since = self.last_reading
            self.stalls += 1
            self.event(
                "stall",
                "error",
                f"no servo answered for {now - self.last_reading:.2f} s: joint_states stopped, goals hold "
                f"(last error: {self.last_error or 'none'})",
            )

    def record_late_cycle(self, gap: float) -> None:
        """A cycle came ``gap`` [s] after the one before, more than the stall time (the process was
        not scheduled, or a callback blocked it): nothing was read or written meanwhile."""
        self.late_cycles += 1
        self.event(
            "late",
            "warning",
            f"a bus cycle came {gap:.2f} s after the one before (process not scheduled or blocked): "
            "no goals written, no joint_states meanwhile",
        )

    def event(self, key: str, level: str, text: str) -> None:
        """Queue a line for the log (see :class:`Event`)."""
        self.events.append(Event(key, level, text))

    def record_cycle(self, now: float, good: bool) -> None:
        """One read/write cycle ended at ``now`` [s]."""
        if self.cycle_ends:
            self.periods[round((now - self.cycle_ends[-1]) / PERIOD_BIN)] += 1
        self.cycles += 1
        self.good_cycles += int(good)
        self.cycle_ends.append(now)
        if self.first_cycle is None:
            self.first_cycle = now

    @property
    def total_errors(self) -> int:
        """Failed transactions of any kind."""
        return sum(self.errors.values())

    def cycle_rate(self) -> float:
        """Cycles per second over the last ``RATE_WINDOW`` cycles [Hz] (0 before two cycles)."""
        if len(self.cycle_ends) < 2 or self.cycle_ends[-1] <= self.cycle_ends[0]:
            return 0.0
        return (len(self.cycle_ends) - 1) / (self.cycle_ends[-1] - self.cycle_ends[0])

    def mean_cycle_rate(self) -> float:
        """Cycles per second since the first cycle [Hz] (0 before two cycles)."""
        if self.cycles < 2 or self.cycle_ends[-1] <= self.first_cycle:
            return 0.0
        return (self.cycles - 1) / (self.cycle_ends[-1] - self.first_cycle)

    def period_percentile(self, share: float) -> float:
        """The time between two cycles [s] that ``share`` (0..1) of them do not exceed (0 before two)."""
        total, seen = sum(self.periods.values()), 0
        for bin_, count in sorted(self.periods.items()):
            seen += count
            if seen >= share * total:
                return bin_ * PERIOD_BIN
        return 0.0

    def summary(self) -> dict:
        """The run in numbers: cycles, good cycles, mean rate [Hz] and the rate 99 % of the cycles
        reach (one over the 99th percentile of the time between two cycles), errors (total and by
        kind), reopens, stalls."""
        slow = self.period_percentile(0.99)
        return {
            "cycles": self.cycles,
            "good_cycles": self.good_cycles,
            "cycle_hz": round(self.mean_cycle_rate(), 2),
            "cycle_hz_p1": round(1.0 / slow, 2) if slow > 0.0 else 0.0,
            "errors": self.total_errors,
            "errors_by_kind": dict(self.errors),
            "port_reopens": self.port_reopens,
            "stalls": self.stalls,
            "late_cycles": self.late_cycles,
            "longest_gap_s": round(self.longest_gap, 3),
        }

    def troubled(self) -> list[ServoHealth]:
        """Servos that failed their last transaction or report a hardware error."""
        return [s for s in self.servos.values() if s.failing or s.hardware_error]

    def not_following(self) -> list[ServoHealth]:
        """Servos that answer but do not follow their goals."""
        return [s for s in self.servos.values() if s.not_following]
