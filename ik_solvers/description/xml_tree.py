"""Robot description XML read with a real XML parser (xml.etree): comments, processing
instructions, single- or double-quoted attributes and any attribute order are all fine.

Never search description XML with regular expressions: a commented-out ``<link>`` or a
single-quoted attribute is invisible to the parser and fatal to a pattern.
"""

from __future__ import annotations

import io
from xml.etree import ElementTree

from ik_solvers.description.errors import DescriptionError

XACRO_NAMESPACE = "http://www.ros.org/wiki/xacro"
XACRO_NAMESPACES = (XACRO_NAMESPACE, "http://ros.org/wiki/xacro")  # both spellings are in use


def parse_xml(text: str, source: str = "robot description") -> ElementTree.Element:
    """The root element of ``text``; DescriptionError with the parser's line and column.

    Args:
        text: the XML document.
        source: what ``text`` is (a file name, a parameter), for the error message.
    """
    if not text.strip():
        raise DescriptionError(
            f"{source} is empty; a URDF (<robot>...</robot>) or xacro document is required"
        )
    try:
        return ElementTree.fromstring(text)
    except ElementTree.ParseError as error:
        line = error.position[0]
        lines = text.splitlines()
        hint = ""
        if line >= len(lines):  # the error is at the very end: the document stops early
            hint = f" (the document stops after {len(text)} characters: is it cut short?)"
        raise DescriptionError(
            f"URDF does not parse: {source} is not well-formed XML: {error}{hint}"
        ) from error


def robot_element(text: str, source: str = "robot description") -> ElementTree.Element:
    """The ``<robot>`` root of a URDF document; DescriptionError when the root is something else."""
    root = parse_xml(text, source)
    if root.tag != "robot":
        raise DescriptionError(f"{source} has root element <{root.tag}>; a URDF's root element is <robot>")
    return root


def declares_xacro(text: str) -> bool:
    """Whether the document declares the xacro namespace (xmlns:xacro=...) anywhere."""
    try:
        for _, (_, uri) in ElementTree.iterparse(io.StringIO(text), events=("start-ns",)):
            if uri in XACRO_NAMESPACES:
                return True
    except ElementTree.ParseError:
        return False  # parse_xml reports it with the position
    return False


def to_text(root: ElementTree.Element) -> str:
    """The document of ``root`` as a string (UTF-8 text, no XML declaration)."""
    return ElementTree.tostring(root, encoding="unicode")


def without_unnamed_visual_materials(text: str) -> str:
    """``text`` without the ``<material>`` elements of ``<visual>`` blocks that have no name.

    urdf_parser_py (like urdfdom) refuses the whole URDF for one: "Required attribute not set in XML:
    name". Makers publish such colours (Unitree's H1-2: ``<material><color rgba=.../></material>``
    in every visual); a visual's colour changes neither the kinematics, the masses nor the
    collision geometry, so they are left out. ``text`` comes back unchanged when it has none, or
    when it is not well-formed XML (the URDF parser then says where).
    """
    try:
        root = ElementTree.fromstring(text)
    except ElementTree.ParseError:
        return text
    unnamed = [
        (visual, material)
        for visual in root.iter("visual")
        for material in visual.findall("material")
        if material.get("name") is None
    ]
    for visual, material in unnamed:
        visual.remove(material)
    return to_text(root) if unnamed else text


def root_link(robot: ElementTree.Element) -> str:
    """The one link of a ``<robot>`` that is no joint's child.

    Raises:
        DescriptionError: no link, or several links without a parent (names them).
    """
    links = [link.get("name") for link in robot.findall("link")]
    children = {child.get("link") for child in robot.findall("joint/child")}
    roots = [link for link in links if link not in children]
    if len(roots) != 1:
        raise DescriptionError(
            f"a URDF must have exactly one root link (a link that is no joint's child), found {roots}"
        )
    return roots[0]
