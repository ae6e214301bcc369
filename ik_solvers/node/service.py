"""The ``solve_ik`` service (ik_solvers_interfaces/srv/SolveIK): answers, never raises.

Every field of the request is honoured: ``chain``; ``target`` in any link frame of the model (''
= the chain's base); ``pole`` in the target's frame when ``use_pole``; ``solver`` ('' = the chain's
configured one); ``seed`` by joint name ('' = the current state; joints it omits come from the
current state; joints of other chains are ignored, and the answer says so); ``timeout`` [s] (0 = configured; the jacobian solver's time budget); ``publish``
(a successful solution also becomes the chain's goal and is commanded, velocity-limited).
A failure of any kind is ``success = False`` with a message saying what was wrong and what is
accepted; names echoed in it are cut short.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from ik_solvers.control.commander import Commander, Limb, RequestError
from ik_solvers.node import messages
from ik_solvers.node.requests import ServiceHandler, request_seed
from ik_solvers.solvers.registry import kind_used
from ik_solvers_interfaces.srv import SolveIK


class SolveIKHandler(ServiceHandler):
    """Turns SolveIK requests into solves of a :class:`Commander`."""

    srv_type = SolveIK

    def __init__(self, commander: Commander, publish: Callable[[Limb, np.ndarray], None]) -> None:
        """Args: publish(limb, q) commands a solution (called when the request asks for it)."""
        super().__init__(commander)
        self.publish = publish

    def _solve(self, request: SolveIK.Request, response: SolveIK.Response) -> None:
        limb = self.commander.limb(request.chain)
        kind = request.solver or limb.solver_kind
        timeout = _timeout(request.timeout)
        solver = None
        if kind != limb.solver_kind or timeout > 0.0:
            solver = self.commander.make_solver(kind, limb.chain, timeout)
        frame = request.target.header.frame_id
        target = self.commander.to_base(limb, messages.pose_to_matrix(request.target.pose), frame)
        pole = None
        if request.use_pole:
            pole = self.commander.point_to_base(limb, messages.point_to_array(request.pole, "pole"), frame)
        seed, seed_note = request_seed(self.commander, limb, request.seed)
        result = self.commander.solve(limb, target, pole, seed, solver)
        response.success = result.success
        response.solution = messages.joint_state(limb.chain.joint_names, result.q, self.clock.now().to_msg())
        response.position_error = float(result.position_error)
        response.orientation_error = float(result.orientation_error)
        response.iterations = int(result.iterations)
        response.solver_used = kind_used(kind, solver or limb.solver)
        response.continuous = bool(result.continuous)
        response.message = result.message or ("solved" if result.success else "no solution")
        response.message += seed_note
        if request.publish:
            jump = self.commander.jump_refusal(limb, result.q, target) if result.success else ""
            if result.success and not jump:
                self.publish(limb, result.q)
            response.message += "; published" if result.success and not jump else "; nothing published"
            if jump:
                response.message += f": {jump}"


def _timeout(value: float) -> float:
    if not math.isfinite(value) or value < 0.0:
        raise RequestError(f"timeout {value} is refused; send seconds > 0, or 0 for the configured timeout")
    return value
