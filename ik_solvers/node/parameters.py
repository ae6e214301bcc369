"""The ik_node's parameters: their rules (the shared layer of :mod:`ik_solvers.node.node_parameters`
checks them at start-up and at run time), read into a config.

Parameters (all relative to the node; see docs/node.md):

- ``robot_description`` (string, read-only): URDF or xacro XML; default the packaged humanoid; or
  ``robot_description_file``, ``xacro_arguments``, ``package_path``
  (:mod:`ik_solvers.node.description_parameters`, read by the node before these).
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
  current goal (the last solution it was sent to) is a jump when the target's change needs no
  more (a moving target) and the joint moves far more than it needs
  (:mod:`ik_solvers.control.goal_change`): not commanded, the limb holds, the diagnostics count it
  (``jumps_held``), the log says why. Otherwise it is a new goal, approached at the velocity limit
  (``new_goals``). A limb's first target is not judged.
- ``allow_branch_switch`` (bool, default false): command jumps too (approached at the velocity
  limit).
- ``ros2_control.controller`` (read-only): a forward command controller's name; when set, commands
  also go out as Float64MultiArray on ``/<controller>/commands`` in ``ros2_control.joints`` order.
- ``trajectory.topic`` (read-only): when set, commands also go out as one-point JointTrajectory.
"""

from __future__ import annotations

from dataclasses import dataclass

from rclpy.node import Node

from ik_solvers.node.node_parameters import NodeParameters
from ik_solvers.parameter_rules import Rule
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


# Per solver kind, the make_solver options the node offers as "<kind>.<option>" parameters. The
# node's jacobian defaults differ from the library's
# (:class:`~ik_solvers.solvers.numeric.options.JacobianOptions`) on purpose: a node answers every
# target within one command period, so its time budget is 5 ms (library: 10 ms), and a tolerance
# of 0.1 mm / 1e-4 rad, far below what a servo resolves, lets it stop early (library: 1e-6 m);
# with that tolerance it takes the fuller steps of a lighter damping weight (0.01, library 0.1).
SOLVER_PARAMETERS: dict[str, dict[str, Rule]] = {
    "jacobian": {
        "method": Rule("dls", "numeric solver method", choices=JACOBIAN_METHODS),
        "max_iterations": Rule(60, "iterations per attempt", "", 1, 100000),
        "tolerance": Rule(1e-4, "convergence tolerance", "m, rad", 1e-12, 1.0),
        "damping": Rule(0.01, "damped least squares damping weight", "", 0.0, 10.0),
        "timeout": Rule(0.005, "time budget per solve", "s", 1e-6, 10.0),
    },
}

# The parameters that do not depend on chain names.
STATIC_PARAMETERS = {
    "max_velocity_fraction": Rule(
        0.5, "share of each joint's URDF velocity limit a command may use", "", 1e-6, 1.0
    ),
    "command_rate": Rule(
        100.0, "rate of the velocity-limited steps toward a goal", "Hz", 1.0, 10000.0, start_up_only=True
    ),
    "max_target_age": Rule(0.5, "refuse targets stamped further than this from now; 0: any", "s", 0.0, 1e9),
    "max_joint_jump": Rule(
        0.5,
        "largest joint change from the goal a solution along a moving target may make",
        "rad or m",
        1e-6,
        1e3,
    ),
    "allow_branch_switch": Rule(False, "command solutions that jump along a moving target"),
    "ros2_control.controller": Rule(
        "", "forward command controller name; '' = no output", start_up_only=True
    ),
    "ros2_control.joints": Rule(
        (), "controller joint order; unset = all commanded joints, chain by chain", start_up_only=True
    ),
    "trajectory.topic": Rule("", "JointTrajectory output topic; '' = no output", start_up_only=True),
}


def declare_parameters(node: Node, found: dict[str, tuple[str, str]]) -> tuple[NodeConfig, NodeParameters]:
    """Declare every parameter of the ik_node but the description's on ``node`` and read them.

    Args:
        found: the limbs found in the robot's tree, name → (base link, tip link): the default
            chains and their links.
    Raises:
        ParameterError: a value is refused (the message names it and what is accepted).
        ValueError: no chains, or a chain without base_link/tip_link that is no found limb.
    """
    solver_rules = {
        f"{kind}.{option}": rule
        for kind, options in SOLVER_PARAMETERS.items()
        for option, rule in options.items()
    }
    chain_names = Rule(
        tuple(found),
        "chains the node commands; default: the limbs found in the robot's tree",
        start_up_only=True,
    )
    parameters = NodeParameters(node, {"chain_names": chain_names, **STATIC_PARAMETERS, **solver_rules})
    names = parameters["chain_names"]
    if not names:
        raise ValueError(
            "no chains to command: the robot's tree has no limbs the package recognises; name them in "
            "chain_names with chains.<name>.base_link and tip_link"
        )
    parameters.add({name: rule for chain in names for name, rule in _chain_rules(chain, found).items()})
    return (
        NodeConfig(
            chains=tuple(_chain(parameters, chain, found) for chain in names),
            solver_options={
                kind: {option: parameters[f"{kind}.{option}"] for option in options}
                for kind, options in SOLVER_PARAMETERS.items()
            },
            max_velocity_fraction=parameters["max_velocity_fraction"],
            command_rate=parameters["command_rate"],
            max_target_age=parameters["max_target_age"],
            max_joint_jump=parameters["max_joint_jump"],
            allow_branch_switch=parameters["allow_branch_switch"],
            controller=parameters["ros2_control.controller"],
            controller_joints=parameters["ros2_control.joints"],
            trajectory_topic=parameters["trajectory.topic"],
        ),
        parameters,
    )


def _chain_rules(name: str, found: dict[str, tuple[str, str]]) -> dict[str, Rule]:
    base, tip = found.get(name, ("", ""))
    return {
        f"chains.{name}.base_link": Rule(base, "chain base link", start_up_only=True),
        f"chains.{name}.tip_link": Rule(tip, "chain tip link", start_up_only=True),
        f"chains.{name}.solver": Rule(DEFAULT_SOLVER, "solver kind", choices=tuple(SOLVERS)),
    }


def _chain(parameters: NodeParameters, name: str, found: dict[str, tuple[str, str]]) -> ChainConfig:
    prefix = f"chains.{name}"
    base, tip = parameters[f"{prefix}.base_link"], parameters[f"{prefix}.tip_link"]
    if not base or not tip:
        raise ValueError(
            f"chain '{name}' needs {prefix}.base_link and {prefix}.tip_link (links of the URDF); "
            f"limbs found in the robot's tree (their links are the defaults): {', '.join(found) or 'none'}"
        )
    return ChainConfig(name, base, tip, parameters[f"{prefix}.solver"])


def solver_option_of_parameter(name: str) -> tuple[str, str] | None:
    """(kind, option) of a ``<kind>.<option>`` solver parameter, else None."""
    kind, _, option = name.partition(".")
    return (kind, option) if option in SOLVER_PARAMETERS.get(kind, {}) else None


def chain_of_solver_parameter(name: str) -> str | None:
    """The chain name of a ``chains.<name>.solver`` parameter, else None."""
    parts = name.split(".")
    if len(parts) == 3 and parts[0] == "chains" and parts[2] == "solver":
        return parts[1]
    return None
