"""The ik_node's per-chain counters (:class:`~ik_solvers.control.statistics.ChainStats`) as diagnostic_msgs.

Each chain reports one DiagnosticStatus named ``<node>: <chain>``: solves, failures, refused
inputs, the last error, and the last and mean solve time [ms].
"""

from __future__ import annotations

from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus, KeyValue

from ik_solvers.control.statistics import ChainStats


def chain_status(node_name: str, chain: str, solver: str, stats: ChainStats) -> DiagnosticStatus:
    """The DiagnosticStatus of one chain: OK while the last input was solved, WARN otherwise."""
    mean = stats.total_solve_time / stats.solves if stats.solves else 0.0
    values = {
        "solver": solver,
        "solves": str(stats.solves),
        "failures": str(stats.failures),
        "refused_inputs": str(stats.refused),
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


def diagnostic_array(statuses: list[DiagnosticStatus], stamp) -> DiagnosticArray:
    """A DiagnosticArray of ``statuses`` stamped ``stamp``."""
    array = DiagnosticArray(status=statuses)
    array.header.stamp = stamp
    return array
