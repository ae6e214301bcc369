"""How long after its last cmd_vel the walk stops: the dead-man timeout plus the pattern generator.

No ROS: walk_node's logic in one loop at ``walk.dt`` with ``config/walk.yaml``. The robot walks at
0.08 m/s for a few seconds; ``cmd_vel_timeout`` after the last command the command becomes zero
(as walk_node does on either clock); the generator changes its plan no earlier than
``command_delay`` later and finishes the step under way. Prints, per walk length, when the last
swing ended after the last cmd_vel [s].

Run: ``python bench/walk_stop.py``.
"""

from __future__ import annotations

import math

from ik_solvers.model import RobotModel
from ik_solvers.resources import package_share_path
from ik_solvers.walk.config import load_walk_config
from ik_solvers.whole_body import WalkingPatternGenerator

TIMEOUT = 0.5  # [s] config/walk.yaml's cmd_vel_timeout
SPEED = 0.08  # [m/s]
HORIZON = 30.0  # [s] simulated in all


def last_swing_after(model: RobotModel, walk_seconds: float) -> float:
    """[s] from the last cmd_vel (at ``walk_seconds``) to the end of the last swing; NaN: no swing."""
    config = load_walk_config()
    generator = WalkingPatternGenerator(model, config)
    generator.set_command(SPEED, 0.0, 0.0)
    zeroed, last_swing = False, math.nan
    while generator.time < HORIZON:
        if not zeroed and generator.time >= walk_seconds + TIMEOUT:
            generator.set_command(0.0, 0.0, 0.0)
            zeroed = True
        tick = generator.step()
        if tick.support != "double":
            last_swing = tick.time
    return last_swing - walk_seconds


def main() -> None:
    model = RobotModel.from_urdf_string(package_share_path("urdf", "humanoid.urdf").read_text())
    config = load_walk_config()
    print(f"cmd_vel_timeout {TIMEOUT} s, command_delay {config.command_delay} s, step {config.step_period} s")
    for walk_seconds in (0.0, 3.0, 5.0, 7.5, 10.0):
        print(
            f"walked {walk_seconds:4.1f} s: last swing ended {last_swing_after(model, walk_seconds):.2f} s after the last cmd_vel"
        )


if __name__ == "__main__":
    main()
