"""The servo bridge without ROS: start-up checks, the read/write cycle, safety and recovery.

Each :meth:`ServoBridge.cycle` writes every servo's goal with one Sync Write and reads every
servo's present position, velocity and load with one (Fast) Sync Read. Goals move toward the
latest command at no more than the joint's velocity limit [rad/s] and never leave the calibrated
range; a command is followed for ``command_timeout`` seconds of the bridge's own steps (each
cycle counts what its goal step covers, at most 0.1 s: a late cycle does not age a command more
than it moves the goals), then the goals hold; nor is any
command while a servo fails to answer or reports a hardware error. Failed transactions are
counted per servo in :class:`~ik_solvers.hardware.bus_health.BusHealth`; when the group read keeps
failing, the servo that fails is found by reading the servos one by one. A lost port is reopened every
``reopen_interval`` seconds; the servos are then brought up again from where they are.

Each servo's bus watchdog (Dynamixel) counts from the last instruction *that servo* heard, so it
is armed and re-armed with Sync Writes, which every servo hears at once, and only after the
servo-by-servo writes of the start-up; it is re-armed whenever the bridge was silent for half its
period. A servo that answers but does not follow its goal is found by
:class:`~ik_solvers.hardware.follow_monitor.FollowMonitor` and reported; if its bus watchdog had
expired after all (its goals refused without a word: a Sync Write gets no answer), it is re-armed.
The follow check judges time on :attr:`ServoBridge.servo_clock` when set: a simulated robot's
servos move in simulated time, which a loaded machine runs slower than the wall clock.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable

import numpy as np

from ik_solvers.hardware.bridge_config import BridgeConfig, CommandUse, JointReading
from ik_solvers.hardware.bus import BusError, ServoBus, ServoState
from ik_solvers.hardware.bus_health import BusHealth
from ik_solvers.hardware.calibration import Calibration
from ik_solvers.hardware.control_tables import (
    DYNAMIXEL_ALERT_BIT,
    WATCHDOG_EXPIRED,
    WATCHDOG_UNIT,
    hardware_error_text,
)
from ik_solvers.hardware.follow_monitor import FollowMonitor
from ik_solvers.hardware.setup_retries import SetupRetries

SILENT_READS = 3  # unanswered reads in a row after which a cycle stops reading servos one by one
REARM_SHARE = 0.5  # share of the watchdog period of silence after which the bridge re-arms it


class StartupError(RuntimeError):
    """The bus or its servos are not what the calibration says; the message names them."""


class ServoBridge:
    """Drives the servos of ``calibration`` on ``bus`` (see the module docstring).

    Args:
        calibration: the robot's servos, checked against the URDF by the caller.
        bus: the protocol backend (opened by :meth:`start`).
        velocity_limits: joint name -> URDF velocity limit [rad/s].
        config: settings.
    """

    def __init__(
        self, calibration: Calibration, bus: ServoBus, velocity_limits: dict[str, float], config: BridgeConfig
    ) -> None:
        self.calibration = calibration
        self.bus = bus
        self.config = config
        self.joints = calibration.joints
        self.ids = list(calibration.servo_ids)
        self.index = {j.joint: k for k, j in enumerate(self.joints)}
        self.max_velocity = np.array([config.velocity_scale * velocity_limits[j.joint] for j in self.joints])
        self.low, self.high = np.array([j.angle_range() for j in self.joints]).T
        self.goals = np.zeros(len(self.joints))  # [rad]
        self.command = np.zeros(len(self.joints))  # [rad]
        self.command_age = math.inf  # [s] of goal steps since the latest command arrived
        self.command_lock = threading.Lock()  # set_command may come from another thread than cycle
        self.torque_on = False
        self.healthy = False
        self.last_cycle = None
        self.last_write = None  # wall-clock time [s] of the last goal write (the servos' watchdog runs on it)
        self.clock = time.monotonic
        # [s] the time the servos move in, for the follow check: None = the cycle's (wall) time; a
        # simulated robot's (servo_bridge on use_sim_time) judges servos that move in simulated time
        self.servo_clock: Callable[[], float] | None = None
        # what stamps a reading (JointReading.read_at): read just before the group read is sent
        self.read_clock: Callable[[], object] = time.monotonic
        self.next_reopen = 0.0
        self.failed_group_reads = 0  # cycles in a row whose group read failed
        self.health = BusHealth.for_servos({j.servo_id: j.joint for j in self.joints})
        self.monitor = FollowMonitor(len(self.joints), config.follow)
        self.watchdog_ids = [j.servo_id for j in self.joints if j.model.has_bus_watchdog]
        self.retried = SetupRetries(bus, self.health)

    # -- start-up and shutdown --------------------------------------------------------------
    def start(self, now: float) -> None:
        """Open the port, check every servo, read where they are, then enable torque.

        Raises:
            StartupError: the port cannot be opened, or servos are missing or of the wrong model.
        """
        try:
            self.bus.open()
        except BusError as error:
            raise StartupError(str(error)) from None
        self.health.port_open = True
        self.retried.renew()
        problems = self._check_servos()
        if problems:
            self.bus.close()
            raise StartupError("refusing to start:\n  " + "\n  ".join(problems))
        try:
            self._bring_up(now, torque=True)
        except BusError as error:
            self.bus.close()
            raise StartupError(f"start-up failed: {error}") from None

    def _check_servos(self) -> list[str]:
        """Ping every servo: the missing ones and those of another model, in words."""
        problems = []
        for joint in self.joints:
            name = f"{joint.joint} (id {joint.servo_id})"
            try:
                model_number = self.retried(lambda i=joint.servo_id: self.bus.ping(i))
            except BusError as error:
                problems.append(f"{name}: no answer ({error})")
                continue
            if model_number != joint.model.model_number:
                problems.append(
                    f"{name}: model number {model_number}, the calibration says {joint.model.name} "
                    f"({joint.model.model_number})"
                )
        return problems

    def _bring_up(self, now: float, torque: bool) -> None:
        """Read present positions and hold there; with the bus watchdog off, set the velocity limits
        and enable torque servo by servo; then arm the watchdog of all servos at once."""
        self._take_present(self.retried(lambda: self.bus.read_states(self.ids)))
        self._write_watchdog(0)  # no servo expires while the others get their writes; clears an expiry
        for joint, limit in zip(self.joints, self.max_velocity):
            units = math.ceil(limit / joint.model.velocity_unit)
            self.retried(lambda i=joint.servo_id, u=units: self.bus.write_register(i, "profile_velocity", u))
        self.bus.sync_write("goal_position", dict(zip(self.ids, self.calibration.to_ticks(self.goals))))
        if torque:
            self.set_torque(True)
        self._arm_watchdog()
        self.healthy = True

    def _take_present(self, states: dict[int, ServoState]) -> None:
        """Goals and command := the present positions (clamped to the calibrated range)."""
        present = np.array([j.to_angle(states[j.servo_id].position) for j in self.joints])
        self.goals = np.clip(present, self.low, self.high)
        with self.command_lock:
            self.command = self.goals.copy()
            self.command_age = math.inf

    def _arm_watchdog(self) -> None:
        """(Re)start the bus watchdog of every servo that has one: clear it (an expired one refuses
        goals until then), then set the period; two Sync Writes, heard by all servos at once."""
        self._write_watchdog(0)
        units = round(self.config.bus_watchdog / WATCHDOG_UNIT)
        if units:
            self._write_watchdog(units)

    def _write_watchdog(self, units: int) -> None:
        """One Sync Write of the Bus Watchdog register [WATCHDOG_UNIT] to every servo that has one;
        it counts as the last write every servo heard."""
        if self.watchdog_ids:
            self.last_write = self.clock()
            self.bus.sync_write("bus_watchdog", dict.fromkeys(self.watchdog_ids, units))

    def set_torque(self, on: bool) -> None:
        """Enable torque (goals := present positions first, so nothing jumps) or disable it."""
        self.retried.renew()
        if on:
            self._take_present(self.retried(lambda: self.bus.read_states(self.ids)))
            self.bus.sync_write("goal_position", dict(zip(self.ids, self.calibration.to_ticks(self.goals))))
        for servo_id in self.ids:
            self.retried(lambda i=servo_id: self.bus.write_register(i, "torque_enable", int(on)))
        self.torque_on = on
        self.monitor.reset()

    def shutdown(self) -> None:
        """Disable torque (when configured; each write retried as at start-up, a late answer is
        no reason to leave a servo powered) and close the port; bus errors are ignored here."""
        if self.config.torque_off_on_shutdown and self.health.port_open:
            try:
                self.bus.clear_input()  # the bridge may have been stopped inside a transaction
            except BusError as error:
                self.health.record_error(error.kind, str(error), None)
            self.retried.renew()
            for servo_id in self.ids:
                try:
                    self.retried(lambda i=servo_id: self.bus.write_register(i, "torque_enable", 0))
                except BusError as error:
                    self.health.record_error(error.kind, str(error), error.servo_id)
            self.torque_on = False
        self.bus.close()
        self.health.port_open = False

    # -- commands -----------------------------------------------------------------------------
    def set_command(self, names: list[str], positions: list[float]) -> CommandUse:
        """Take joint targets [rad] by name, received now; what was used and skipped.

        Unknown names, non-finite values and values without a name are skipped; targets are
        clamped to the calibrated range. Safe to call from another thread than :meth:`cycle`'s:
        the cycle takes the command whole, never half written.
        """
        unknown, not_finite, targets = [], [], {}
        for name, value in zip(names, positions):
            k = self.index.get(name)
            if k is None:
                unknown.append(name)
            elif not math.isfinite(value):
                not_finite.append(name)
            else:
                targets[k] = min(max(value, self.low[k]), self.high[k])
        used = min(len(names), len(positions)) - len(unknown) - len(not_finite)
        with self.command_lock:
            for k, value in targets.items():
                self.command[k] = value
            if used:
                self.command_age = 0.0
        return CommandUse(used, unknown, not_finite, max(0, len(positions) - len(names)))

    def next_goals(self, dt: float) -> np.ndarray:
        """Goals [rad] one step of ``dt`` [s] toward the command, or held (see the module docstring)."""
        with self.command_lock:
            command, fresh = self.command.copy(), self.command_age <= self.config.command_timeout
            self.command_age += dt
        if fresh and self.healthy and self.torque_on:
            step = np.clip(command - self.goals, -self.max_velocity * dt, self.max_velocity * dt)
            self.goals = np.clip(self.goals + step, self.low, self.high)
        return self.goals

    # -- the cycle ----------------------------------------------------------------------------
    def cycle(self, now: float) -> JointReading | None:
        """One write + read cycle at ``now`` [s]; the servos' state, or None when none answered. A
        cycle ``stall_time`` late, and no servo answering for longer, are recorded in the health."""
        gap = None if self.last_cycle is None else now - self.last_cycle
        self.last_cycle = now
        if gap is not None and gap > self.config.stall_time:
            self.health.record_late_cycle(gap)
        reading = self._write_and_read(now, 1.0 / self.config.rate_hz if gap is None else min(gap, 0.1))
        self.health.record_reading(now, reading is not None, self.config.stall_time)
        return reading

    def _write_and_read(self, now: float, dt: float) -> JointReading | None:
        """Write the goals one step of ``dt`` [s] on, read the states (reopen a lost port first)."""
        if not self.health.port_open:
            self._try_reopen(now)
            self.health.record_cycle(now, False)
            return None
        try:
            if self._silent_too_long():
                self._arm_watchdog()  # the servos may stop before the next write arrives
            goals = self.next_goals(dt)
            self.last_write = self.clock()
            self.bus.sync_write("goal_position", dict(zip(self.ids, self.calibration.to_ticks(goals))))
            read_at = self.read_clock()
            states = self._read_states()
            self._watch_following(now, goals, states)
        except BusError as error:
            self._lost(error, now)
            return None
        self.healthy = len(states) == len(self.ids) and not self.health.troubled()
        self.health.record_cycle(now, self.healthy)
        return self._reading(states, read_at)

    def _silent_too_long(self) -> bool:
        """Whether the last write every servo heard is REARM_SHARE of the watchdog period ago."""
        if self.last_write is None or not (self.watchdog_ids and self.config.bus_watchdog > 0):
            return False
        return self.clock() - self.last_write > REARM_SHARE * self.config.bus_watchdog

    def _watch_following(self, now: float, goals: np.ndarray, states: dict[int, ServoState]) -> None:
        """Judge which servos follow their goals (with torque on); re-arm an expired bus watchdog,
        reading at most one per cycle (a re-arm serves all; many stop at once when the bridge was
        not scheduled, and a read each would hold the cycle up)."""
        if not self.torque_on:
            return
        present = np.array([self._angle(j, states) for j in self.joints])
        stuck = self.monitor.update(now if self.servo_clock is None else self.servo_clock(), goals, present)
        checked = False
        for k, joint in enumerate(self.joints):
            problem = ""
            if stuck[k]:
                problem = (
                    f"at {present[k]:.3f} rad, goal {goals[k]:.3f} rad, not within "
                    f"{self.config.follow.tolerance:g} rad of its goals nor closing in for "
                    f"{self.config.follow.time:g} s"
                )
            newly = problem and not self.health.servos[joint.servo_id].not_following
            self.health.record_following(joint.servo_id, problem)
            if newly and not checked and joint.servo_id in self.watchdog_ids:
                checked = True
                self._rearm_if_expired(joint.servo_id)

    @staticmethod
    def _angle(joint, states: dict[int, ServoState]) -> float:
        """The joint angle [rad] the servo answered, NaN when it did not."""
        state = states.get(joint.servo_id)
        return math.nan if state is None else joint.to_angle(state.position)

    def _rearm_if_expired(self, servo_id: int) -> None:
        """Read the servo's Bus Watchdog; when it expired (goals refused), re-arm all servos."""
        try:
            expired = self.bus.read_register(servo_id, "bus_watchdog") == WATCHDOG_EXPIRED
        except BusError as error:
            if error.kind == "port":
                raise
            self.health.record_error(error.kind, str(error), servo_id)
            return
        if expired:
            name = self.health.servos[servo_id].name
            self.health.event(
                "watchdog", "warning", f"bus watchdog of {name} had expired (goals refused): re-armed"
            )
            self._arm_watchdog()

    def _read_states(self) -> dict[int, ServoState]:
        """All servos' states with one group read; none when it fails (the goals hold this cycle; no
        retry: a late answer must not cost several timeouts). After ``retries`` cycles in a row whose
        group read failed, the servos are read one by one to name the one that fails."""
        try:
            states = self.bus.read_states(self.ids)
        except BusError as error:
            if error.kind == "port":
                raise
            self.health.record_error(error.kind, str(error), error.servo_id)
            self.bus.clear_input()
            self.failed_group_reads += 1
            if self.failed_group_reads <= self.config.retries:
                return {}
            states = self._read_one_by_one()
        else:
            self.failed_group_reads = 0
        self._record_answers(states)
        return states

    def _read_one_by_one(self) -> dict[int, ServoState]:
        """Each servo's state with its own Read; failures are recorded against the servo. After
        SILENT_READS unanswered reads in a row the bus is taken as silent (nothing answers, or the
        machine is starving the servos' emulation) and the rest wait for the next cycle: a cycle
        never waits out one timeout per servo."""
        states, silent = {}, 0
        for servo_id in self.ids:
            try:
                states[servo_id] = self.bus.read_state(servo_id)
                silent = 0
            except BusError as error:
                if error.kind == "port":
                    raise
                self.health.record_error(error.kind, str(error), servo_id)
                self.bus.clear_input()
                silent = silent + 1 if error.kind == "timeout" else 0
                if silent == SILENT_READS:
                    break
        return states

    def _record_answers(self, states: dict[int, ServoState]) -> None:
        """Mark the servos that answered; describe their hardware alarms."""
        for servo_id, state in states.items():
            self.health.record_answer(servo_id, self._hardware_error(servo_id, state.error_bits))

    def _hardware_error(self, servo_id: int, bits: int) -> str:
        """The servo's hardware alarm in words ("" when none); Dynamixel's detail is read from it."""
        if not bits:
            return ""
        protocol = self.calibration.protocol
        if bits == DYNAMIXEL_ALERT_BIT:
            try:
                bits = self.bus.read_register(servo_id, "hardware_error_status")
            except BusError as error:
                return f"alert (Hardware Error Status unreadable: {error})"
        return hardware_error_text(protocol, bits)

    def _reading(self, states: dict[int, ServoState], read_at: object) -> JointReading | None:
        if not states:
            return None
        answered = [j for j in self.joints if j.servo_id in states]
        return JointReading(
            names=[j.joint for j in answered],
            positions=[j.to_angle(states[j.servo_id].position) for j in answered],
            velocities=[j.direction * states[j.servo_id].velocity * j.model.velocity_unit for j in answered],
            loads=[j.direction * states[j.servo_id].load / 1000.0 for j in answered],
            read_at=read_at,
        )

    # -- port loss ----------------------------------------------------------------------------
    def _lost(self, error: BusError, now: float) -> None:
        self.health.record_error(error.kind, str(error), error.servo_id)
        self.health.record_cycle(now, False)
        if error.kind != "port":
            try:  # late bytes, or an SDK left busy by the failed transaction, must not fail the next
                self.bus.clear_input()
            except BusError as failure:
                error = failure
        if error.kind == "port":
            self.bus.close()
            self.health.port_open = False
            self.healthy = False
            self.next_reopen = now + self.config.reopen_interval
            self.health.event(
                "port",
                "error",
                f"port lost ({error}); goals hold, reopening every {self.config.reopen_interval:g} s",
            )

    def _try_reopen(self, now: float) -> None:
        """Reopen a lost port when due and bring the servos up again from where they are."""
        if now < self.next_reopen:
            return
        self.next_reopen = now + self.config.reopen_interval
        self.retried.renew()
        try:
            self.bus.open()
            self._bring_up(now, torque=self.torque_on)
        except BusError as error:
            self.health.record_error(error.kind, str(error), error.servo_id)
            self.bus.close()
            return
        self.health.port_open = True
        self.health.port_reopens += 1
        self.monitor.reset()
        self.health.event("port", "info", "port reopened: servos brought up again from where they are")
