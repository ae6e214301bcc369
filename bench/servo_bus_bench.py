"""Servo bus figures: read+write cycle rate of all 26 servos at 1 Mbit/s for both protocols, against
the bus's own limit from the packet sizes; command-to-goal latency; recovery after each fault.

The bridge (:class:`ik_solvers.hardware.bridge.ServoBridge`, through the vendors' SDKs) runs in this
process against ``servo_bus_emulator`` in another, over a pseudo-terminal whose bytes the emulator
paces at the baud rate (10 bits a byte), with Return Delay Time 0 (as set for a fast bus).

- Bus limit: bytes of one cycle (Sync Write of 26 goals + the (Fast) Sync Read instruction + the
  answers), from the protocol documents' packet layouts; limit = baud / (10 x bytes).
- Flat out: cycles back to back for a few seconds; the median cycle time gives the rate.
- Paced at 100 Hz (the bridge's default): achieved rate and bus errors of that clean run.
- Command-to-goal latency: a command set at a random moment of the 100 Hz period until the Sync
  Write carrying it has left the bridge, plus its own time on the wire (last byte at the servo).
- Recovery: each fault injected while the bridge runs at 100 Hz; time from the end of the fault
  (for dropped/corrupted replies: their injection) to the first cycle in which every servo answered,
  and the rate over the following 0.5 s.
- A servo that does not follow: l_elbow stalled (``stall ID``: it answers, takes goals, stays) while
  its command moves away at 1 rad/s; time from the first cycle whose goal is beyond the follow
  tolerance of where it stands to the cycle in which the bridge reports it (servo_bridge publishes
  /diagnostics and logs in that same cycle).

Run: ``python bench/servo_bus_bench.py`` (``make bench``). The machine is shared: read medians.
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from pathlib import Path

from ik_solvers.hardware.bridge import ServoBridge
from ik_solvers.hardware.bridge_config import BridgeConfig
from ik_solvers.hardware.bus_backends import make_bus
from ik_solvers.hardware.calibration import load_calibration, urdf_limits
from ik_solvers.hardware.emulator.client import EmulatorProcess
from ik_solvers.model import RobotModel
from ik_solvers.resources import package_share_path

BAUD = 1_000_000
BITS_PER_BYTE = 10
RATE = 100.0  # [Hz]
FAULTS = (("drop 2", None, 0.0), ("corrupt 2", None, 0.0), ("missing 4", "restore 4", 0.5))
FAULTS += (("error 9 32", "error 9 0", 0.5), ("vanish 0.5", None, 0.5))


def cycle_bytes(protocol: str, servos: int, state_bytes: int, goal_bytes: int) -> dict[str, int]:
    """Bytes on the wire of one cycle, by packet (layouts of the protocol documents)."""
    if protocol == "dynamixel":  # header 4, id, length 2, instruction, ..., CRC 2
        return {
            "sync write": 14 + servos * (1 + goal_bytes),
            "fast sync read": 14 + servos,
            "answer": 8 + servos * (state_bytes + 4),  # one packet: error, id, data, CRC per servo
        }
    return {  # Feetech: header 2, id, length, instruction, ..., checksum
        "sync write": 8 + servos * (1 + goal_bytes),
        "sync read": 8 + servos,
        "answers": servos * (6 + state_bytes),  # one status packet per servo
    }


def make_bridge(protocol: str, port: str) -> ServoBridge:
    calibration = load_calibration(package_share_path("config", "servos", f"humanoid_{protocol}.yaml"))
    limits = urdf_limits(RobotModel.from_urdf_file(package_share_path("urdf", "humanoid.urdf")))
    bus = make_bus(protocol, port, BAUD)
    return ServoBridge(calibration, bus, {n: lim[2] for n, lim in limits.items()}, BridgeConfig(rate_hz=RATE))


def sway(bridge: ServoBridge, now: float) -> None:
    """A command that keeps every joint moving: a 0.2 rad saw tooth at 0.5 Hz inside its range."""
    middle = (bridge.low + bridge.high) / 2
    bridge.set_command(list(bridge.calibration.joint_names), list(middle + 0.2 * ((now % 2.0) - 1.0)))


def run_paced(bridge: ServoBridge, seconds: float, on_cycle=None) -> list[tuple[float, bool]]:
    """Cycles at RATE for ``seconds``; (end time, every servo answered) per cycle."""
    period, start = 1.0 / RATE, time.monotonic()
    cycles, k = [], 0
    while (now := time.monotonic()) - start < seconds:
        sway(bridge, now)
        if on_cycle:
            on_cycle(now)
        reading = bridge.cycle(now)
        cycles.append((time.monotonic(), reading is not None and len(reading.names) == len(bridge.ids)))
        k += 1
        time.sleep(max(0.0, start + k * period - time.monotonic()))
    return cycles


def flat_out(bridge: ServoBridge, seconds: float) -> float:
    """Median cycle time [s] with cycles back to back."""
    times, start = [], time.monotonic()
    while (now := time.monotonic()) - start < seconds:
        sway(bridge, now)
        bridge.cycle(now)
        times.append(time.monotonic() - now)
    return statistics.median(times)


def latency(bridge: ServoBridge, samples: int) -> list[float]:
    """Command-to-goal latencies [s] (see the module docstring)."""
    write_bytes = cycle_bytes(
        bridge.calibration.protocol, len(bridge.ids), 10, bridge.joints[0].model.size("goal_position")
    )
    wire = write_bytes["sync write"] * BITS_PER_BYTE / BAUD
    found, period = [], 1.0 / RATE
    original = bridge.bus.sync_write

    def timed_write(register, values):
        original(register, values)
        if pending and register == "goal_position":
            found.append(time.monotonic() + wire - pending.pop())

    bridge.bus.sync_write = timed_write
    pending: list[float] = []
    while len(found) < samples:
        start = time.monotonic()
        time.sleep(random.uniform(0.0, period))
        sway(bridge, time.monotonic())
        pending[:] = [time.monotonic()]
        time.sleep(max(0.0, start + period - time.monotonic()))
        bridge.cycle(time.monotonic())
    bridge.bus.sync_write = original
    return found


def recovery(bridge: ServoBridge, emulator: EmulatorProcess, fault: str, clear: str | None, hold: float):
    """(seconds to the first good cycle after the fault ended, rate [Hz] over the next 0.5 s, reported)."""
    errors_before = bridge.health.total_errors
    marks = {}

    def inject(now: float) -> None:
        if "fault" not in marks and now - marks.setdefault("t0", now) > 0.3:
            emulator.command(fault)
            marks["fault"] = time.monotonic()
        elif clear and "fault" in marks and "end" not in marks and now - marks["fault"] > hold:
            emulator.command(clear)
            marks["end"] = time.monotonic()

    cycles = run_paced(bridge, 2.5 + hold, inject)
    end = marks.get("end", marks["fault"] + (hold if fault.startswith("vanish") else 0.0))
    good = [t for t, ok in cycles if ok and t > end]
    back = good[0] - end if good else float("nan")
    window = [t for t in good if good[0] <= t < good[0] + 0.5] if good else []
    rate = (len(window) - 1) / (window[-1] - window[0]) if len(window) > 1 else 0.0
    return back, rate, bridge.health.total_errors > errors_before


def stall_report(bridge: ServoBridge, emulator: EmulatorProcess) -> float:
    """Seconds from the stalled elbow's goal leaving tolerance to its report (see the docstring)."""
    elbow = bridge.calibration.by_joint("l_elbow")
    k, record = bridge.index["l_elbow"], bridge.health.servos[elbow.servo_id]
    emulator.command(f"stall {elbow.servo_id}")
    at, start, out = None, time.monotonic(), None
    while not record.not_following and time.monotonic() - start < 5.0:
        now = time.monotonic()
        sway(bridge, now)
        if at is not None:
            bridge.set_command(["l_elbow"], [max(at - (now - start), bridge.low[k])])
        reading = bridge.cycle(now)
        if at is None and reading is not None:
            at = dict(zip(reading.names, reading.positions))["l_elbow"]
        if out is None and at is not None and abs(bridge.goals[k] - at) > bridge.config.follow.tolerance:
            out = now
        time.sleep(max(0.0, now + 1.0 / RATE - time.monotonic()))
    reported = now - out if record.not_following and out is not None else float("nan")
    emulator.command(f"restore {elbow.servo_id}")
    run_paced(bridge, 1.0)  # it follows again
    return reported


def bench(protocol: str, seconds: float, samples: int) -> None:
    with (
        tempfile.TemporaryDirectory() as folder,
        EmulatorProcess(
            [
                "--calibration",
                str(package_share_path("config", "servos", f"humanoid_{protocol}.yaml")),
                "--return-delay",
                "0",
                "--link",
                str(Path(folder) / "tty"),
            ]
        ) as emulator,
    ):
        bridge = make_bridge(protocol, emulator.port)
        bridge.start(time.monotonic())
        model = bridge.joints[0].model
        sizes = cycle_bytes(protocol, len(bridge.ids), bridge.bus.state_length, model.size("goal_position"))
        limit = BAUD / (BITS_PER_BYTE * sum(sizes.values()))
        median = flat_out(bridge, seconds)
        errors_before = bridge.health.total_errors
        stats_before = emulator.command("stats")
        cycles = run_paced(bridge, seconds)
        stats = emulator.command("stats")
        paced_rate = (len(cycles) - 1) / (cycles[-1][0] - cycles[0][0])
        paced_errors = bridge.health.total_errors - errors_before
        wire = (
            stats["bytes_in"] + stats["bytes_out"] - stats_before["bytes_in"] - stats_before["bytes_out"]
        ) / len(cycles)
        lat = sorted(latency(bridge, samples))
        print(f"\n{protocol}: {len(bridge.ids)} x {model.name} at {BAUD / 1e6:g} Mbit/s")
        print(
            f"  bytes per cycle        {sum(sizes.values())} ({', '.join(f'{k} {v}' for k, v in sizes.items())}); emulator counted {wire:.0f}"
        )
        print(f"  bus limit              {limit:6.1f} Hz")
        print(
            f"  flat out               {1 / median:6.1f} Hz  (median cycle {1e3 * median:.2f} ms) = {100 / median / limit:.0f} % of the limit"
        )
        print(f"  paced at {RATE:.0f} Hz         {paced_rate:6.1f} Hz, bus errors {paced_errors}")
        print(
            f"  command-to-goal        p50 {1e3 * lat[len(lat) // 2]:.2f} ms, p90 {1e3 * lat[int(0.9 * len(lat))]:.2f} ms, max {1e3 * lat[-1]:.2f} ms ({len(lat)} commands)"
        )
        for fault, clear, hold in FAULTS:
            back, rate, reported = recovery(bridge, emulator, fault, clear, hold)
            print(
                f"  fault {fault:<12} back after {1e3 * back:6.1f} ms, then {rate:6.1f} Hz, reported: {reported}"
            )
        reports = sorted(stall_report(bridge, emulator) for _ in range(5))
        print(
            f"  stalled servo reported after {', '.join(f'{1e3 * r:.0f}' for r in reports)} ms "
            f"(follow_time {bridge.config.follow.time:g} s, tolerance {bridge.config.follow.tolerance:g} rad)"
        )
        bridge.shutdown()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="[s] of each rate measurement")
    parser.add_argument("--samples", type=int, default=200, help="commands timed for the latency")
    parser.add_argument(
        "--protocol", choices=("dynamixel", "feetech"), nargs="*", default=["dynamixel", "feetech"]
    )
    args = parser.parse_args()
    for protocol in args.protocol:
        bench(protocol, args.seconds, args.samples)


if __name__ == "__main__":
    main()
