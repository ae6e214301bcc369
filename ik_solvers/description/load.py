"""A robot description loaded as makers publish it: a URDF or xacro file, or XML text.

:func:`load_description` reads a file (``.urdf``, ``.xacro``, ``.urdf.xacro``; any file whose
root declares the xacro namespace is expanded), :func:`description_from_string` takes XML text
(a ``robot_description`` parameter). Both return a :class:`RobotDescription`: the URDF XML as
text plus what is needed to resolve its URIs later (the file and the package folders).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from ik_solvers.description.errors import DescriptionError
from ik_solvers.description.packages import resolve_uri
from ik_solvers.description.xacro_expand import expand_xacro
from ik_solvers.description.xml_tree import declares_xacro, parse_xml, robot_element, to_text


@dataclass(frozen=True)
class RobotDescription:
    """A URDF document and where its URIs resolve.

    Attributes:
        xml: the URDF XML (xacro already expanded), comments and all.
        source: the file it was read from; None when it was given as text.
        package_path: folders searched first for ``package://`` packages.
    """

    xml: str
    source: Path | None = None
    package_path: tuple[Path, ...] = ()

    def resolve(self, uri: str) -> Path:
        """The file ``uri`` (``package://``, ``file://``, a path) names; see
        :func:`ik_solvers.description.packages.resolve_uri`."""
        return resolve_uri(uri, self.package_path, self.source)

    def self_contained(self) -> str:
        """The URDF XML with every mesh URI that names an existing file rewritten as that file's
        absolute ``file://`` URI (others left as written), for a process that has neither the
        description's file nor its packages (a node given the XML as text). Comments are dropped."""
        robot = robot_element(self.xml)
        for mesh in robot.iter("mesh"):
            try:
                path = self.resolve(mesh.get("filename", ""))
            except DescriptionError:
                continue
            if path.is_file():
                mesh.set("filename", path.resolve().as_uri())
        return to_text(robot)


def description_from_string(
    xml: str,
    xacro_arguments: Mapping[str, str] | None = None,
    package_path: Sequence[str | Path] = (),
    near: Path | None = None,
) -> RobotDescription:
    """A description from XML text: a URDF, or a xacro document (expanded).

    Args:
        xml: the document.
        xacro_arguments: arguments for a xacro document; refused for a plain URDF.
        package_path: folders searched first for packages (``package://``, ``$(find ...)``).
        near: the file the text came from, if known (relative paths resolve against it).

    Raises:
        DescriptionError: not well-formed XML (with the parser's position), not a ``<robot>``,
            or a xacro document that does not expand.
    """
    folders = tuple(Path(p) for p in package_path)
    source = f"robot description from '{near}'" if near is not None else "robot description"
    parse_xml(xml, source)  # the parser's position, and whether the text stops early
    if declares_xacro(xml):
        xml = expand_xacro(xml, xacro_arguments, folders, is_text=True, near=near)
    elif xacro_arguments:
        raise DescriptionError(
            f"xacro arguments {sorted(xacro_arguments)} given, but the {source} is plain URDF "
            "(no xmlns:xacro declaration)"
        )
    robot_element(xml, source)
    return RobotDescription(xml, near, folders)


def load_description(
    path: str | Path,
    xacro_arguments: Mapping[str, str] | None = None,
    package_path: Sequence[str | Path] = (),
) -> RobotDescription:
    """A description from a URDF or xacro file.

    Args:
        path: the file; relative paths in it resolve against its folder, and the folders above
            it are searched for packages (after ``package_path`` and the ament index).
        xacro_arguments: xacro arguments (``name: value``).
        package_path: folders searched first for packages.

    Raises:
        DescriptionError: the file cannot be read, or see :func:`description_from_string`.
    """
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as error:
        raise DescriptionError(f"cannot read URDF file '{path}': {error.strerror}") from error
    folders = tuple(Path(p) for p in package_path)
    if path.name.endswith(".xacro") or declares_xacro(text):
        xml = expand_xacro(path, xacro_arguments, folders)
        robot_element(xml, f"'{path}' expanded")
        return RobotDescription(xml, path.absolute(), folders)
    return description_from_string(text, xacro_arguments, folders, near=path.absolute())
