"""The robot description parameters every node of the package shares, and what a node says when
the description was mangled on its way in.

Parameters (read-only):

- ``robot_description`` (string): URDF or xacro XML as makers publish it; "" = the file below,
  else the packaged humanoid.
- ``robot_description_file`` (string): a ``.urdf`` or ``.xacro`` file to read instead.
- ``xacro_arguments`` (string array): ``name:=value`` or ``name=value`` arguments for a xacro
  description (rcl's ``-p`` parser refuses an unquoted ``:=`` inside a list: ``-p
  "xacro_arguments:=[leg_length=0.25, prefix=m_]"``).
- ``package_path`` (string array): folders searched first for ``package://`` and ``$(find)``
  packages (then the ament index, then the folders around ``robot_description_file``).

``-p robot_description:="$(cat robot.urdf)"`` does not work for real descriptions: rcl parses
each ``-p`` value as YAML, and a URDF's ``": "``, ``" #"`` or quotes make rcl refuse the whole
command line ("Couldn't parse parameter override rule"), turn the value into another type, or cut
it short; unquoted, the shell splits it into stray arguments. :func:`command_line_hint` names
that route in the node's error; docs/your-robot.md gives the ones that work.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from rcl_interfaces.msg import ParameterDescriptor
from rclpy.exceptions import ParameterException
from rclpy.impl.implementation_singleton import rclpy_implementation
from rclpy.node import Node
from rclpy.parameter import Parameter

from ik_solvers.description import (
    DescriptionError,
    RobotDescription,
    description_from_string,
    load_description,
    parse_xacro_arguments,
)
from ik_solvers.resources import package_share_path

INLINE_ROUTE = "robot_description:="
# What stops a node at start-up when its description is passed wrongly: rcl refusing the command
# line (RCLError, UnknownROSArgsError), a parameter of another type, a description that does not load
START_ERRORS = (
    rclpy_implementation.RCLError,
    rclpy_implementation.UnknownROSArgsError,
    ParameterException,
    DescriptionError,
)
ECHO_LIMIT = 600  # characters of an error echoed back (rcl's quote the whole XML)
ROUTES = (
    "pass the description with --params-file FILE.yaml (robot_description: | followed by the XML), "
    "or as a file: -p robot_description_file:=robot.urdf (or .xacro, with -p "
    "'xacro_arguments:=[name=value, ...]'); see docs/your-robot.md"
)


def _read_only(description: str) -> ParameterDescriptor:
    return ParameterDescriptor(description=description, read_only=True)


def command_line_hint(arguments: Sequence[str] | None) -> str:
    """Why a description given with ``-p robot_description:=...`` fails, when the command line
    has one; else ''."""
    if not any(INLINE_ROUTE in str(argument) for argument in arguments or ()):
        return ""
    return (
        "the command line sets robot_description with -p robot_description:=...: rcl parses -p values "
        "as YAML, which refuses, retypes or cuts short URDF XML (': ', ' #', quotes), and an unquoted "
        f"$(cat FILE) splits into stray arguments. Instead, {ROUTES}"
    )


def declare_robot_description(node: Node) -> RobotDescription:
    """Declare the description parameters on ``node`` and load the robot they name.

    Raises:
        DescriptionError: both ``robot_description`` and ``robot_description_file`` set, a file
            that cannot be read, XML that does not parse or is cut short, a xacro that does not
            expand; the message says what was wrong (:func:`start_failure` adds how to pass it).
    """
    text = node.declare_parameter("robot_description", "", _read_only("URDF or xacro XML")).value
    path = node.declare_parameter(
        "robot_description_file", "", _read_only("URDF or xacro file read when robot_description is empty")
    ).value
    items = node.declare_parameter(
        "xacro_arguments",
        Parameter.Type.STRING_ARRAY,
        _read_only("xacro arguments, name:=value or name=value"),
    ).value
    folders = node.declare_parameter(
        "package_path", Parameter.Type.STRING_ARRAY, _read_only("folders searched first for packages")
    ).value
    xacro_arguments, package_path = parse_xacro_arguments(items or ()), tuple(folders or ())
    if text and path:
        raise DescriptionError("both robot_description and robot_description_file are set; give one of them")
    if path or not text:
        file = Path(path) if path else package_share_path("urdf", "humanoid.urdf")
        return load_description(file, xacro_arguments, package_path)
    try:
        return description_from_string(text, xacro_arguments, package_path)
    except DescriptionError as error:
        raise DescriptionError(f"robot_description: {error}") from error


def start_failure(name: str, error: Exception, arguments: Sequence[str] | None) -> int:
    """For a node's ``main``: print why ``error`` stopped the node from starting on stderr (cut
    short), with :func:`command_line_hint`, and return exit status 1.

    Args:
        name: the node, as the message starts.
        error: what stopped it: one of :data:`START_ERRORS`, or another error the node refuses
            to start on (a model error, a bad parameter value).
        arguments: the command line.
    """
    hint = command_line_hint(arguments)
    said = str(error) if len(str(error)) <= ECHO_LIMIT else str(error)[:ECHO_LIMIT] + " [...]"
    print(f"{name}: cannot start: {said}" + (f"\n{name}: {hint}" if hint else ""), file=sys.stderr)
    return 1
