"""The ik_node's parameters: declaration with descriptors, reading into a config, validation.

Parameters (all relative to the node; see README "Using the node"):

- ``robot_description`` (string, read-only): URDF XML; default the packaged humanoid.
- ``chain_names`` (string array, read-only): the chains the node commands; default: the limbs
  found in the robot's tree (:mod:`ik_solvers.limbs`: ``left_leg``, ``right_leg``, ``left_arm``,
  ``right_arm``, those it has).
- ``chains.<name>.base_link`` / ``tip_link`` (string, read-only; default for a found limb: its
  links), ``chains.<name>.solver`` (string, settable at run time): ``auto`` (default),
  ``geometric`` or ``jacobian``.
- ``<kind>.<option>``: make_solver options of a solver kind, settable at run time (the table
  :data:`SOLVER_PARAMETERS`): ``jacobian.method`` / ``max_iterations`` / ``tolerance`` /
  ``damping`` / ``timeout`` (seconds).
- ``max_velocity_fraction`` (0, 1]: share of each joint's URDF velocity limit a command may use.
- ``command_rate`` [Hz] (read-only): rate of the steps toward a goal the velocity limit holds back.
- ``max_target_age`` [s]: targets stamped further than this from now (past or future) are
  refused; 0 accepts any stamp. Unstamped targets (stamp 0) are always accepted.
- ``max_joint_jump`` [rad or m]: a solution that moves a joint further than this from the limb's
  current goal (the last solution it was sent to), or that the solver, seeded with that goal,
  reports as not continuing its branch, is not commanded: the limb holds, the diagnostics count
  it, the log says why. A limb's first target is not judged.
- ``allow_branch_switch`` (bool, default false): command such solutions anyway (approached at the
  velocity limit).
- ``ros2_control.controller`` (read-only): a forward command controller's name; when set, commands
  also go out as Float64MultiArray on ``/<controller>/commands`` in ``ros2_control.joints`` order.
- ``trajectory.topic`` (read-only): when set, commands also go out as one-point JointTrajectory.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from rcl_interfaces.msg import FloatingPointRange, IntegerRange, ParameterDescriptor
from rclpy.node import Node
from rclpy.parameter import Parameter

from ik_solvers.resources import package_share_path
from ik_solvers.solvers import SOLVERS
from ik_solvers.solvers.numeric.options import METHODS as JACOBIAN_METHODS

DEFAULT_SOLVER = "auto"


@dataclass(frozen=True)
class ChainConfig:
    """One chain the node commands: its name, links and configured solver kind."""

    name: str
    base_link: str
    tip_link: str
    solver: str


@dataclass(frozen=True)
class NodeConfig:
    """Everything the node reads from its parameters at start-up."""

    chains: tuple[ChainConfig, ...]
    solver_options: dict[str, dict[str, object]]  # solver kind → its make_solver options
    max_velocity_fraction: float
    command_rate: float
    max_target_age: float
    max_joint_jump: float
    allow_branch_switch: bool
    controller: str
    controller_joints: tuple[str, ...]
    trajectory_topic: str


def _describe(text: str, read_only: bool = False, **ranges) -> ParameterDescriptor:
    return ParameterDescriptor(description=text, read_only=read_only, **ranges)


def _float_range(low: float, high: float) -> dict:
    return {"floating_point_range": [FloatingPointRange(from_value=low, to_value=high)]}


# Per solver kind, the make_solver options the node offers as "<kind>.<option>" parameters:
# option → (default, descriptor). The node's jacobian defaults differ from the library's
# (:class:`~ik_solvers.solvers.numeric.options.JacobianOptions`) on purpose: a node answers every
# target within one command period, so its time budget is 5 ms (library: 10 ms), and a tolerance
# of 0.1 mm / 1e-4 rad, far below what a servo resolves, lets it stop early (library: 1e-6 m);
# with that tolerance it takes the fuller steps of a lighter damping weight (0.01, library 0.1).
SOLVER_PARAMETERS: dict[str, dict[str, tuple[object, ParameterDescriptor]]] = {
    "jacobian": {
        "method": ("dls", _describe(f"numeric solver method: {', '.join(JACOBIAN_METHODS)}")),
        "max_iterations": (
            60,
            _describe("iterations per attempt", integer_range=[IntegerRange(from_value=1, to_value=100000)]),
        ),
        "tolerance": (1e-4, _describe("convergence tolerance [m, rad]", **_float_range(1e-12, 1.0))),
        "damping": (0.01, _describe("damped least squares damping weight", **_float_range(0.0, 10.0))),
        "timeout": (0.005, _describe("time budget per solve [s]", **_float_range(1e-6, 10.0))),
    },
}

# name → (default, descriptor) of the other parameters that do not depend on chain names.
STATIC_PARAMETERS = {
    "max_velocity_fraction": (
        0.5,
        _describe("share of each joint's URDF velocity limit a command may use", **_float_range(1e-6, 1.0)),
    ),
    "command_rate": (
        100.0,
        _describe(
            "rate [Hz] of the velocity-limited steps toward a goal", True, **_float_range(1.0, 10000.0)
        ),
    ),
    "max_target_age": (
        0.5,
        _describe("refuse targets stamped further than this from now [s]; 0: any", **_float_range(0.0, 1e9)),
    ),
    "max_joint_jump": (
        0.5,
        _describe(
            "largest joint change [rad or m] from the seed a commanded solution may make",
            **_float_range(1e-6, 1e3),
        ),
    ),
    "allow_branch_switch": (False, _describe("command solutions that jump to another IK branch")),
    "ros2_control.controller": ("", _describe("forward command controller name; '' = no output", True)),
    "trajectory.topic": ("", _describe("JointTrajectory output topic; '' = no output", True)),
}


def declare_description(node: Node) -> str:
    """Declare ``robot_description`` on ``node``; its value (default: the packaged humanoid)."""
    urdf = package_share_path("urdf", "humanoid.urdf")
    default_description = urdf.read_text() if urdf.is_file() else ""
    return node.declare_parameter("robot_description", default_description, _describe("URDF XML", True)).value


def declare_parameters(node: Node, found: dict[str, tuple[str, str]]) -> NodeConfig:
    """Declare every other parameter of the ik_node on ``node`` and read them.

    Args:
        found: the limbs found in the robot's tree, name → (base link, tip link): the default
            chains and their links.
    Raises:
        ValueError: no chains, or a chain without base_link/tip_link that is no found limb.
    """
    names = node.declare_parameter(
        "chain_names",
        list(found) or Parameter.Type.STRING_ARRAY,
        _describe("chains the node commands; default: the limbs found in the robot's tree", True),
    ).value
    if not names:
        raise ValueError(
            "no chains to command: the robot's tree has no limbs the package recognises; name them in "
            "chain_names with chains.<name>.base_link and tip_link"
        )
    controller_joints = node.declare_parameter(
        "ros2_control.joints",
        Parameter.Type.STRING_ARRAY,
        _describe("controller joint order; unset = all commanded joints, chain by chain", True),
    ).value
    for name, (default, descriptor) in STATIC_PARAMETERS.items():
        node.declare_parameter(name, default, descriptor)
    for kind, options in SOLVER_PARAMETERS.items():
        for option, (default, descriptor) in options.items():
            node.declare_parameter(f"{kind}.{option}", default, descriptor)
    chains = tuple(_declare_chain(node, name, found) for name in names)
    value = lambda name: node.get_parameter(name).value
    return NodeConfig(
        chains=chains,
        solver_options={
            kind: {option: value(f"{kind}.{option}") for option in options}
            for kind, options in SOLVER_PARAMETERS.items()
        },
        max_velocity_fraction=value("max_velocity_fraction"),
        command_rate=value("command_rate"),
        max_target_age=value("max_target_age"),
        max_joint_jump=value("max_joint_jump"),
        allow_branch_switch=value("allow_branch_switch"),
        controller=value("ros2_control.controller"),
        controller_joints=tuple(controller_joints or ()),
        trajectory_topic=value("trajectory.topic"),
    )


def _declare_chain(node: Node, name: str, found: dict[str, tuple[str, str]]) -> ChainConfig:
    base_default, tip_default = found.get(name, ("", ""))
    prefix = f"chains.{name}"
    base = node.declare_parameter(f"{prefix}.base_link", base_default, _describe("chain base link", True))
    tip = node.declare_parameter(f"{prefix}.tip_link", tip_default, _describe("chain tip link", True))
    solver = node.declare_parameter(f"{prefix}.solver", DEFAULT_SOLVER, _describe(" | ".join(SOLVERS)))
    if not base.value or not tip.value:
        raise ValueError(
            f"chain '{name}' needs {prefix}.base_link and {prefix}.tip_link (links of the URDF); "
            f"limbs found in the robot's tree (their links are the defaults): {', '.join(found) or 'none'}"
        )
    return ChainConfig(name, base.value, tip.value, solver.value)


def solver_option_of_parameter(name: str) -> tuple[str, str] | None:
    """(kind, option) of a ``<kind>.<option>`` solver parameter, else None."""
    kind, _, option = name.partition(".")
    return (kind, option) if option in SOLVER_PARAMETERS.get(kind, {}) else None


def check_solver_option(kind: str, option: str, value: object) -> str | None:
    """Why ``<kind>.<option>`` = ``value`` is refused, or None when it is acceptable here (the
    solver itself checks the value again when it is rebuilt)."""
    if kind == "jacobian" and option == "method":
        if value not in JACOBIAN_METHODS:
            return f"jacobian.method '{value}' is unknown; valid methods: {', '.join(JACOBIAN_METHODS)}"
        return None
    if not (isinstance(value, (int, float)) and math.isfinite(value)):
        return f"{kind}.{option} must be a finite number, got {value!r}"
    return None


def chain_of_solver_parameter(name: str) -> str | None:
    """The chain name of a ``chains.<name>.solver`` parameter, else None."""
    parts = name.split(".")
    if len(parts) == 3 and parts[0] == "chains" and parts[2] == "solver":
        return parts[1]
    return None
