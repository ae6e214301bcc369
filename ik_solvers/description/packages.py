"""ROS package folders and the URIs descriptions use: ``package://``, ``file://``, plain paths.

A package ``name`` is looked for, in order,

1. in the ``package_path`` folders the caller gives: a folder that is the package (its name, or
   a ``package.xml`` whose ``<name>`` is ``name``), holds it (``<folder>/<name>``) or is an
   install prefix (``<folder>/share/<name>``);
2. in the ament index (``AMENT_PREFIX_PATH``) when ``ament_index_python`` is installed;
3. around the description file: each folder above it that is the package, or holds it (a
   workspace's ``src/`` with the package beside the description's own).

Imports no ROS (the ament index is used only when its Python module is there).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from urllib.parse import unquote
from xml.etree import ElementTree

from ik_solvers.description.errors import DescriptionError

PACKAGE_SCHEME = "package://"
FILE_SCHEME = "file://"
ANCESTOR_DEPTH = 4  # folders above a description file searched for its package


def manifest_name(folder: Path) -> str | None:
    """The ``<name>`` in ``folder/package.xml``, or None when there is none or it does not parse."""
    try:
        name = ElementTree.parse(folder / "package.xml").getroot().findtext("name")
    except (OSError, ElementTree.ParseError):
        return None
    return name.strip() if name else None


def _is_package(folder: Path, name: str) -> bool:
    if not folder.is_dir():
        return False
    found = manifest_name(folder)
    return found == name if found is not None else folder.name == name


def _in_folders(name: str, folders: Sequence[Path]) -> Path | None:
    for folder in folders:
        for candidate in (folder, folder / name, folder / "share" / name):
            if _is_package(candidate, name):
                return candidate
    return None


def _in_ament_index(name: str) -> Path | None:
    try:
        from ament_index_python.packages import get_package_share_directory
    except ImportError:
        return None
    try:
        return Path(get_package_share_directory(name))
    except (LookupError, OSError, ValueError):  # unknown package, AMENT_PREFIX_PATH unset
        return None


def around(path: Path) -> tuple[Path, ...]:
    """The folders above ``path`` (a description file) searched for packages, nearest first."""
    return tuple(list(path.absolute().parents)[:ANCESTOR_DEPTH])


def find_package(name: str, package_path: Sequence[str | Path] = (), near: Path | None = None) -> Path:
    """The folder of ROS package ``name`` (its share folder when installed).

    Args:
        name: the package name, as in ``package://<name>/...`` or ``$(find <name>)``.
        package_path: folders to look in first (see the module docstring).
        near: the description file; the folders above it are looked in last.

    Raises:
        DescriptionError: not found; the message lists where it looked and what to pass.
    """
    folders = [Path(p) for p in package_path]
    found = _in_folders(name, folders) or _in_ament_index(name)
    if found is None and near is not None:
        found = _in_folders(name, around(near))
    if found is not None:
        return found
    looked = [str(f) for f in folders] + ["the ament index (AMENT_PREFIX_PATH)"]
    looked += [str(f) for f in around(near)] if near is not None else []
    raise DescriptionError(
        f"package '{name}' not found; looked in: {', '.join(looked)}. Pass the folder that holds it "
        "(package_path), or source the ROS workspace that installs it"
    )


def resolve_uri(uri: str, package_path: Sequence[str | Path] = (), near: Path | None = None) -> Path:
    """The file a description's URI names: ``package://<pkg>/<path>``, ``file:///abs``,
    ``file://rel``, an absolute path, or a path relative to the description file's folder.

    The file's existence is not checked (the caller says what the file was for).

    Args:
        uri: the attribute value, e.g. a mesh's ``filename``.
        package_path: folders to look for packages in first (see :func:`find_package`).
        near: the description file, for relative paths and packages around it; None for a
            description given as a string.

    Raises:
        DescriptionError: an unknown scheme, an unknown package, or a relative path with no
            description file to resolve it against; the message names ``uri``.
    """
    if uri.startswith(PACKAGE_SCHEME):
        name, _, rest = uri[len(PACKAGE_SCHEME) :].partition("/")
        try:
            return find_package(name, package_path, near) / rest
        except DescriptionError as error:
            raise DescriptionError(f"cannot resolve '{uri}': {error}") from error
    path = unquote(uri.removeprefix(FILE_SCHEME)) if uri.startswith(FILE_SCHEME) else uri
    if "://" in path:
        raise DescriptionError(
            f"cannot resolve '{uri}': unknown scheme; accepted: package://, file://, or a file path"
        )
    if Path(path).is_absolute():
        return Path(path)
    if near is None:
        raise DescriptionError(
            f"cannot resolve the relative path '{uri}': the description was given as a string, not "
            "a file; use package:// or an absolute path, or load the description from its file"
        )
    return near.absolute().parent / path
