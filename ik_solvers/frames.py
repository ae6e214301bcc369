"""Poses of any link of a robot at a given joint state, and targets moved between link frames.

A target may be given in any link frame of the model; a solver wants it in its chain's base frame.
:class:`FrameTree` computes link poses through the model at the current joint state, using the
serial chain from the model's root down to each link (built once per link, then cached).
Poses are 4x4 homogeneous transforms [m]; joint positions in [rad] (revolute) or [m] (prismatic).
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping

import numpy as np

from ik_solvers.chain import Chain
from ik_solvers.model import RobotModel


class UnknownFrameError(ValueError):
    """A frame name that is not a link of the model; the message lists close valid names."""


class FrameTree:
    """Link poses of ``model`` in its root frame, at joint positions given by name."""

    def __init__(self, model: RobotModel) -> None:
        self.model = model
        self._chains: dict[str, Chain] = {}
        self._rest = {
            name: float(np.clip(0.0, joint.lower, joint.upper)) for name, joint in model.joints.items()
        }

    def has_frame(self, link: str) -> bool:
        """True when ``link`` is a link of the model."""
        return link in self.model.links

    def root_pose(self, link: str, positions: Mapping[str, float]) -> np.ndarray:
        """(4, 4) pose of ``link`` in the root frame.

        Args:
            link: a link of the model.
            positions: joint name → position; joints it omits sit at 0 clipped into their limits.
        Raises:
            UnknownFrameError: ``link`` is not a link of the model.
        """
        chain = self._root_chain(link)
        q = np.array([positions.get(name, self._rest[name]) for name in chain.joint_names], dtype=float)
        return chain.fk(q)

    def transform(
        self, pose: np.ndarray, frame: str, into: str, positions: Mapping[str, float]
    ) -> np.ndarray:
        """``pose`` (4, 4) given in link ``frame`` → the same pose in link ``into``'s frame."""
        if frame == into:
            return pose
        frame_in_root = self.root_pose(frame, positions)
        into_in_root = self.root_pose(into, positions)
        return np.linalg.solve(into_in_root, frame_in_root @ pose)

    def _root_chain(self, link: str) -> Chain:
        chain = self._chains.get(link)
        if chain is None:
            if not self.has_frame(link):
                raise UnknownFrameError(self._unknown_message(link))
            chain = self._chains[link] = self.model.chain(self.model.root, link)
        return chain

    def _unknown_message(self, link: str) -> str:
        close = difflib.get_close_matches(link, self.model.links, n=3, cutoff=0.5)
        hint = f"did you mean {', '.join(repr(c) for c in close)}? " if close else ""
        return (
            f"unknown frame '{link}': not a link of robot '{self.model.name}'; {hint}"
            f"valid frames are the model's links ({len(self.model.links)}, e.g. '{self.model.root}'), "
            "or an empty frame_id for the chain's base"
        )
