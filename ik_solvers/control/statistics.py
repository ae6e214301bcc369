"""What the ik_node counts per chain (solves, failures, refused inputs, solve times), without ROS.

:mod:`ik_solvers.node.diagnostics` publishes these counters as diagnostic_msgs.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class ChainStats:
    """What happened on one chain since start-up. Times in seconds."""

    solves: int = 0
    failures: int = 0
    refused: int = 0
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
            self.last_error = message

    def record_refusal(self, message: str) -> None:
        """Count one input refused before solving (malformed, stale, unknown frame...)."""
        self.refused += 1
        self.last_ok = False
        self.last_error = message
