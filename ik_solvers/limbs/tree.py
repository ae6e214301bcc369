"""The limbs of a kinematic tree: serial chains of movable joints and which of them are legs and arms.

A *branch point* is a link with two or more child branches that hold movable joints. From the
root, each branch is followed while it does not split; where it ends without further movable
joints, it is a limb, from the branch point it left (its base: the torso or pelvis) to the last
link its joints move. A branch that splits again (a waist leading to a chest with arms and
head) is trunk, and its own branches are searched in turn, unless the split is a hand's: every
branch from it ends without splitting again, nearer to the split than the split is to the branch's
base (fingers on a palm); the limb then ends at the palm. Nothing here reads a link or joint name.

Which limb is which, at q = 0 in the root frame (REP-103: x forward, y left, z up):

- legs: the two limbs whose end links are lowest, taken to their sixth joint (a toe joint after
  the ankle is left out: the leg ends at the foot), when both have 6 movable joints, or when those
  end links are the robot's lowest bodies (feet of fewer joints: chains for IK, but no standing);
  the left one is the one further along +y;
- arms: of the other limbs, those whose first joint lies off the middle plane (|y| above
  SIDE_FRACTION of the widest first joint); per side the one with the most joints;
- everything else (a head, a tail, a second pair of arms): other limbs, not commanded by default.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ik_solvers.chain import MOVABLE_TYPES
from ik_solvers.limbs.foot import rigid_links
from ik_solvers.model import RobotModel

LEG_JOINTS = 6
SIDE_FRACTION = 0.25


@dataclass(frozen=True)
class Limb:
    """One limb of the tree.

    Attributes:
        name: "left_leg", "right_leg", "left_arm", "right_arm", or "limb_<end link>" for others.
        base_link: the branch point it leaves (torso, pelvis, chest).
        end_link: the last link its joints move (foot, hand, head).
        tip_link: the chain's tip: the sole for legs (:mod:`.body`); for the others, the first
            massless frame fixed to the end link (a tool frame the maker put there), else the
            first link fixed to it (a hand), else the end link.
        joint_names: its movable joints, from the base.
    """

    name: str
    base_link: str
    end_link: str
    tip_link: str
    joint_names: tuple[str, ...]


@dataclass(frozen=True)
class Limbs:
    """The limbs of a robot: legs (left, right) or None and why, arms, others."""

    legs: tuple[Limb, Limb] | None
    arms: tuple[Limb, ...]
    others: tuple[Limb, ...]
    no_legs: str = ""

    @property
    def every(self) -> tuple[Limb, ...]:
        """The legs, then the arms, then the other limbs."""
        return (*(self.legs or ()), *self.arms, *self.others)


def _moves(model: RobotModel) -> dict[str, bool]:
    """Link → whether a movable joint lies below it."""
    moves: dict[str, bool] = {}
    for link in reversed(_top_down(model)):
        moves[link] = any(j.type in MOVABLE_TYPES or moves[j.child] for j in model.children(link))
    return moves


def _top_down(model: RobotModel) -> list[str]:
    order, stack = [], [model.root]
    while stack:
        link = stack.pop()
        order.append(link)
        stack.extend(joint.child for joint in model.children(link))
    return order


def _segments(model: RobotModel) -> list[tuple[str, str, tuple[str, ...]]]:
    """(base link, end link, movable joints) of every limb (see the module docstring)."""
    moves = _moves(model)

    def branches(link: str) -> list:
        return [j for j in model.children(link) if j.type in MOVABLE_TYPES or moves[j.child]]

    def leaf_end(joint) -> str | None:
        """The end link of the branch from ``joint`` when it never splits, else None."""
        link = joint.child
        while len(following := branches(link)) == 1:
            link = following[0].child
        return None if following else link

    found, stack = [], [model.root]
    while stack:
        start = stack.pop()
        for joint in branches(start):
            path, link = [joint], joint.child
            while len(following := branches(link)) == 1:
                path.append(following[0])
                link = following[0].child
            if following and not _is_hand(model, start, link, [leaf_end(j) for j in following]):
                stack.append(link)
            else:
                found.append((start, link, tuple(j.name for j in path if j.type in MOVABLE_TYPES)))
    return found


def _is_hand(model: RobotModel, start: str, link: str, ends: list[str | None]) -> bool:
    """Whether the split at ``link`` is a hand's: every branch from it (its fingers) ends without
    splitting again, nearer to ``link`` than ``link`` is to ``start`` (the limb's base), at q = 0.
    A chest with arms and a head is trunk: its arms reach further than the waist below it."""
    if None in ends:
        return False
    palm = zero_pose(model, link)[:3, 3]
    reach = np.linalg.norm(palm - zero_pose(model, start)[:3, 3])
    return all(np.linalg.norm(zero_pose(model, end)[:3, 3] - palm) < reach for end in ends)


def _to_ankle(model: RobotModel, segment):
    """A lowest limb of more than LEG_JOINTS joints (a toe joint after the ankle) as a leg: its
    first LEG_JOINTS joints, ending at the link the last of them moves (the foot)."""
    base, _, joints = segment
    if len(joints) <= LEG_JOINTS:
        return segment
    return base, model.joints[joints[LEG_JOINTS - 1]].child, joints[:LEG_JOINTS]


def _tool_frame(model: RobotModel, link: str) -> str:
    """The first massless, geometry-free link fixed to ``link`` (a tool frame), else the first
    link fixed to it (a hand), else ``link``."""
    fixed = [joint.child for joint in model.children(link) if joint.type == "fixed"]
    frames = [child for child in fixed if child not in model.inertials and child not in model.collisions]
    return (frames or fixed or [link])[0]


def find_limbs(model: RobotModel) -> Limbs:
    """The legs, arms and other limbs of ``model`` (see the module docstring)."""
    segments = _segments(model)
    ends = {end: zero_pose(model, end)[:3, 3] for _, end, _ in segments}
    order = sorted(segments, key=lambda s: ends[s[1]][2])
    legs, no_legs = None, ""
    lowest = [_to_ankle(model, segment) for segment in order[:2]]
    ends.update({end: zero_pose(model, end)[:3, 3] for _, end, _ in lowest})
    six = len(lowest) == 2 and all(len(s[2]) == LEG_JOINTS for s in lowest)
    counts = ", ".join(f"'{end}' ({len(joints)} joints)" for _, end, joints in lowest) or "none"
    if six or (len(lowest) == 2 and _stands_on(model, [end for _, end, _ in lowest])):
        left, right = sorted(lowest, key=lambda s: -ends[s[1]][1])
        tips = (left[1], right[1]) if six else (_tool_frame(model, left[1]), _tool_frame(model, right[1]))
        legs = (_limb(model, "left_leg", left, tips[0]), _limb(model, "right_leg", right, tips[1]))
        order = order[2:]
    if not six:
        no_legs = (
            f"no 6-DoF legs: the two limbs ending lowest must have {LEG_JOINTS} movable joints each to "
            f"stand and walk; the lowest limbs of '{model.name}' end at {counts}"
        )
    no_legs = "; ".join(problem for problem in (no_legs, _sideways(model, lowest)) if problem)
    arms, others = _arms(model, order)
    return Limbs(legs, arms, others, no_legs)


def _sideways(model: RobotModel, lowest: list) -> str:
    """Why left and right cannot be told when the two lowest limbs end further apart along the
    root's x than along its y at q = 0 (a root frame turned from REP-103, as CAD exporters leave
    it), else ""."""
    if len(lowest) != 2:
        return ""
    (_, first, _), (_, second, _) = lowest
    dx, dy, _ = np.abs(zero_pose(model, first)[:3, 3] - zero_pose(model, second)[:3, 3])
    if dx <= dy:
        return ""
    return (
        f"the feet '{first}' and '{second}' lie {dx * 1e3:.0f} mm apart along the root's x and "
        f"{dy * 1e3:.0f} mm along its y: the root link '{model.root}' must be REP-103 (x forward, y left, "
        "z up) for left and right legs and arms to be told apart; add a root frame so turned"
    )


def _stands_on(model: RobotModel, ends: list[str]) -> bool:
    """Whether the links ``ends`` are the lowest bodies (links with mass or collision geometry) of
    the robot at q = 0 (link origins; the links fixed to them count as theirs): its feet, whatever
    their joint count."""
    feet = {link for end in ends for link in rigid_links(model, end)}  # with what is fixed to them
    bodies = {link for link in model.links if link in model.inertials or link in model.collisions}
    others = [zero_pose(model, link)[2, 3] for link in bodies - feet]
    return not others or max(zero_pose(model, end)[2, 3] for end in ends) < min(others)


def _arms(model: RobotModel, segments: list) -> tuple[tuple[Limb, ...], tuple[Limb, ...]]:
    """Per side the limb with most joints whose first joint is off the middle plane; the rest."""
    if not segments:
        return (), ()
    sides = {s: _first_joint_y(model, s) for s in segments}
    width = max(abs(y) for y in sides.values())
    arms = []
    for name, sign in (("left_arm", 1.0), ("right_arm", -1.0)):
        side = [s for s in segments if sign * sides[s] > SIDE_FRACTION * width > 0.0]
        if side:
            arms.append((name, max(side, key=lambda s: len(s[2]))))
    chosen = {s for _, s in arms}
    others = [_limb(model, f"limb_{s[1]}", s, _tool_frame(model, s[1])) for s in segments if s not in chosen]
    return tuple(_limb(model, name, s, _tool_frame(model, s[1])) for name, s in arms), tuple(others)


def _first_joint_y(model: RobotModel, segment) -> float:
    """y [m] in the root frame of the limb's first movable joint at q = 0."""
    return float(zero_pose(model, model.joints[segment[2][0]].child)[1, 3])


def zero_pose(model: RobotModel, link: str) -> np.ndarray:
    """(4, 4) pose of ``link`` in the root frame with every joint at 0."""
    chain = model.chain(model.root, link)
    return chain.fk(np.zeros(chain.n))


def _limb(model: RobotModel, name: str, segment, tip: str) -> Limb:
    base, end, joints = segment
    return Limb(name, base, end, tip, joints)
