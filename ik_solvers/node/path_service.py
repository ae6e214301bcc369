"""The ``solve_ik_path`` service (ik_solvers_interfaces/srv/SolveIKPath): answers, never raises.

A whole path of targets for one chain, solved with the chain's configured solver as
:func:`ik_solvers.control.path.solve_path` describes: the geometric 7-DoF arm plans its swivel over
the whole path, other solvers go target by target, each seeded with the previous answer. Request:
``chain``; ``targets``, each in any link frame of the model ('' = the chain's base), moved into the
chain's base with the current joint state; ``seed`` by joint name, as in SolveIK (empty: the
current state). Answer: one JointState per target, and per target ``met`` and ``continuous``.
Nothing is published. A failure of any kind is ``success = False`` with a message saying what was
wrong and what is accepted.
"""

from __future__ import annotations

import numpy as np

from ik_solvers.control.commander import Limb
from ik_solvers.control.path import PathAnswer, check_path_length, solve_path
from ik_solvers.node import messages
from ik_solvers.node.messages import INPUT_ERRORS, MessageError
from ik_solvers.node.requests import ServiceHandler, request_seed
from ik_solvers_interfaces.srv import SolveIKPath


class SolveIKPathHandler(ServiceHandler):
    """Turns SolveIKPath requests into path solves of a :class:`Commander`'s limbs."""

    srv_type = SolveIKPath

    def _solve(self, request: SolveIKPath.Request, response: SolveIKPath.Response) -> None:
        limb = self.commander.limb(request.chain)
        targets = self._targets(limb, request.targets)
        seed, seed_note = request_seed(self.commander, limb, request.seed)
        path = solve_path(self.commander, limb, targets, seed)
        stamp = self.clock.now().to_msg()
        response.solutions = [messages.joint_state(limb.chain.joint_names, q, stamp) for q in path.q]
        response.met = [bool(m) for m in path.met]
        response.continuous = [bool(c) for c in path.continuous]
        response.success = bool(path.met.all())
        response.solver_used = path.solver_used
        response.message = summary(path) + seed_note

    def _targets(self, limb: Limb, poses) -> np.ndarray:
        """(N, 4, 4) targets in the chain's base frame [m]; an error names the target it is about."""
        check_path_length(len(poses))
        targets = np.empty((len(poses), 4, 4))
        for index, pose in enumerate(poses):
            try:
                matrix = messages.pose_to_matrix(pose.pose)
                targets[index] = self.commander.to_base(limb, matrix, pose.header.frame_id)
            except INPUT_ERRORS as error:
                raise MessageError(f"targets[{index}]: {error}") from error
        return targets


def summary(path: PathAnswer) -> str:
    """How many targets were met and continuous; the first row of each kind that was not, and why."""
    count = len(path.met)
    parts = []
    for flags, what in ((path.met, "met"), (path.continuous, "continuous")):
        missed = np.flatnonzero(~flags)
        if len(missed) == 0:
            parts.append(f"all {what}")
            continue
        first = int(missed[0])
        parts.append(
            f"{len(missed)} not {what} (first: targets[{first}]: {path.messages[first] or 'no reason given'})"
        )
    return f"{count} targets, {path.solver_used}: {'; '.join(parts)}"
