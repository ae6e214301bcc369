"""The bus backends by protocol name: :func:`make_bus` (imports the SDKs; no ROS).

The backends import the interface from :mod:`ik_solvers.hardware.bus`; only this module imports the
backends, so that the interface never imports what builds on it.
"""

from __future__ import annotations

from ik_solvers.hardware.bus import ServoBus
from ik_solvers.hardware.control_tables import DYNAMIXEL, FEETECH
from ik_solvers.hardware.dynamixel_bus import DynamixelBus
from ik_solvers.hardware.feetech_bus import FeetechBus

BACKENDS = {DYNAMIXEL: DynamixelBus, FEETECH: FeetechBus}


def make_bus(protocol: str, port: str, baud_rate: int, **options) -> ServoBus:
    """The backend for ``protocol`` (``dynamixel`` or ``feetech``) on serial ``port``.

    Options: ``latency_timer_ms`` (the USB adapter's latency timer the SDK adds to its packet
    timeouts [ms]) and, for Dynamixel, ``fast_sync_read`` (bool; Feetech has no Fast Sync Read and
    ignores it).
    """
    if protocol not in BACKENDS:
        raise ValueError(f"unknown bus protocol {protocol!r}; accepted: {', '.join(BACKENDS)}")
    if protocol == FEETECH:
        options.pop("fast_sync_read", None)
    return BACKENDS[protocol](port, baud_rate, **options)
