"""What the ik_node counts per chain (solves, failures, refused inputs, solve times), without ROS.

:mod:`ik_solvers.node.diagnostics` publishes these counters as diagnostic_msgs.
"""

from __future__ import annotations

from dataclasses import dataclass

MAX_TEXT = 300  # [characters] of an error kept for diagnostics and logs


def shortened(text: str, limit: int = MAX_TEXT) -> str:
    """``text`` cut to about ``limit`` characters, saying how long it was."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text)} characters)"


@dataclass
class ChainStats:
    """What happened on one chain since start-up. Times in seconds."""

    solves: int = 0
    failures: int = 0
    refused: int = 0
    jumps_held: int = 0  # solutions not commanded because they jump (see Commander.jump_refusal)
    new_goals: int = 0  # solutions far from the goal that were commanded (far targets)
    last_far_solution: str = ""  # the last solution far from the goal: held jump or new goal, and why
    last_error: str = ""
    last_ok: bool = True
    last_solve_time: float = 0.0
    total_solve_time: float = 0.0

    def record_solve(self, success: bool, seconds: float, message: str) -> None:
        """Count one solve that took ``seconds``; a failure keeps ``message`` as the last error."""
        self.solves += 1
        self.last_solve_time = seconds
        self.total_solve_time += seconds
        self.last_ok = success
        if not success:
            self.failures += 1
            self.last_error = shortened(message)

    def record_jump(self, message: str) -> None:
        """Count one solution held back because it would jump to another branch."""
        self.jumps_held += 1
        self.last_ok = False
        self.last_error = shortened(message)
        self.last_far_solution = shortened(f"jump held: {message}")

    def record_far_solution(self, message: str) -> None:
        """Count one solution far from the goal that is commanded (a new goal), ``message`` saying so."""
        self.new_goals += 1
        self.last_far_solution = shortened(message)

    def record_refusal(self, message: str) -> None:
        """Count one input refused before solving (malformed, stale, unknown frame...)."""
        self.refused += 1
        self.last_ok = False
        self.last_error = shortened(message)


@dataclass
class JointStateStats:
    """What /joint_states brought since start-up: entries left out, joints measured beyond limits."""

    messages: int = 0
    unknown_names: int = 0  # entries naming no joint of the model
    non_finite_positions: int = 0  # entries of model joints with NaN/inf positions
    outside_limits: str = ""  # joints last measured outside their limits, described; "" when none

    def record(self, unknown: int, non_finite: int) -> None:
        """Count one message with ``unknown`` and ``non_finite`` entries left out."""
        self.messages += 1
        self.unknown_names += unknown
        self.non_finite_positions += non_finite
