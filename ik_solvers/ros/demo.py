"""Placeholder demo: load the packaged humanoid and print its limb chains.

Run with ``make demo`` or ``ros2 run ik_solvers ik_demo``. This does not start
ROS yet; the simulated humanoid driven by the IK node replaces it.
"""

from __future__ import annotations

import sys

from ik_solvers import RobotModel
from ik_solvers.resources import package_share_path

BASE_LINK = "base_link"
TIPS = ("l_sole", "r_sole", "l_wrist", "r_wrist")


def describe_chain(model: RobotModel, base: str, tip: str) -> str:
    """One line per joint of the chain ``base``→``tip``: name and limits [rad or m]."""
    chain = model.chain(base, tip)
    lines = [f"{base} -> {tip}: {len(chain.joint_names)} joints"]
    for name, low, high in zip(chain.joint_names, chain.lower, chain.upper):
        lines.append(f"  {name:<20s} [{low:+.3f}, {high:+.3f}]")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Print the chains of the URDF given as first argument (default: the packaged humanoid)."""
    args = sys.argv[1:] if argv is None else argv
    path = args[0] if args else package_share_path("urdf", "humanoid.urdf")
    model = RobotModel.from_urdf_file(path)
    print(f"robot model from {path}")
    for tip in TIPS:
        print(describe_chain(model, BASE_LINK, tip))
    return 0


if __name__ == "__main__":
    sys.exit(main())
