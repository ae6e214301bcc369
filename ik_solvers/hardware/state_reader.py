"""The servo bridge's reads: every servo's state each cycle, the silent one named, alarms in words.

One group read ((Fast) Sync Read) a cycle, not retried: a late answer must not cost several
timeouts, the goals hold that cycle. When the group read keeps failing, the servos are read one
by one to name the one that fails; after ``SILENT_READS`` unanswered reads in a row the bus is
taken as silent and the rest wait for the next cycle. Every answer and hardware alarm is recorded
in :class:`~ik_solvers.hardware.bus_health.BusHealth`.

No ROS. Angles in radians, velocities in rad/s, loads as a share of the servo's maximum.
"""

from __future__ import annotations

from ik_solvers.hardware.bridge_config import JointReading
from ik_solvers.hardware.bus import BusError, ServoBus, ServoState
from ik_solvers.hardware.bus_health import BusHealth
from ik_solvers.hardware.calibration import Calibration
from ik_solvers.hardware.control_tables import DYNAMIXEL_ALERT_BIT, hardware_error_text

SILENT_READS = 3  # unanswered reads in a row after which a cycle stops reading servos one by one


class StateReader:
    """Reads the servos of ``calibration`` on ``bus`` (see the module docstring).

    Args:
        calibration: the servos (ids, joints, protocol).
        bus: the open bus.
        health: where answers and failures are counted.
        retries: cycles in a row whose group read may fail before the servos are read one by one.
    """

    def __init__(self, calibration: Calibration, bus: ServoBus, health: BusHealth, retries: int) -> None:
        self.calibration, self.bus, self.health, self.retries = calibration, bus, health, retries
        self.ids = list(calibration.servo_ids)
        self.failed_group_reads = 0  # cycles in a row whose group read failed

    def read(self) -> dict[int, ServoState]:
        """All servos' states with one group read; none when it fails. After ``retries`` cycles
        in a row whose group read failed, the servos are read one by one to name the one that
        fails. A lost port is raised (:class:`BusError` of kind "port")."""
        try:
            states = self.bus.read_states(self.ids)
        except BusError as error:
            if error.kind == "port":
                raise
            self.health.record_error(error.kind, str(error), error.servo_id)
            self.bus.clear_input()
            self.failed_group_reads += 1
            if self.failed_group_reads <= self.retries:
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
        if bits == DYNAMIXEL_ALERT_BIT:
            try:
                bits = self.bus.read_register(servo_id, "hardware_error_status")
            except BusError as error:
                return f"alert (Hardware Error Status unreadable: {error})"
        return hardware_error_text(self.calibration.protocol, bits)

    def reading(self, states: dict[int, ServoState], read_at: object) -> JointReading | None:
        """The joints' state from the servos' ``states`` (those that answered), dated ``read_at``
        (the bridge's read clock just before the read was sent); None when none did."""
        if not states:
            return None
        joints = self.calibration.joints
        answered = [j for j in joints if j.servo_id in states]
        return JointReading(
            names=[j.joint for j in answered],
            positions=[j.to_angle(states[j.servo_id].position) for j in answered],
            velocities=[j.direction * states[j.servo_id].velocity * j.model.velocity_unit for j in answered],
            loads=[j.direction * states[j.servo_id].load / 1000.0 for j in answered],
            read_at=read_at,
        )
