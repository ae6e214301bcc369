"""``servo_bus_emulator``: N emulated servos answering on a pseudo-terminal.

    servo_bus_emulator --calibration config/servos/humanoid_dynamixel.yaml --link /tmp/ttyDXL
    servo_bus_emulator --protocol feetech --ids 1-26 --baud-rate 1000000 --control

Prints one JSON line ``{"port": ...}`` with the path to open as the serial port (``--link``, a
symlink that survives a ``vanish`` fault, or the pty itself), then serves until interrupted. With
``--calibration`` the servo ids and models come from the robot's calibration file and each servo
starts at its joint's zero (clamped to its range); otherwise ``--ids`` of ``--model`` start at the
middle of their range; ``--start-offset`` moves every start position. ``--control`` reads fault commands from stdin (see
:mod:`ik_solvers.hardware.emulator.pty_bus`) and answers each with a JSON line. ``--sim`` takes the
positions from sim_node (:mod:`ik_solvers.hardware.emulator.sim_link`) and opens the port only once
sim_node is connected both ways (``--sim-timeout`` [s]; exit 1 with the reason when it is not).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ik_solvers.hardware.calibration import load_calibration
from ik_solvers.hardware.control_tables import DYNAMIXEL, PROTOCOLS, servo_model
from ik_solvers.hardware.emulator.devices import make_emulated_bus
from ik_solvers.hardware.emulator.pty_bus import PtyBus
from ik_solvers.hardware.emulator.servo import EmulatedServo
from ik_solvers.hardware.paced_loop import take_fifo_priority

DEFAULT_MODELS = {DYNAMIXEL: "XM430-W350", "feetech": "STS3215"}


def parse_ids(text: str) -> list[int]:
    """``"1-3,7"`` -> ``[1, 2, 3, 7]``."""
    ids = []
    for part in text.split(","):
        first, _, last = part.partition("-")
        ids += range(int(first), int(last or first) + 1)
    return ids


def make_servos(args: argparse.Namespace, position_source=None) -> tuple[str, list[EmulatedServo]]:
    """The protocol and the servos the command line asks for (``position_source``: see EmulatedServo)."""
    if args.calibration:
        calibration = load_calibration(args.calibration)
        servos = [
            EmulatedServo(
                servo_model(args.model) if args.model else j.model,
                j.servo_id,
                min(max(j.zero_ticks + args.start_offset, j.min_ticks), j.max_ticks),
                args.return_delay,
                position_source,
            )
            for j in calibration.joints
        ]
        return calibration.protocol, servos
    model = servo_model(args.model or DEFAULT_MODELS[args.protocol])
    start = sum(model.position_range) / 2 + args.start_offset
    return model.protocol, [EmulatedServo(model, i, start, args.return_delay) for i in parse_ids(args.ids)]


def parser() -> argparse.ArgumentParser:
    """The command line."""
    p = argparse.ArgumentParser(prog="servo_bus_emulator", description=__doc__.split("\n")[0])
    p.add_argument("--calibration", help="robot calibration file: servo ids, models, zero positions")
    p.add_argument("--protocol", choices=PROTOCOLS, default=DYNAMIXEL)
    p.add_argument("--model", help="servo model of every servo (default: the calibration's, or per protocol)")
    p.add_argument("--ids", default="1-26", help="servo ids without --calibration, e.g. 1-26")
    p.add_argument("--start-offset", type=int, default=0, help="[tick] added to every start position")
    p.add_argument("--baud-rate", type=int, default=1_000_000, help="[bit/s] pace of the bytes")
    p.add_argument("--return-delay", type=int, default=None, help="Return Delay Time register [2 µs]")
    p.add_argument("--link", type=Path, help="symlink to the pty, stable across a vanish fault")
    p.add_argument("--control", action="store_true", help="read fault commands from stdin")
    p.add_argument("--sim", action="store_true", help="positions from sim_node (needs --calibration and ROS)")
    p.add_argument(
        "--sim-timeout",
        type=float,
        default=60.0,
        help="[s] most wait for sim_node before the port opens (--sim); then exit 1",
    )
    p.add_argument(
        "--priority",
        type=int,
        choices=range(100),
        default=0,
        metavar="0-99",
        help="SCHED_FIFO priority of the bus loop (servos answer in hardware time); 0 = ordinary",
    )
    return p


def main(argv: list[str] | None = None) -> int:
    """Entry point of the console script."""
    args = parser().parse_args(argv)
    # first, so that every thread started later (the sim link's, DDS's) inherits it: a thread of
    # the ordinary policy holding the interpreter lock would hold the bus loop up
    scheduling = take_fifo_priority(args.priority) if args.priority else "ordinary"
    sim_link = None
    if args.sim:
        if not args.calibration:
            parser().error("--sim needs --calibration")
        from ik_solvers.hardware.emulator.sim_link import SimLink

        sim_link = SimLink(load_calibration(args.calibration))
        try:
            sim_link.wait_for_simulator(args.sim_timeout)
        except TimeoutError as error:
            sim_link.close()
            print(f"servo_bus_emulator: {error}", file=sys.stderr)
            return 1
    protocol, servos = make_servos(args, sim_link.position_source if sim_link else None)
    answered = sim_link.publish_goals if sim_link else None
    pty_bus = PtyBus(make_emulated_bus(protocol, servos), args.baud_rate, args.link, answered)
    port = pty_bus.open()
    print(
        json.dumps({"port": port, "protocol": protocol, "servos": len(servos), "scheduling": scheduling}),
        flush=True,
    )
    try:
        pty_bus.serve(control=sys.stdin.fileno() if args.control else None)
    except KeyboardInterrupt:
        pass
    finally:
        pty_bus.close()
        if sim_link is not None:
            sim_link.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
