"""What ik_node's services share: the answer that never raises, and the seed of a request.

A service handler fills its response in a function that may raise; :func:`answer` turns every
error into ``success = False`` with a message saying what was wrong and what is accepted (names
echoed in it cut short), so that a bad request never takes the node down. :class:`ServiceHandler`
is a handler's common part.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable
from typing import TypeVar

import numpy as np
from rclpy.clock import Clock
from sensor_msgs.msg import JointState

from ik_solvers.control.commander import Commander, Limb
from ik_solvers.control.statistics import shortened
from ik_solvers.node.messages import INPUT_ERRORS, MessageError

Request = TypeVar("Request")
Response = TypeVar("Response")


def answer(solve: Callable[[Request, Response], None], request: Request, response: Response) -> Response:
    """``response`` filled by ``solve(request, response)``; any error becomes success False with
    a message (an unexpected one also prints its traceback to the node's stderr)."""
    try:
        solve(request, response)
    except INPUT_ERRORS as error:
        response.success, response.message = False, str(error)
    except Exception as error:  # noqa: BLE001 - the service must answer whatever went wrong
        response.success = False
        response.message = f"internal error ({type(error).__name__}: {error}); please report it"
        traceback.print_exc()
    response.message = shortened(response.message)
    return response


class ServiceHandler:
    """Answers one service's requests about a :class:`Commander`'s limbs: subclasses set
    ``srv_type`` and fill the response in ``_solve`` (which may raise)."""

    srv_type: type

    def __init__(self, commander: Commander) -> None:
        self.commander = commander
        self.clock = Clock()  # stamps the joint states of answers

    def handle(self, request, response):
        """Fill ``response``; every error becomes success False with a message."""
        return answer(self._solve, request, response)

    def _solve(self, request, response) -> None:
        raise NotImplementedError


def request_seed(commander: Commander, limb: Limb, seed: JointState) -> tuple[np.ndarray | None, str]:
    """(n,) seed [rad or m] from a JointState by joint name, the current state filling the joints
    it omits (an empty one: the current state, None when nothing is known), clipped into the joint
    limits as the solvers clip seeds; and what the answer should say about it ("" when nothing):
    the joints it names that are the model's but not the chain's (ignored), the entries clipped.

    Raises:
        MessageError: names and positions differ in number, a position is NaN/inf, or a name is no
            joint of the model.
    """
    if not seed.name and not seed.position:
        return commander.current_state(limb), ""
    chain = limb.chain
    if len(seed.name) != len(seed.position) or not np.all(np.isfinite(seed.position)):
        raise MessageError(
            f"seed has {len(seed.name)} names and {len(seed.position)} positions, or NaN/inf; "
            f"send finite positions, one per name, for joints among {list(chain.joint_names)}"
        )
    given = dict(zip(seed.name, seed.position))
    unknown = sorted(set(given) - set(commander.frames.model.joints))
    if unknown:
        raise MessageError(f"seed names unknown joints {unknown}; chain joints: {list(chain.joint_names)}")
    current = commander.current_state(limb)
    if current is None:
        current = chain.rest_configuration()
    q = np.array([given.get(name, current[i]) for i, name in enumerate(chain.joint_names)])
    clipped = np.minimum(np.maximum(q, chain.lower), chain.upper)
    outside = [
        f"{name} {value:.4g} outside [{low:.4g}, {high:.4g}]"
        for name, value, low, high, kept in zip(chain.joint_names, q, chain.lower, chain.upper, clipped)
        if value != kept
    ]
    ignored = sorted(set(given) - set(chain.joint_names))
    note = f"; seed entries of joints of other chains ignored: {ignored}" if ignored else ""
    if outside:
        note += f"; seed clipped into the joint limits (accepted: within them): {', '.join(outside)}"
    return clipped, note
