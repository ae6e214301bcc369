"""A node's parameters from one table of :class:`~ik_solvers.parameter_rules.Rule`: declared with
descriptors, checked at start-up, checked and applied (or refused, with the reason) at run time.

Every node of the package declares its parameters through :class:`NodeParameters`:

- at start-up a value of a wrong type or out of range raises
  :class:`~ik_solvers.parameter_rules.ParameterError` naming the parameter and what is accepted
  (the node's ``main`` prints it as one line ``cannot start: …`` and exits with 1);
- an integer given for a float parameter is taken as that number (``walk.dt:=1`` is 1.0), at
  start-up and at run time, and stored as a float;
- at run time (``ros2 param set``) a refused value answers ``successful=False`` with the same
  reason; a ``start_up_only`` parameter refuses any new value, saying that the node reads it at
  start-up only; the rest go to the node's ``apply`` callback, which may refuse them too (a
  ``ValueError`` or ``TypeError``: its message is the reason). Parameters outside the table are
  left to the node's other callbacks.

The parameters are declared with dynamic typing so that the check, not rclpy's type test, answers a
wrong type: the table holds each parameter's type (its default's) and says it in the description.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from rcl_interfaces.msg import ParameterDescriptor, SetParametersResult
from rclpy.node import Node
from rclpy.parameter import Parameter

from ik_solvers.parameter_rules import ParameterError, Rule, Value

Apply = Callable[[dict[str, Value]], None]


def descriptor(rule: Rule, dynamic_typing: bool = True) -> ParameterDescriptor:
    """The ROS descriptor of ``rule``: its description, and what it accepts as constraints."""
    when = "; read at start-up only" if rule.start_up_only else ""
    return ParameterDescriptor(
        description=rule.description,
        additional_constraints=f"{rule.accepted()}{when}",
        dynamic_typing=dynamic_typing,
    )


class NodeParameters:
    """Declares the parameters of ``rules`` on ``node`` and keeps their checked values.

    Args:
        node: the node; the parameters of ``rules`` are declared at once (more with :meth:`add`).
        rules: parameter name → rule.

    Raises:
        ParameterError: a value given at start-up is refused (the message names it).
    """

    def __init__(self, node: Node, rules: Mapping[str, Rule]) -> None:
        self.node = node
        self.rules: dict[str, Rule] = {}
        self.values: dict[str, Value] = {}
        self._apply: Apply | None = None
        node.add_pre_set_parameters_callback(self._as_declared_types)
        node.add_on_set_parameters_callback(self._on_set)
        self.add(rules)

    def add(self, rules: Mapping[str, Rule]) -> None:
        """Declare and check more parameters (names that depend on others, e.g. per chain).

        Raises:
            ParameterError: a value given at start-up is refused (the message names it).
        """
        retyped = []  # an int given for a float: stored as the float, so that it reads back so
        for name, rule in rules.items():
            given = _declare(self.node, name, rule)
            self.values[name] = rule.check(name, given)
            self.rules[name] = rule  # after declaring: the run-time check does not judge a declaration
            if rule.kind is float and isinstance(given, int):
                retyped.append(Parameter(name, value=_ros_value(self.values[name])))
        if retyped:
            self.node.set_parameters(retyped)

    def __getitem__(self, name: str) -> Value:
        """The checked value of ``name``."""
        return self.values[name]

    def on_change(self, apply: Apply) -> None:
        """Call ``apply({name: value})`` with run-time changes that passed their rules; a
        ``ValueError`` or ``TypeError`` it raises refuses the whole change with its message."""
        self._apply = apply

    def _as_declared_types(self, parameters: list[Parameter]) -> list[Parameter]:
        """Integers set for float parameters become floats (before rclpy stores them)."""
        converted = []
        for parameter in parameters:
            rule = self.rules.get(parameter.name)
            if rule is not None and rule.kind is float and parameter.type_ == Parameter.Type.INTEGER:
                parameter = Parameter(parameter.name, value=float(parameter.value))
            converted.append(parameter)
        return converted

    def _on_set(self, parameters: list[Parameter]) -> SetParametersResult:
        try:
            changes = self._changes(parameters)
            if changes:
                if self._apply is None:
                    raise ParameterError(f"{', '.join(changes)}: not settable while the node runs")
                self._apply(changes)
        except (ValueError, TypeError) as error:
            return SetParametersResult(successful=False, reason=str(error))
        self.values.update(changes)
        return SetParametersResult(successful=True)

    def _changes(self, parameters: list[Parameter]) -> dict[str, Value]:
        """The checked new values of the table's parameters among ``parameters``.

        Raises:
            ParameterError: a refused value, or a new value of a start-up only parameter.
        """
        changes = {}
        for parameter in parameters:
            rule = self.rules.get(parameter.name)
            if rule is None:
                continue
            value = rule.check(parameter.name, parameter.value)
            if value == self.values.get(parameter.name):
                continue
            if rule.start_up_only:
                raise ParameterError(
                    f"{parameter.name} is read at start-up only: restart the node with "
                    f"{parameter.name}:={parameter.value!r} (accepted: {rule.accepted()})"
                )
            changes[parameter.name] = value
        return changes


def _declare(node: Node, name: str, rule: Rule) -> object:
    """Declare ``name`` on ``node``; the value given (the default when none is)."""
    if rule.kind is tuple and not rule.default:  # rclpy cannot type an empty list: a string array
        given = node.declare_parameter(name, Parameter.Type.STRING_ARRAY, descriptor(rule, False)).value
        return rule.default if given is None else given
    return node.declare_parameter(name, _ros_value(rule.default), descriptor(rule)).value


def _ros_value(value: Value) -> object:
    """A value as rclpy stores it (string arrays as lists)."""
    return list(value) if isinstance(value, tuple) else value
