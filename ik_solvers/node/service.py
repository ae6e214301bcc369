"""The ``solve_ik`` service (ik_solvers_interfaces/srv/SolveIK): answers, never raises.

Every field of the request is honoured: ``chain``; ``target`` in any link frame of the model (''
= the chain's base); ``pole`` in the target's frame when ``use_pole``; ``solver`` ('' = the chain's
configured one); ``seed`` by joint name ('' = the current state; joints it omits come from the
current state); ``timeout`` [s] (0 = configured; the jacobian solver's time budget); ``publish``
(a successful solution also becomes the chain's goal and is commanded, velocity-limited).
A failure of any kind is ``success = False`` with a message saying what was wrong and what is
accepted.
"""

from __future__ import annotations

import math
import traceback
from collections.abc import Callable

import numpy as np
from rclpy.clock import Clock

from ik_solvers.control.commander import Commander, Limb, RequestError
from ik_solvers.node import messages
from ik_solvers.node.messages import INPUT_ERRORS, MessageError
from ik_solvers_interfaces.srv import SolveIK


class SolveIKHandler:
    """Turns SolveIK requests into solves of a :class:`Commander`."""

    srv_type = SolveIK

    def __init__(self, commander: Commander, publish: Callable[[Limb, np.ndarray], None]) -> None:
        """Args: publish(limb, q) commands a solution (called when the request asks for it)."""
        self.commander = commander
        self.publish = publish
        self.clock = Clock()

    def handle(self, request: SolveIK.Request, response: SolveIK.Response) -> SolveIK.Response:
        """Fill ``response``; every error becomes success False with a message."""
        try:
            self._solve(request, response)
        except INPUT_ERRORS as error:
            response.success, response.message = False, str(error)
        except Exception as error:  # noqa: BLE001 - the service must answer whatever went wrong
            response.success = False
            response.message = f"internal error ({type(error).__name__}: {error}); please report it"
            traceback.print_exc()
        return response

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
        seed = self._seed(limb, request.seed)
        result = self.commander.solve(limb, target, pole, seed, solver)
        response.success = result.success
        response.solution = messages.joint_state(limb.chain.joint_names, result.q, self.clock.now().to_msg())
        response.position_error = float(result.position_error)
        response.orientation_error = float(result.orientation_error)
        response.iterations = int(result.iterations)
        response.solver_used = kind
        response.message = result.message or ("solved" if result.success else "no solution")
        if request.publish:
            if result.success:
                self.publish(limb, result.q)
            response.message += "; published" if result.success else "; nothing published"

    def _seed(self, limb: Limb, seed) -> np.ndarray | None:
        """(n,) seed from a JointState by name, the current state filling joints it omits."""
        if not seed.name and not seed.position:
            return self.commander.seed(limb)
        if len(seed.name) != len(seed.position) or not np.all(np.isfinite(seed.position)):
            raise MessageError(
                f"seed has {len(seed.name)} names and {len(seed.position)} positions, or NaN/inf; "
                f"send finite positions, one per name, for joints among {list(limb.chain.joint_names)}"
            )
        given = dict(zip(seed.name, seed.position))
        unknown = sorted(set(given) - set(self.commander.frames.model.joints))
        if unknown:
            raise MessageError(
                f"seed names unknown joints {unknown}; chain joints: {list(limb.chain.joint_names)}"
            )
        current = self.commander.seed(limb)
        if current is None:
            current = limb.chain.rest_configuration()
        return np.array([given.get(name, current[i]) for i, name in enumerate(limb.chain.joint_names)])


def _timeout(value: float) -> float:
    if not math.isfinite(value) or value < 0.0:
        raise RequestError(f"timeout {value} is refused; send seconds > 0, or 0 for the configured timeout")
    return value
