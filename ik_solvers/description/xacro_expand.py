"""xacro documents expanded with the xacro package (PyPI ``xacro``, the ROS tool's own code).

``$(find <pkg>)`` is answered by :func:`ik_solvers.description.packages.find_package` (the given
``package_path``, the ament index, the folders around the file) instead of the ament index alone,
so that a maker's xacro expands on a machine without ROS. xacro keeps its state in module
globals; expansions here run one at a time (a lock).
"""

from __future__ import annotations

import io
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager, redirect_stderr
from pathlib import Path

from ik_solvers.description.errors import DescriptionError
from ik_solvers.description.packages import find_package

_LOCK = threading.Lock()


def parse_xacro_arguments(arguments: Sequence[str]) -> dict[str, str]:
    """``["name:=value", ...]`` (the ``xacro`` command line's form) or ``["name=value", ...]``
    (what rcl's ``-p`` parser accepts unquoted in a list) → ``{name: value}``.

    Raises:
        DescriptionError: an item with neither ``:=`` nor ``=``, or with an empty name.
    """
    parsed = {}
    for item in arguments:
        name, separator, value = item.partition(":=" if ":=" in item else "=")
        if not separator or not name.strip():
            raise DescriptionError(f"xacro argument '{item}' is not of the form name:=value or name=value")
        parsed[name.strip()] = value
    return parsed


def _reason(error: BaseException, said: str) -> str:
    """Why xacro failed: an unknown package's own message (find_package's, which xacro wraps), else
    xacro's, with what it printed."""
    cause: BaseException | None = error
    while cause is not None:
        if isinstance(cause, DescriptionError):
            return str(cause)
        cause = getattr(cause, "exc", None) or cause.__cause__ or cause.__context__
    said = said.strip()
    return f"{error} ({said})" if said else str(error)


@contextmanager
def _find_through(package_path: Sequence[str | Path], near: Path | None) -> Iterator[None]:
    """While expanding, xacro's ``$(find pkg)`` and ``find()`` use :func:`find_package`."""
    from xacro import substitution_args

    def find(name: str) -> str:
        return str(find_package(name, package_path, near))

    saved = substitution_args._eval_find, substitution_args._eval_dict["find"]
    substitution_args._eval_find = substitution_args._eval_dict["find"] = find
    try:
        yield
    finally:
        substitution_args._eval_find, substitution_args._eval_dict["find"] = saved


def expand_xacro(
    source: str | Path,
    arguments: Mapping[str, str] | None = None,
    package_path: Sequence[str | Path] = (),
    *,
    is_text: bool = False,
    near: Path | None = None,
) -> str:
    """The URDF XML a xacro file (or, with ``is_text``, a xacro document) expands to.

    Args:
        source: the xacro file's path, or the document itself when ``is_text``.
        arguments: xacro arguments (``<xacro:arg name=...>``), as ``xacro file name:=value`` sets them.
        package_path: folders searched first for ``$(find pkg)`` packages.
        near: for a document given as text, the file it came from (relative includes and
            packages around it); a file's own path is used otherwise.

    Raises:
        DescriptionError: xacro's reason (a missing include, an undefined macro or argument,
            an unknown package), naming the file.
    """
    import xacro

    what = "xacro document" if is_text else f"xacro file '{source}'"
    near = near if is_text else Path(source)
    warnings = io.StringIO()
    with _LOCK, _find_through(package_path, near), redirect_stderr(warnings):
        try:
            if is_text:
                xacro.init_stacks(str(near) if near is not None else None)
                document = xacro.parse(str(source))
                xacro.process_doc(document, mappings=dict(arguments or {}))
            else:
                document = xacro.process_file(str(source), mappings=dict(arguments or {}))
        except Exception as error:  # xacro raises XacroException, ExpatError, NameError, ...
            raise DescriptionError(
                f"{what} does not expand: {_reason(error, warnings.getvalue())}"
            ) from error
    return document.toxml()
