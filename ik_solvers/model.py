"""URDF → RobotModel: the kinematic tree of a robot, and the serial chains cut from it.

A :class:`RobotModel` holds the joints of a URDF as a tree (parsed with urdf_parser_py).
:meth:`RobotModel.chain` cuts the serial chain between a link and one of its descendants; the
:class:`~ik_solvers.chain.Chain` it returns computes FK and Jacobians. Units follow the URDF
(REP-103: metres, radians).
"""

from __future__ import annotations

import difflib
import io
import math
from contextlib import redirect_stderr
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from urdf_parser_py import urdf as urdf_parser
from urdf_parser_py.xml_reflection import core as xml_reflection

from ik_solvers.chain import MOVABLE_TYPES, Chain, Joint
from ik_solvers.description import (
    DescriptionError,
    RobotDescription,
    description_from_string,
    load_description,
)
from ik_solvers.description.xml_tree import declares_xacro, without_unnamed_visual_materials

SUPPORTED_TYPES = MOVABLE_TYPES + ("fixed",)


class ModelError(ValueError):
    """The URDF or a requested chain is not usable; the message says what and why."""


@dataclass(frozen=True)
class Inertial:
    """A link's mass and centre of mass (the URDF ``<inertial>``; the inertia tensor is not kept).

    Attributes:
        mass: [kg], finite and >= 0.
        center: (3,) centre of mass in the link frame [m].
    """

    mass: float
    center: np.ndarray


SHAPE_KINDS = ("box", "cylinder", "sphere", "mesh")


@dataclass(frozen=True)
class CollisionShape:
    """One ``<collision>`` geometry of a link.

    Attributes:
        kind: "box", "cylinder", "sphere" or "mesh".
        origin: (4, 4) the geometry's frame in the link frame [m] (a box's or cylinder's centre).
        size: box: (3,) full edge lengths along the frame's x, y, z [m]; cylinder: (radius,
            length) [m], the axis along z; sphere: (radius,) [m]; mesh: (3,) scale factors.
        filename: mesh only: the file as the URDF names it (``package://``, ``file://`` or a path).
    """

    kind: str
    origin: np.ndarray
    size: np.ndarray
    filename: str = ""


def rpy_to_matrix(rpy: tuple[float, float, float]) -> np.ndarray:
    """URDF fixed-axis roll, pitch, yaw [rad] → (3, 3) rotation, R = Rz(yaw) Ry(pitch) Rx(roll)."""
    r, p, y = rpy
    cr, sr, cp, sp, cy, sy = math.cos(r), math.sin(r), math.cos(p), math.sin(p), math.cos(y), math.sin(y)
    return np.array(
        [
            [cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
            [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
            [-sp, cp * sr, cp * cr],
        ]
    )


def _origin_matrix(origin) -> np.ndarray:
    transform = np.eye(4)
    if origin is not None:
        transform[:3, :3] = rpy_to_matrix(origin.rpy or (0.0, 0.0, 0.0))
        transform[:3, 3] = origin.xyz or (0.0, 0.0, 0.0)
    return transform


def _joint_from_urdf(joint) -> Joint:
    if joint.type not in SUPPORTED_TYPES:
        raise ModelError(
            f"joint '{joint.name}' has type '{joint.type}'; supported types: {', '.join(SUPPORTED_TYPES)}"
        )
    axis = np.array(joint.axis if joint.axis is not None else (1.0, 0.0, 0.0), dtype=float)
    if joint.type != "fixed":
        norm = np.linalg.norm(axis)
        if not np.isfinite(norm) or norm < 1e-12:
            raise ModelError(f"joint '{joint.name}' has axis {axis.tolist()}; a non-zero axis is required")
        axis = axis / norm
    lower, upper, velocity, effort = _limits(joint)
    return Joint(
        joint.name,
        joint.type,
        joint.parent,
        joint.child,
        _origin_matrix(joint.origin),
        axis,
        lower,
        upper,
        velocity,
        effort,
        joint.mimic.joint if joint.mimic is not None else "",
    )


def _inertial(link) -> Inertial:
    inertial = link.inertial
    mass = float(inertial.mass) if inertial.mass is not None else 0.0
    if not (math.isfinite(mass) and mass >= 0.0):
        raise ModelError(f"link '{link.name}' has mass {mass}; a finite mass >= 0 kg is required")
    center = _origin_matrix(inertial.origin)[:3, 3]
    if not np.all(np.isfinite(center)):
        raise ModelError(f"link '{link.name}' has a non-finite inertial origin {center.tolist()}")
    return Inertial(mass, center)


def _collision_shapes(link) -> tuple[CollisionShape, ...]:
    """The link's collision geometries; ModelError for a size that is not finite and positive."""
    shapes = []
    for collision in link.collisions:
        geometry = collision.geometry
        if isinstance(geometry, urdf_parser.Box):
            kind, size = "box", geometry.size
        elif isinstance(geometry, urdf_parser.Cylinder):
            kind, size = "cylinder", (geometry.radius, geometry.length)
        elif isinstance(geometry, urdf_parser.Sphere):
            kind, size = "sphere", (geometry.radius,)
        elif isinstance(geometry, urdf_parser.Mesh):
            kind, size = "mesh", geometry.scale if geometry.scale is not None else (1.0, 1.0, 1.0)
        else:
            continue
        size = np.array(size if np.ndim(size) else (size,) * 3, dtype=float)
        if not np.all(np.isfinite(size) & (size > 0.0)):
            raise ModelError(
                f"link '{link.name}' has a collision {kind} of size {size.tolist()}; finite sizes > 0 are required"
            )
        filename = geometry.filename if kind == "mesh" else ""
        shapes.append(CollisionShape(kind, _origin_matrix(collision.origin), size, filename))
    return tuple(shapes)


def _limits(joint) -> tuple[float, float, float, float]:
    """(lower, upper, velocity, effort); continuous joints get [-pi, pi] and wrap.

    A movable joint's velocity limit [rad/s or m/s] bounds the node's commands, so one that is
    given must be positive (0, negative or NaN would switch speed limiting off); a joint whose
    ``<limit>`` is absent (allowed for continuous joints) has none (inf).
    """
    limit = joint.limit
    velocity = _velocity_limit(joint)
    effort = float(limit.effort) if limit is not None and limit.effort else math.inf
    if joint.type == "continuous":
        return -math.pi, math.pi, velocity, effort
    if joint.type == "fixed":
        return 0.0, 0.0, velocity, effort
    if limit is None or limit.lower is None or limit.upper is None:
        raise ModelError(f"{joint.type} joint '{joint.name}' needs <limit lower=... upper=...>")
    lower, upper = float(limit.lower), float(limit.upper)
    if not (math.isfinite(lower) and math.isfinite(upper)):
        hint = " (a joint that turns without end is type 'continuous')" if joint.type == "revolute" else ""
        raise ModelError(
            f"{joint.type} joint '{joint.name}' has limits [{lower}, {upper}]; finite limits are required{hint}"
        )
    if not lower <= upper:
        raise ModelError(f"joint '{joint.name}' has lower limit {lower} above upper limit {upper}")
    return lower, upper, velocity, effort


def _velocity_limit(joint) -> float:
    """The joint's URDF velocity limit [rad/s or m/s]; inf for fixed joints and absent limits."""
    limit = joint.limit
    if limit is None or limit.velocity is None:
        return math.inf
    velocity = float(limit.velocity)
    if joint.type == "fixed":
        return velocity if velocity > 0.0 else math.inf
    if not velocity > 0.0:  # also refuses NaN
        raise ModelError(
            f"joint '{joint.name}' has velocity limit {limit.velocity}; a positive velocity "
            "[rad/s or m/s] is required (it bounds how fast commands move the joint)"
        )
    return velocity


class RobotModel:
    """The kinematic tree of a URDF: links, joints and the joint that leads to each link."""

    def __init__(
        self,
        name: str,
        links: list[str],
        joints: list[Joint],
        inertials: dict[str, Inertial] | None = None,
        collisions: dict[str, tuple[CollisionShape, ...]] | None = None,
        source: Path | None = None,
    ) -> None:
        self.name = name
        self.inertials: dict[str, Inertial] = dict(inertials or {})  # links without one are absent
        self.collisions: dict[str, tuple[CollisionShape, ...]] = dict(collisions or {})  # same
        self.source = source  # the URDF file read, if any: relative mesh paths start from its folder
        self.links: tuple[str, ...] = tuple(links)
        self.joints: dict[str, Joint] = _by_name(joints)
        self._parent_joint: dict[str, Joint] = _parent_joints(joints, self.links)
        roots = [link for link in self.links if link not in self._parent_joint]
        if len(roots) != 1:
            raise ModelError(f"URDF must have exactly one root link, found {roots}")
        self.root: str = roots[0]
        _check_no_loop(self._parent_joint)

    @classmethod
    def from_urdf_string(cls, xml: str, source: Path | None = None) -> RobotModel:
        """Parse URDF XML (or a xacro document, expanded first: see :mod:`ik_solvers.description`);
        raise :class:`ModelError` with the parser's reason when it fails.

        ``source``: the file the XML came from (relative mesh paths are relative to its folder).
        """
        if declares_xacro(xml):
            xml = _described(description_from_string, xml, None, (), source.parent if source else None).xml
        robot = _parse_urdf(xml)
        joints = [_joint_from_urdf(j) for j in robot.joints]
        inertials = {link.name: _inertial(link) for link in robot.links if link.inertial is not None}
        shapes = {link.name: _collision_shapes(link) for link in robot.links}
        shapes = {name: found for name, found in shapes.items() if found}
        return cls(robot.name, [link.name for link in robot.links], joints, inertials, shapes, source)

    @classmethod
    def from_urdf_file(
        cls, path: str | Path, xacro_arguments: dict[str, str] | None = None, package_path: tuple = ()
    ) -> RobotModel:
        """Read and parse a URDF or xacro file (see :func:`ik_solvers.description.load_description`
        for ``xacro_arguments`` and ``package_path``)."""
        description = _described(load_description, path, xacro_arguments, package_path)
        return cls.from_urdf_string(description.xml, Path(path).absolute())

    def with_frames(self, frames: dict[str, tuple[str, np.ndarray]]) -> RobotModel:
        """A copy of this model with massless frame links added, each fixed to a link.

        Args:
            frames: new link name → (parent link, (4, 4) its pose in the parent link frame [m]).
        Raises:
            ModelError: a name is taken or a parent unknown.
        """
        joints = list(self.joints.values())
        for name, (parent, origin) in frames.items():
            if name in self.links:
                raise ModelError(f"cannot add frame '{name}': robot '{self.name}' has a link of that name")
            self._check_link(parent)
            zero = np.zeros(3)
            joints.append(
                Joint(
                    f"{name}_fixed",
                    "fixed",
                    parent,
                    name,
                    np.asarray(origin, float),
                    zero,
                    0.0,
                    0.0,
                    math.inf,
                    math.inf,
                )
            )
        links = [*self.links, *frames]
        return RobotModel(self.name, links, joints, self.inertials, self.collisions, self.source)

    def children(self, link: str) -> list[Joint]:
        """The joints whose parent is ``link``, in URDF order."""
        return [joint for joint in self.joints.values() if joint.parent == link]

    def parent_joint(self, link: str) -> Joint | None:
        """The joint leading to ``link``; None for the root."""
        return self._parent_joint.get(link)

    def chain(self, base_link: str, tip_link: str) -> Chain:
        """The serial chain from ``base_link`` down to its descendant ``tip_link``."""
        for link in (base_link, tip_link):
            self._check_link(link)
        path: list[Joint] = []
        link = tip_link
        while link != base_link:
            joint = self._parent_joint.get(link)
            if joint is None and tip_link in self.ancestors(base_link):
                raise ModelError(
                    f"'{tip_link}' is above '{base_link}', not below it: a chain runs from a link down "
                    f"to one of its descendants; swap them: chain('{tip_link}', '{base_link}')"
                )
            if joint is None:
                raise ModelError(
                    f"'{tip_link}' is not below '{base_link}': they are on different branches of "
                    f"'{self.name}'; a chain runs from a link to one of its descendants "
                    f"(ancestors of '{tip_link}': {', '.join(self.ancestors(tip_link))})"
                )
            path.append(joint)
            link = joint.parent
        return Chain(base_link, tip_link, path[::-1])

    def ancestors(self, link: str) -> list[str]:
        """Links from ``link``'s parent up to the root."""
        result = []
        while link in self._parent_joint:
            link = self._parent_joint[link].parent
            result.append(link)
        return result

    def _check_link(self, link: str) -> None:
        if link in self.links:
            return
        close = difflib.get_close_matches(link, self.links, n=3, cutoff=0.5)
        hint = f"; did you mean {', '.join(repr(c) for c in close)}?" if close else ""
        raise ModelError(f"unknown link '{link}' in robot '{self.name}'{hint}")


def _by_name(joints: list[Joint]) -> dict[str, Joint]:
    """Joint name → joint; ModelError when two joints share a name."""
    named: dict[str, Joint] = {}
    for joint in joints:
        if joint.name in named:
            raise ModelError(
                f"joint name '{joint.name}' is used twice (parents '{named[joint.name].parent}' and "
                f"'{joint.parent}'); every joint needs a name of its own"
            )
        named[joint.name] = joint
    return named


def _parent_joints(joints: list[Joint], links: tuple[str, ...]) -> dict[str, Joint]:
    """Child link → the joint that leads to it; ModelError for an undefined link or two parents."""
    defined = set(links)
    parent_joint: dict[str, Joint] = {}
    for joint in joints:
        for link in (joint.parent, joint.child):
            if link not in defined:
                raise ModelError(f"joint '{joint.name}' names link '{link}', which the URDF does not define")
        first = parent_joint.get(joint.child)
        if first is not None:
            raise ModelError(
                f"link '{joint.child}' has two parents: '{first.parent}' (joint '{first.name}') and "
                f"'{joint.parent}' (joint '{joint.name}'); a URDF is a tree, each link has one parent"
            )
        parent_joint[joint.child] = joint
    return parent_joint


def _check_no_loop(parent_joint: dict[str, Joint]) -> None:
    """ModelError naming the links of a loop, where following parents from a link comes back to it."""
    cleared: set[str] = set()
    for start in parent_joint:
        path, link = [start], start
        while link in parent_joint and link not in cleared:
            link = parent_joint[link].parent
            if link in path:
                loop = path[path.index(link) :] + [link]
                raise ModelError(
                    f"joints form a loop: {' → '.join(reversed(loop))}; a URDF is a tree, "
                    "each link's parents must lead up to the root"
                )
            path.append(link)
        cleared.update(path)


def _described(load, *arguments) -> RobotDescription:
    """``load(*arguments)``, a :class:`DescriptionError` raised as :class:`ModelError`."""
    try:
        return load(*arguments)
    except DescriptionError as error:
        raise ModelError(str(error)) from error


def _parse_urdf(xml: str):
    """urdf_parser_py's robot; its warnings are kept quiet, its errors become ModelError."""
    warnings: list[str] = []
    previous = xml_reflection.on_error
    xml_reflection.on_error = warnings.append
    try:
        with redirect_stderr(io.StringIO()):
            robot = urdf_parser.URDF.from_xml_string(without_unnamed_visual_materials(xml))
    except Exception as error:  # the parser raises many types; all mean "not a usable URDF"
        raise ModelError(f"URDF does not parse: {error}") from error
    finally:
        xml_reflection.on_error = previous
    if not robot.links:
        raise ModelError("URDF does not parse: it has no <link>")
    return robot
