"""The servo bridge without ROS: start-up checks, the write/read cycle, safety and recovery.

Each :meth:`ServoBridge.cycle` writes every servo's goal with one Sync Write and reads every
servo's present position, velocity and load with one (Fast) Sync Read. Its parts, each in its
own module: the goals, stepped toward the latest command within the velocity limits and the
calibrated range and held when the command is stale, or while a servo fails to answer or
reports a hardware error (:mod:`~ik_solvers.hardware.goal_stepper`); the reads, servo by servo
when the group read keeps failing (:mod:`~ik_solvers.hardware.state_reader`); the servos' bus
watchdogs (:mod:`~ik_solvers.hardware.bus_watchdog`). Failed transactions are counted per servo
in :class:`~ik_solvers.hardware.bus_health.BusHealth`. A lost port is reopened every
``reopen_interval`` seconds; the servos are then brought up again from where they are.

A servo that answers but does not follow its goal is found by
:class:`~ik_solvers.hardware.follow_monitor.FollowMonitor` and reported; if its bus watchdog had
expired after all (its goals refused without a word: a Sync Write gets no answer), it is re-armed.
The follow check judges time on :attr:`ServoBridge.servo_clock` when set: a simulated robot's
servos move in simulated time, which a loaded machine runs slower than the wall clock.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence

import numpy as np

from ik_solvers.hardware.bridge_config import BridgeConfig, CommandUse, JointReading
from ik_solvers.hardware.bus import BusError, ServoBus, ServoState
from ik_solvers.hardware.bus_health import BusHealth
from ik_solvers.hardware.bus_watchdog import BusWatchdog
from ik_solvers.hardware.calibration import Calibration
from ik_solvers.hardware.follow_monitor import FollowMonitor
from ik_solvers.hardware.goal_stepper import GoalStepper
from ik_solvers.hardware.setup_retries import SetupRetries
from ik_solvers.hardware.state_reader import StateReader


class StartupError(RuntimeError):
    """The bus or its servos are not what the calibration says; the message names them."""


class ServoBridge:
    """Drives the servos of ``calibration`` on ``bus`` (see the module docstring).

    Args:
        calibration: the robot's servos, checked against the URDF by the caller.
        bus: the protocol backend (opened by :meth:`start`).
        velocity_limits: joint name -> URDF velocity limit [rad/s].
        config: settings.
        chains: the joints of each chain (limb) whose goals step together along the straight line
            (:func:`~ik_solvers.hardware.goal_stepper.limb_chains` of the robot model); a joint in
            none steps on its own.
    """

    def __init__(
        self,
        calibration: Calibration,
        bus: ServoBus,
        velocity_limits: dict[str, float],
        config: BridgeConfig,
        chains: Sequence[Sequence[str]] = (),
    ) -> None:
        self.calibration = calibration
        self.bus = bus
        self.config = config
        self.joints = calibration.joints
        self.ids = list(calibration.servo_ids)
        max_velocity = np.array([config.velocity_scale * velocity_limits[j.joint] for j in self.joints])
        self.stepper = GoalStepper(self.joints, max_velocity, config.command_timeout, chains)
        self.low, self.high, self.index = self.stepper.low, self.stepper.high, self.stepper.index
        self.torque_on = False
        self.healthy = False
        self.last_cycle = None
        # [s] the time the servos move in, for the follow check: None = the cycle's (wall) time; a
        # simulated robot's (servo_bridge on use_sim_time) judges servos that move in simulated time
        self.servo_clock: Callable[[], float] | None = None
        # what stamps a reading (JointReading.read_at): read just before the group read is sent
        self.read_clock: Callable[[], object] = time.monotonic
        self.next_reopen = 0.0
        self.health = BusHealth.for_servos({j.servo_id: j.joint for j in self.joints})
        self.monitor = FollowMonitor(len(self.joints), config.follow)
        watchdog_ids = [j.servo_id for j in self.joints if j.model.has_bus_watchdog]
        self.watchdog = BusWatchdog(bus, watchdog_ids, config.bus_watchdog, self.health)
        self.reader = StateReader(calibration, bus, self.health, config.retries)
        self.retried = SetupRetries(bus, self.health)

    @property
    def goals(self) -> np.ndarray:
        """(n,) the goals [rad] last written (or about to be), in the calibration's joint order."""
        return self.stepper.goals

    @property
    def last_write(self) -> float | None:
        """[s] monotonic time of the last write every servo heard (their bus watchdogs count from it)."""
        return self.watchdog.last_write

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
        self.watchdog.write(0)  # no servo expires while the others get their writes; clears an expiry
        for joint, limit in zip(self.joints, self.stepper.max_velocity):
            units = math.ceil(limit / joint.model.velocity_unit)
            self.retried(lambda i=joint.servo_id, u=units: self.bus.write_register(i, "profile_velocity", u))
        self.bus.sync_write("goal_position", dict(zip(self.ids, self.calibration.to_ticks(self.goals))))
        if torque:
            self.set_torque(True)
        self.watchdog.arm()
        self.healthy = True

    def _take_present(self, states: dict[int, ServoState]) -> None:
        """Goals and command := the present positions (clamped to the calibrated range)."""
        self.stepper.hold_at(np.array([j.to_angle(states[j.servo_id].position) for j in self.joints]))

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
        """Take joint targets [rad] by name, received now (:meth:`GoalStepper.set_command`: unknown
        names and non-finite values skipped, targets clamped); safe from another thread."""
        return self.stepper.set_command(names, positions)

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
            if self.watchdog.silent_too_long():
                self.watchdog.arm()  # the servos may stop before the next write arrives
            goals = self.stepper.next_goals(dt, self.healthy and self.torque_on)
            self.watchdog.heard()
            self.bus.sync_write("goal_position", dict(zip(self.ids, self.calibration.to_ticks(goals))))
            read_at = self.read_clock()
            states = self.reader.read()
            self._watch_following(now, goals, states)
        except BusError as error:
            self._lost(error, now)
            return None
        self.healthy = len(states) == len(self.ids) and not self.health.troubled()
        self.health.record_cycle(now, self.healthy)
        return self.reader.reading(states, read_at)

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
            if newly and not checked and joint.servo_id in self.watchdog.ids:
                checked = True
                self.watchdog.rearm_if_expired(joint.servo_id)

    @staticmethod
    def _angle(joint, states: dict[int, ServoState]) -> float:
        """The joint angle [rad] the servo answered, NaN when it did not."""
        state = states.get(joint.servo_id)
        return math.nan if state is None else joint.to_angle(state.position)

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
