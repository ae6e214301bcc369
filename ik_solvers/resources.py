"""Where the package's data files (urdf/, config/, launch/) are found.

An installed package (``pip install .``, colcon) keeps them in
``<prefix>/share/ik_solvers``; an editable install or a source checkout keeps
them next to the sources, at the repository root. This module imports
without ROS.
"""

from __future__ import annotations

from pathlib import Path

PACKAGE_NAME = "ik_solvers"
_PACKAGE_DIR = Path(__file__).absolute().parent
# <prefix>/lib/pythonX.Y/site-packages/ik_solvers: the prefix is 3 levels above
# the package folder; look a little further for other layouts (dist-packages
# under local/, for instance).
_PREFIX_SEARCH_DEPTH = 5


def _installed_share() -> Path | None:
    """``<prefix>/share/ik_solvers`` of the prefix this module is installed in, if any."""
    for ancestor in list(_PACKAGE_DIR.parents)[:_PREFIX_SEARCH_DEPTH]:
        share = ancestor / "share" / PACKAGE_NAME
        if (share / "package.xml").is_file():
            return share
    return None


def _source_tree() -> Path | None:
    """The repository root when this module runs from a source checkout."""
    root = _PACKAGE_DIR.parent
    manifest = root / "package.xml"
    if manifest.is_file() and f"<name>{PACKAGE_NAME}</name>" in manifest.read_text():
        return root
    return None


def _ament_index_share() -> Path | None:
    """The share folder that the ament index (AMENT_PREFIX_PATH) knows, if any."""
    try:
        from ament_index_python.packages import (
            PackageNotFoundError,
            get_package_share_directory,
        )
    except ImportError:
        return None
    try:
        return Path(get_package_share_directory(PACKAGE_NAME))
    except (PackageNotFoundError, LookupError, ValueError):
        return None


def package_share_root() -> Path:
    """The folder that holds ``urdf/``, ``config/`` and ``launch/`` of this package.

    Looks, in order, in ``share/ik_solvers`` of the prefix this module is
    installed in, in the source checkout around this module, and in the ament
    index.

    Raises:
        FileNotFoundError: none of them exists; the message lists where it looked.
    """
    for find in (_installed_share, _source_tree, _ament_index_share):
        found = find()
        if found is not None:
            return found
    raise FileNotFoundError(
        f"cannot find the data files of {PACKAGE_NAME}: no share/{PACKAGE_NAME}/package.xml "
        f"above {_PACKAGE_DIR}, no source checkout at {_PACKAGE_DIR.parent}, "
        "and the ament index (AMENT_PREFIX_PATH) does not know the package"
    )


def package_share_path(*parts: str) -> Path:
    """Path of a data file of this package, e.g. ``package_share_path("urdf", "humanoid.urdf")``.

    The path is not checked for existence: callers that need the file report
    its absence in their own terms.
    """
    return package_share_root().joinpath(*parts)
