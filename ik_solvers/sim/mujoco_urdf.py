"""A URDF description made ready for MuJoCo's URDF importer, and the mesh files it needs.

MuJoCo reads a URDF's meshes by file name only (``package://`` and folders stripped, looked for
in ``<mujoco><compiler meshdir=...>``) and reads STL, OBJ and MSH. Here every mesh the simulator
loads is resolved through the description (``package://``, ``file://``, relative paths; see
:class:`~ik_solvers.description.RobotDescription`), read, converted when MuJoCo cannot read its
format (COLLADA ``.dae``, PLY, ...: through trimesh, to binary STL), and handed to MuJoCo as an
in-memory asset under a unique name. A ``meshdir`` the URDF sets for MuJoCo is applied here
(relative to the URDF's folder) and then removed, so that it is never applied twice.

Visual geometry is dropped, as MuJoCo's importer does by default, unless the URDF's own
``<mujoco><compiler discardvisual="false"/>`` keeps it. A mesh that cannot be found or read
raises :class:`~ik_solvers.description.DescriptionError` naming the link, the URI and the
places looked in.
"""

from __future__ import annotations

import io
from pathlib import Path
from xml.etree import ElementTree

from ik_solvers.description import DescriptionError, RobotDescription, robot_element, root_link
from ik_solvers.description.xml_tree import to_text

MUJOCO_FORMATS = (".stl", ".obj", ".msh")  # read by MuJoCo itself


def _compiler(robot: ElementTree.Element) -> ElementTree.Element | None:
    return robot.find("mujoco/compiler")


def _keeps_visuals(robot: ElementTree.Element) -> bool:
    compiler = _compiler(robot)
    return compiler is not None and compiler.get("discardvisual", "true").strip().lower() == "false"


def _take_meshdir(robot: ElementTree.Element) -> str | None:
    """The URDF's own MuJoCo ``meshdir``, removed from the document (it is applied here)."""
    compiler = _compiler(robot)
    if compiler is None or "meshdir" not in compiler.attrib:
        return None
    return compiler.attrib.pop("meshdir")


def _candidates(uri: str, description: RobotDescription, meshdir: str | None) -> tuple[list[Path], str]:
    """Files ``uri`` may name, in order, and why none may exist (an unresolved URI)."""
    candidates, reason = [], ""
    relative = "://" not in uri and not Path(uri).is_absolute()
    base = description.source.parent if description.source is not None else None
    if meshdir is not None and relative and base is not None:
        candidates.append(base / meshdir / uri)
    try:
        candidates.append(description.resolve(uri))
    except DescriptionError as error:
        reason = str(error)
    if meshdir is not None and base is not None:  # what MuJoCo's importer would read
        candidates.append(base / meshdir / Path(uri.split("://")[-1]).name)
    return list(dict.fromkeys(candidates)), reason


def _mesh_file(uri: str, link: str, description: RobotDescription, meshdir: str | None) -> Path:
    candidates, reason = _candidates(uri, description, meshdir)
    for path in candidates:
        if path.is_file():
            return path
    looked = f"; looked for {', '.join(str(p) for p in candidates)}" if candidates else ""
    because = f" ({reason})" if reason else ""
    raise DescriptionError(f"mesh '{uri}' of link '{link}' not found{because}{looked}")


def _unfound_meshes(robot: ElementTree.Element, description: RobotDescription):
    """(link, ``<visual>``/``<collision>`` element, why) of every mesh in ``robot`` (the URDF's
    root element, its ``meshdir`` still in place) that the simulator loads (visuals only when
    the URDF keeps them) and that names no file it can find."""
    compiler = _compiler(robot)
    meshdir = None if compiler is None else compiler.get("meshdir")
    kinds = ("visual", "collision") if _keeps_visuals(robot) else ("collision",)
    for link in robot.findall("link"):
        for element in [e for e in link if e.tag in kinds]:
            mesh = element.find("geometry/mesh")
            if mesh is None:
                continue
            try:
                _mesh_file(mesh.get("filename", ""), link.get("name", "?"), description, meshdir)
            except DescriptionError as error:
                yield link, element, str(error)


def missing_meshes(description: RobotDescription) -> list[str]:
    """One line per mesh of ``description`` that the simulator loads (collisions; visuals when the
    URDF keeps them) and cannot find: "collision mesh 'URI' of link 'L' not found; looked for ..."."""
    robot = robot_element(description.xml, "robot description")
    return [f"{element.tag} {why}" for _, element, why in _unfound_meshes(robot, description)]


def without_missing_meshes(description: RobotDescription) -> RobotDescription:
    """``description`` with the elements of :func:`missing_meshes` taken out (inertials, joints and
    all other geometry kept; comments dropped): for a description published without some of its
    mesh files."""
    robot = robot_element(description.xml, "robot description")
    for link, element, _ in list(_unfound_meshes(robot, description)):
        link.remove(element)
    return RobotDescription(to_text(robot), description.source, description.package_path)


def _mujoco_mesh(path: Path, uri: str) -> tuple[str, bytes]:
    """(extension, bytes) MuJoCo reads for the mesh file ``path``."""
    suffix = path.suffix.lower()
    if suffix in MUJOCO_FORMATS and not _is_ascii_stl(path):
        return suffix, path.read_bytes()
    return ".stl", _converted_to_stl(path, uri)


def _is_ascii_stl(path: Path) -> bool:
    """An ASCII STL (MuJoCo reads binary STL only): starts with ``solid`` and its size is not
    the binary size 84 + 50 × (triangle count in bytes 80-83)."""
    if path.suffix.lower() != ".stl":
        return False
    with path.open("rb") as stream:
        head = stream.read(84)
    if len(head) < 84 or not head.lstrip().lower().startswith(b"solid"):
        return False
    return path.stat().st_size != 84 + 50 * int.from_bytes(head[80:84], "little")


def _converted_to_stl(path: Path, uri: str) -> bytes:
    """Binary STL of a mesh file in a format trimesh reads (COLLADA needs pycollada)."""
    import trimesh

    try:
        mesh = trimesh.load(str(path), force="mesh")
    except Exception as error:  # trimesh raises many kinds for unreadable or unsupported files
        raise DescriptionError(
            f"mesh '{uri}' ({path}) cannot be converted for MuJoCo, which reads {', '.join(MUJOCO_FORMATS)}: "
            f"{error}"
        ) from error
    if len(mesh.faces) == 0:
        raise DescriptionError(f"mesh '{uri}' ({path}) has no triangles")
    buffer = io.BytesIO()
    mesh.export(buffer, file_type="stl")
    return buffer.getvalue()


def _load_meshes(robot: ElementTree.Element, description: RobotDescription) -> dict[str, bytes]:
    """Point every ``<mesh filename=...>`` at an in-memory asset; return the assets by name."""
    meshdir = _take_meshdir(robot)
    assets: dict[str, bytes] = {}
    names: dict[Path, str] = {}
    for link in robot.findall("link"):
        for mesh in link.findall("*/geometry/mesh"):
            uri = mesh.get("filename", "")
            path = _mesh_file(uri, link.get("name", "?"), description, meshdir)
            if path not in names:
                suffix, data = _mujoco_mesh(path, uri)
                names[path] = f"mesh{len(names)}_{path.stem}{suffix}"
                assets[names[path]] = data
            mesh.set("filename", names[path])
    return assets


def _add_root_joint(robot: ElementTree.Element, link: str, joint: str, kind: str, height: float) -> str:
    """Hang the root link from a new link ``link`` by joint ``joint`` (``floating`` or
    ``fixed``, ``height`` [m] above it); return the robot's own root link."""
    root = root_link(robot)
    ElementTree.SubElement(robot, "link", name=link)
    added = ElementTree.SubElement(robot, "joint", name=joint, type=kind)
    ElementTree.SubElement(added, "parent", link=link)
    ElementTree.SubElement(added, "child", link=root)
    ElementTree.SubElement(added, "origin", xyz=f"0 0 {height!r}")
    return root


def mujoco_urdf(
    description: RobotDescription, root_link_name: str, root_joint: str, floating: bool, height: float
) -> tuple[str, dict[str, bytes], str]:
    """The URDF text MuJoCo compiles, its mesh assets, and the robot's root link.

    Args:
        description: the robot.
        root_link_name, root_joint: names of the link and joint added above the robot's root.
        floating: a floating joint (free base) or a fixed one.
        height: [m] of the robot's root above the added link (fixed base).

    Raises:
        DescriptionError: not a URDF, no single root link, or a mesh not found / not readable.
    """
    robot = robot_element(description.xml, "robot description")
    if not _keeps_visuals(robot):
        for link in robot.findall("link"):
            for visual in link.findall("visual"):
                link.remove(visual)
    assets = _load_meshes(robot, description)
    root = _add_root_joint(robot, root_link_name, root_joint, "floating" if floating else "fixed", height)
    return to_text(robot), assets, root
