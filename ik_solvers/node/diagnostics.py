"""The ik_node's per-chain counters (:class:`~ik_solvers.control.statistics.ChainStats`) as diagnostic_msgs.

Each chain reports one DiagnosticStatus named ``<node>: <chain>``: solves, failures, refused
inputs, solutions held back as jumps along a moving target, far targets commanded as new goals, what
the last solution far from the goal was (``jump held: …`` or ``new goal: …``, with the figures), the
last error, and the last and mean solve time [ms].
``<node>: joint_states`` reports what /joint_states brought: messages, entries left out (unknown
names, NaN/inf positions), the joints measured, and joints measured outside their limits (WARN
while there are some).
"""

from __future__ import annotations

from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus, KeyValue

from ik_solvers.control.statistics import ChainStats, JointStateStats


def chain_status(node_name: str, chain: str, solver: str, stats: ChainStats) -> DiagnosticStatus:
    """The DiagnosticStatus of one chain: OK while the last input was solved, WARN otherwise."""
    mean = stats.total_solve_time / stats.solves if stats.solves else 0.0
    values = {
        "solver": solver,
        "solves": str(stats.solves),
        "failures": str(stats.failures),
        "refused_inputs": str(stats.refused),
        "jumps_held": str(stats.jumps_held),
        "new_goals": str(stats.new_goals),
        "last_far_solution": stats.last_far_solution,
        "last_error": stats.last_error,
        "last_solve_time_ms": f"{1e3 * stats.last_solve_time:.3f}",
        "mean_solve_time_ms": f"{1e3 * mean:.3f}",
    }
    return DiagnosticStatus(
        level=DiagnosticStatus.OK if stats.last_ok else DiagnosticStatus.WARN,
        name=f"{node_name}: {chain}",
        message="ok" if stats.last_ok else stats.last_error,
        hardware_id=chain,
        values=[KeyValue(key=k, value=v) for k, v in values.items()],
    )


def joint_states_status(node_name: str, stats: JointStateStats, measured: int) -> DiagnosticStatus:
    """The DiagnosticStatus of /joint_states: WARN while a joint is measured outside its limits."""
    values = {
        "messages": str(stats.messages),
        "measured_joints": str(measured),
        "unknown_names": str(stats.unknown_names),
        "non_finite_positions": str(stats.non_finite_positions),
        "measured_outside_limits": stats.outside_limits,
    }
    outside = bool(stats.outside_limits)
    return DiagnosticStatus(
        level=DiagnosticStatus.WARN if outside else DiagnosticStatus.OK,
        name=f"{node_name}: joint_states",
        message=f"measured outside its limits: {stats.outside_limits}" if outside else "ok",
        hardware_id="joint_states",
        values=[KeyValue(key=k, value=v) for k, v in values.items()],
    )


def diagnostic_array(statuses: list[DiagnosticStatus], stamp) -> DiagnosticArray:
    """A DiagnosticArray of ``statuses`` stamped ``stamp``."""
    array = DiagnosticArray(status=statuses)
    array.header.stamp = stamp
    return array
