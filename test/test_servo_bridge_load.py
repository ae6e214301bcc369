"""ServoBridge (no ROS) on a loaded machine, through the vendors' SDKs against servo_bus_emulator
over a real pty: servos that answer late (the emulator's ``freeze`` fault: its process not
scheduled) are waited for at start-up; a bus that stops answering is reported as a stall of
joint_states, with each cycle bounded, and its end is reported too; a cycle that comes late is
reported. Both protocols.
"""

from __future__ import annotations

import time

import pytest
from test_servo_bridge import CALIBRATIONS, DT, bridge_on, emulator, run_cycles

from ik_solvers.hardware.state_reader import SILENT_READS


def events_of(bridge, key: str) -> list:
    """The bridge's queued events of one kind, oldest first."""
    return [e for e in bridge.health.events if e.key == key]


@pytest.mark.parametrize("protocol", sorted(CALIBRATIONS))
def test_start_up_waits_for_servos_that_answer_late(protocol, tmp_path):
    # 0.35 s without an answer: five attempts of the SDK's 34 ms each gave up after ~0.2 s.
    with emulator(protocol, tmp_path) as bus:
        bridge = bridge_on(bus.port, protocol)
        bus.command("freeze 0.35")
        bridge.start(time.monotonic())
        assert bridge.torque_on and all(s["torque"] == 1 for s in bus.state().values())
        assert bridge.health.errors["timeout"] > 0, "the freeze did not delay the start-up"
        bridge.shutdown()


@pytest.mark.parametrize("protocol", sorted(CALIBRATIONS))
def test_a_bus_that_stops_answering_is_reported_as_a_stall_and_its_end_too(protocol, tmp_path):
    with emulator(protocol, tmp_path) as bus:
        bridge = bridge_on(bus.port, protocol, stall_time=0.3)
        bridge.start(time.monotonic())
        run_cycles(bridge, 0.1)
        bus.command("freeze 1.0")
        before = bridge.health.errors["timeout"]
        start = time.monotonic()
        bridge.cycle(start)
        assert bridge.health.errors["timeout"] - before == 1  # the group read only: no retry in the cycle
        bridge.cycle(time.monotonic())
        # the group read again, then SILENT_READS servos one by one to name the silent one, not all 26
        assert bridge.health.errors["timeout"] - before <= 2 + SILENT_READS
        run_cycles(bridge, 2.0, lambda: bridge.health.stalled_since is not None)
        assert bridge.health.stalls == 1
        last = events_of(bridge, "stall")[-1]
        assert last.level == "error" and last.text.startswith("no servo answered for 0."), last
        run_cycles(bridge, 3.0, lambda: bridge.health.stalled_since is None)
        assert bridge.health.stalled_since is None
        text = events_of(bridge, "stall")[-1].text
        assert text.startswith("servos answer again after ") and text.endswith(" s without joint_states"), (
            text
        )
        assert float(text.split()[4]) > 0.3, text
        bridge.shutdown()


def test_a_late_cycle_is_reported(tmp_path):
    with emulator("feetech", tmp_path) as bus:
        bridge = bridge_on(bus.port, "feetech")
        bridge.start(0.0)
        bridge.cycle(DT)
        bridge.cycle(DT + 0.8)
        assert bridge.health.late_cycles == 1
        assert events_of(bridge, "late")[-1].text.startswith("a bus cycle came 0.80 s after the one before")
        bridge.shutdown()
