"""A robot's body as the package uses it: its limbs and sole frames (see the package docstring)."""

from __future__ import annotations

from dataclasses import dataclass, replace

from ik_solvers.limbs.soles import derived_sole, existing_sole
from ik_solvers.limbs.tree import Limb, Limbs, find_limbs
from ik_solvers.model import RobotModel

SOLE_SUFFIX = "_sole"


@dataclass(frozen=True)
class Body:
    """The limbs of a robot and the model they are chains of.

    Attributes:
        model: the robot, with a sole frame added to each foot that had none (named
            ``<foot link>_sole``).
        limbs: legs (tips: the soles), arms and other limbs.
        added_soles: the sole frames this package added (empty when the description has them).
        whole_body_problem: why the robot cannot stand or walk ("" when it can: two 6-DoF legs
            with sole frames).
    """

    model: RobotModel
    limbs: Limbs
    added_soles: tuple[str, ...]
    whole_body_problem: str

    @property
    def legs(self) -> tuple[Limb, Limb] | None:
        """(left, right) legs, or None."""
        return self.limbs.legs

    @property
    def sole_links(self) -> tuple[str, str] | None:
        """(left, right) sole frames when the robot can stand, else None."""
        if self.whole_body_problem:
            return None
        return self.legs[0].tip_link, self.legs[1].tip_link

    @property
    def chains(self) -> dict[str, tuple[str, str]]:
        """Chain name → (base link, tip link): the legs, then the arms."""
        limbs = (*(self.legs or ()), *self.limbs.arms)
        return {limb.name: (limb.base_link, limb.tip_link) for limb in limbs}


def find_body(model: RobotModel) -> Body:
    """The limbs of ``model``, with sole frames found or made (package docstring)."""
    limbs = find_limbs(model)
    if limbs.legs is None or limbs.no_legs:
        return Body(model, limbs, (), limbs.no_legs)
    frames, legs, problems = {}, [], []
    for leg in limbs.legs:
        try:
            sole = existing_sole(model, leg.end_link)
            if sole is None:
                sole = _free_name(model, leg.end_link + SOLE_SUFFIX)
                frames[sole] = (leg.end_link, derived_sole(model, leg.end_link))
        except ValueError as error:  # no geometry, or a mesh that does not load
            problems.append(str(error))
            sole = leg.end_link
        legs.append(replace(leg, tip_link=sole))
    model = model.with_frames(frames) if frames else model
    limbs = replace(limbs, legs=(legs[0], legs[1]))
    return Body(model, limbs, tuple(frames), "; ".join(problems))


def _free_name(model: RobotModel, name: str) -> str:
    """``name``, or ``name_2``, ``name_3``… when the model already has a link so called."""
    candidate, count = name, 1
    while candidate in model.links:
        count += 1
        candidate = f"{name}_{count}"
    return candidate
