"""The humanoids the walk is checked on: factory variants of other lengths, widths and masses.

Used by ``test/test_walk_offline.py`` and ``bench/walk_sim_bench.py``. Run as a script to write
their URDFs for ``ik_demo --urdf``: ``python test/walking_robots.py DIR`` writes
``DIR/<name>.urdf`` for every variant.
"""

from __future__ import annotations

import sys
from pathlib import Path

from humanoid_factory import HumanoidSpec, LegDims, humanoid_urdf

WALKING_VARIANTS = {
    # thigh 0.26 m, shank 0.24 m (packaged: 0.20, 0.20), wider legs, links 1.6x heavier, 20 N m legs
    "long_legs_heavier": HumanoidSpec(
        leg=LegDims(thigh=0.26, shank=0.24, w=0.03), mass_scale=1.6, leg_servo=(20.0, 4.8)
    ),
    # thigh 0.16 m, shank 0.15 m, links 0.7x as heavy, 8 N m legs
    "short_legs_lighter": HumanoidSpec(
        leg=LegDims(thigh=0.16, shank=0.15), mass_scale=0.7, leg_servo=(8.0, 4.8)
    ),
    # hips 0.07 m from the middle (packaged: 0.06), W 0.025 m: soles 0.19 m apart (0.16), 1.2x links
    "wider_hips": HumanoidSpec(leg=LegDims(hip_y=0.07, w=0.025), mass_scale=1.2, leg_servo=(14.0, 4.8)),
    # a 3.5 kg torso (packaged: 2 kg), 14 N m legs
    "heavier_torso": HumanoidSpec(torso_mass=3.5, leg_servo=(14.0, 4.8)),
}


def variant_urdf(name: str) -> str:
    """URDF XML of the walking variant ``name`` (a key of WALKING_VARIANTS)."""
    return humanoid_urdf(WALKING_VARIANTS[name])


def main(folder: str) -> None:
    """Write every variant's URDF into ``folder`` (created if missing)."""
    path = Path(folder)
    path.mkdir(parents=True, exist_ok=True)
    for name in WALKING_VARIANTS:
        (path / f"{name}.urdf").write_text(variant_urdf(name))
        print(path / f"{name}.urdf")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python test/walking_robots.py DIR   (writes DIR/<variant>.urdf)")
    main(sys.argv[1])
