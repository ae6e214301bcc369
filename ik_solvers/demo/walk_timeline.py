"""The free-standing demo's timeline (no ROS): posture phases, then velocity commands.

Posture phases, sent by the demo as whole-body targets (soles where they stand, support, CoM
target, torso height), all quasi-static: stand, squat, shift the weight left and right, lift the
right foot then the left (the CoM over the other sole first). Then ``walk_node`` takes over and
the demo sends ``cmd_vel``: forward ``FORWARD`` [m], turn ``TURN`` [rad] in place, sidestep
``SIDESTEP`` [m] to the left, each followed by a pause. Speeds are a fraction of what the robot's
step limits allow (from its URDF through the pattern generator), each held for the whole number of
steps that walks the distance, so other robots walk the same distances at their own pace (a
command held distance / speed walks less by the start of the walk: 1.7 % on the ROBOTIS OP3). Times
in seconds.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ik_solvers.whole_body import StanceSolver, WalkingPatternGenerator

FORWARD, TURN, SIDESTEP = 1.0, np.pi / 2, 0.3  # [m], [rad], [m]
SPEED_FRACTION = 0.9  # of the generator's largest command
PAUSE = 4.0  # [s] after each walking command (the plan finishes its steps)
SQUAT_RATIO = 0.08  # squat depth / leg length
SHIFT_RATIO = 0.6  # weight shift: fraction of the way to each sole's centre


@dataclass(frozen=True)
class PosturePose:
    """One instant of the posture phases: support, CoM target (2,) [m], torso height [m], and the
    lift [m] of the swing sole ("left" / "right" / None)."""

    support: str
    com: np.ndarray
    height: float
    lifted: str | None
    lift: float


@dataclass(frozen=True)
class WalkCommand:
    """A velocity command held for ``duration`` [s]: what it does, (forward, lateral, yaw rate)."""

    name: str
    duration: float
    command: tuple[float, float, float]


def _smooth(t: float, start: float, end: float) -> float:
    """0 before ``start``, 1 after ``end``, a cosine ramp between."""
    tau = min(max((t - start) / (end - start), 0.0), 1.0)
    return 0.5 - 0.5 * np.cos(np.pi * tau)


class PostureTimeline:
    """The posture phases for a robot standing at the generator's initial stance.

    Args:
        generator: a fresh pattern generator (its first tick gives the stance and sizes).
        stance: the robot's stance solver, for :meth:`reachable` (None: every height is taken
            as reachable).
    """

    DURATION = 24.0  # [s]

    def __init__(self, generator: WalkingPatternGenerator, stance: StanceSolver | None = None) -> None:
        self.stance = stance
        geometry = generator.geometry
        tick = generator.step()
        self.left, self.right = tick.left_sole, tick.right_sole
        self.height = tick.torso_height
        self.depth = SQUAT_RATIO * geometry.leg_length
        self.lift_height = geometry.step_height
        self.centres = {
            "left": geometry.soles[0].center_in_world(self.left),
            "right": geometry.soles[1].center_in_world(self.right),
        }
        self.middle = 0.5 * (self.centres["left"] + self.centres["right"])

    def reachable(self, height: float, tolerance: float = 1e-4) -> float:
        """The torso height [m] nearest ``height`` at or below it where the first posture's stance
        solves (bisection to ``tolerance`` [m] down to the stance height): near straight legs the
        posture's soles may be out of reach, and ik_node would leave such targets unanswered."""
        if self.stance is None or self._solves(height):
            return height
        low, high = self.height, height
        while high - low > tolerance:
            middle = 0.5 * (low + high)
            low, high = (middle, high) if self._solves(middle) else (low, middle)
        return low

    def _solves(self, height: float) -> bool:
        return self.stance.solve(self.left, self.right, height, com_target=self.middle).success

    def at(self, t: float) -> PosturePose:
        """The posture at ``t`` [s] from the start of the phases."""
        height = self.height - self.depth * (_smooth(t, 2.0, 4.0) - _smooth(t, 4.5, 6.5))
        toward_left = SHIFT_RATIO * (_smooth(t, 7.0, 8.0) - _smooth(t, 8.5, 10.0))
        toward_right = SHIFT_RATIO * (_smooth(t, 8.5, 10.0) - _smooth(t, 10.5, 11.5))
        com = self.middle + toward_left * (self.centres["left"] - self.middle)
        com = com + toward_right * (self.centres["right"] - self.middle)
        for side, other, start in (("right", "left", 12.0), ("left", "right", 18.0)):
            over = _smooth(t, start, start + 1.5) - _smooth(t, start + 4.5, start + 6.0)
            if over > 0.0:
                com = self.middle + over * (self.centres[other] - self.middle)
                lift = self.lift_height * (
                    _smooth(t, start + 2.0, start + 2.8) - _smooth(t, start + 3.4, start + 4.2)
                )
                support = other if lift > 0.0 or over > 0.99 else "double"
                return PosturePose(support, com, height, side if lift > 0.0 else None, lift)
        return PosturePose("double", com, height, None, 0.0)

    def moment(self, name: str) -> float:
        """[s] of a named moment for pictures: stance, squat, shift, right lifted, left lifted."""
        return {"stance": 1.0, "squat": 4.2, "shift left": 8.2, "right lifted": 15.2, "left lifted": 21.2}[
            name
        ]


def walk_commands(generator: WalkingPatternGenerator) -> list[WalkCommand]:
    """Forward, turn in place, sidestep left, each then a pause; speeds from the step limits, each
    held as long as the plan needs to walk the whole distance or angle (a whole number of steps:
    :meth:`~ik_solvers.whole_body.footsteps.FootstepPlanner.command_for`)."""
    pause = (0.0, 0.0, 0.0)
    commands = []
    moves = (("forward", FORWARD, 0), ("turn", TURN, 2), ("sidestep", SIDESTEP, 1))  # name, amount, axis
    for name, amount, index in moves:
        rate, duration = generator.planner.command_for(
            index, amount, SPEED_FRACTION * generator.max_command[index]
        )
        command = [0.0, 0.0, 0.0]
        command[index] = rate
        commands += [
            WalkCommand(name, duration, (command[0], command[1], command[2])),
            WalkCommand("stop", PAUSE, pause),
        ]
    return commands
