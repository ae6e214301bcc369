"""The servo bridge's health as diagnostic_msgs: one status for the bus, one per servo.

Bus status ``<node>: bus``: OK while every servo answered in the last cycle and follows its goal;
WARN while some servo fails, reports a hardware error or does not follow its goal; ERROR while the
port is lost or no servo has answered for the stall time (no joint_states). Per servo ``<node>: <joint> (id N)``: OK, or ERROR with the last error, the hardware
alarm in words, or "does not follow its goal: ..." with where it is and where it should be.
"""

from __future__ import annotations

from diagnostic_msgs.msg import DiagnosticStatus, KeyValue

from ik_solvers.hardware.bus_health import BusHealth, ServoHealth


def _values(values: dict[str, object]) -> list[KeyValue]:
    return [KeyValue(key=key, value=str(value)) for key, value in values.items()]


def bus_status(node_name: str, protocol: str, port: str, health: BusHealth) -> DiagnosticStatus:
    """The whole bus: rate, cycles, errors by kind, port state."""
    troubled, stuck = health.troubled(), health.not_following()
    if not health.port_open:
        level, message = DiagnosticStatus.ERROR, f"port lost: {health.last_error}"
    elif health.stalled_since is not None:
        level, message = (
            DiagnosticStatus.ERROR,
            f"no servo answers (joint_states stopped): {health.last_error}",
        )
    elif troubled or stuck:
        parts = [f"servos in trouble: {', '.join(s.name for s in troubled)}"] if troubled else []
        parts += [f"not following their goals: {', '.join(s.name for s in stuck)}"] if stuck else []
        level, message = DiagnosticStatus.WARN, "; ".join(parts)
    else:
        level, message = DiagnosticStatus.OK, "all servos answering"
    values = {
        "protocol": protocol,
        "port": port,
        "cycle_hz": f"{health.cycle_rate():.1f}",
        "cycles": health.cycles,
        "good_cycles": health.good_cycles,
        "errors": health.total_errors,
        **{f"errors.{kind}": count for kind, count in sorted(health.errors.items())},
        "port_reopens": health.port_reopens,
        "stalls": health.stalls,
        "late_cycles": health.late_cycles,
        "longest_gap_s": f"{health.longest_gap:.3f}",
        "last_error": health.last_error,
    }
    return DiagnosticStatus(
        level=level, name=f"{node_name}: bus", message=message, hardware_id=port, values=_values(values)
    )


def servo_status(node_name: str, servo: ServoHealth) -> DiagnosticStatus:
    """One servo: OK, or ERROR naming what is wrong."""
    if servo.hardware_error:
        level, message = DiagnosticStatus.ERROR, f"hardware error: {servo.hardware_error}"
    elif servo.failing:
        level, message = DiagnosticStatus.ERROR, servo.last_error
    elif servo.not_following:
        level, message = DiagnosticStatus.ERROR, f"does not follow its goal: {servo.not_following}"
    else:
        level, message = DiagnosticStatus.OK, "ok"
    values = {"id": servo.servo_id, "errors": servo.errors, "last_error": servo.last_error}
    return DiagnosticStatus(
        level=level,
        name=f"{node_name}: {servo.joint} (id {servo.servo_id})",
        message=message,
        hardware_id=f"servo {servo.servo_id}",
        values=_values(values),
    )
