"""What a configuration value must be: type, range, choices, declared once per parameter.

No ROS here: the same :class:`Rule` checks a ``WalkConfig`` field read from YAML, and (through
:mod:`ik_solvers.node.node_parameters`) a node parameter at start-up and at run time. A refused
value raises :class:`ParameterError`, whose message names the parameter, the value given and what
would be accepted, e.g. ``walk.dt = -1.0 refused: a number in (0, 0.1] [s] is required``.

Types follow the default value: bool, int, float, str or a tuple of str (a string array). An
integer given for a float parameter is accepted as the number it is (``walk.dt:=1`` is 1.0 s,
then checked against the range); a bool is never taken for a number.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields
from typing import Any

Value = bool | int | float | str | tuple[str, ...]
SHOWN_CHARACTERS = 60  # a refused string value is echoed at most this long


class ParameterError(ValueError):
    """A configuration value refused; the message names the parameter and what is accepted."""


@dataclass(frozen=True)
class Rule:
    """The accepted values of one parameter.

    Attributes:
        default: the value when none is given; its type is the parameter's type.
        description: what the parameter does (shown by ``ros2 param describe``).
        unit: e.g. ``s``, ``m``, ``Hz`` (shown in refusals).
        low, high: inclusive bounds of a number (None: unbounded on that side).
        low_open, high_open: the bound itself excluded.
        choices: the accepted strings (empty: any).
        non_empty: a string must not be empty.
        start_up_only: read once at start-up; a running node refuses changes (saying so).
    """

    default: Value
    description: str
    unit: str = ""
    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False
    choices: tuple[str, ...] = ()
    non_empty: bool = False
    start_up_only: bool = False

    @property
    def kind(self) -> type:
        """The parameter's Python type: bool, int, float, str or tuple (of str)."""
        return type(self.default)

    def accepted(self) -> str:
        """What the rule accepts, in words: ``a number in (0, 0.1] [s]``."""
        if self.kind is bool:
            return "true or false"
        if self.kind is tuple:
            return "a list of strings"
        if self.kind is str:
            if self.choices:
                return f"one of {', '.join(self.choices)}"
            return "a non-empty string" if self.non_empty else "a string"
        noun = "an integer" if self.kind is int else "a finite number"
        unit = f" [{self.unit}]" if self.unit else ""
        if self.low is None and self.high is None:
            return f"{noun}{unit}"
        low = "-inf" if self.low is None else f"{self.low:g}"
        high = "inf" if self.high is None else f"{self.high:g}"
        opening = "(" if self.low_open or self.low is None else "["
        closing = ")" if self.high_open or self.high is None else "]"
        return f"{noun} in {opening}{low}, {high}{closing}{unit}"

    def check(self, name: str, value: object) -> Value:
        """``value`` as the parameter's type (an int for a float becomes a float).

        Raises:
            ParameterError: wrong type, out of range, not a choice or empty; names ``name``.
        """
        converted = self._converted(value)
        if converted is None or not self._within(converted):
            raise ParameterError(f"{name} = {_shown(value)} refused: {self.accepted()} is required")
        return converted

    def _converted(self, value: object) -> Value | None:
        """``value`` in the rule's type, or None when it is of another type."""
        if self.kind is float and isinstance(value, int) and not isinstance(value, bool):
            return float(value)
        if self.kind is tuple and isinstance(value, (list, tuple)):
            return tuple(value) if all(isinstance(v, str) for v in value) else None
        if self.kind in (int, float) and isinstance(value, bool):
            return None
        return value if isinstance(value, self.kind) else None

    def _within(self, value: Value) -> bool:
        if isinstance(value, str):
            return (not self.choices or value in self.choices) and not (self.non_empty and not value)
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            return True
        if not math.isfinite(value):
            return False
        if self.low is not None and (value < self.low or (self.low_open and value == self.low)):
            return False
        return self.high is None or not (value > self.high or (self.high_open and value == self.high))


def rule_field(rule: Rule) -> Any:
    """A dataclass field whose default and accepted values are ``rule``'s (see :func:`field_rules`)."""
    return field(default=rule.default, metadata={"rule": rule})


def field_rules(cls: type) -> dict[str, Rule]:
    """Field name → rule of the fields of dataclass ``cls`` made by :func:`rule_field`."""
    return {item.name: item.metadata["rule"] for item in fields(cls) if "rule" in item.metadata}


def check_fields(instance: object, prefix: str = "") -> None:
    """Check the rule fields of a (frozen) dataclass instance, in place: an int given for a float
    is stored as the float.

    Raises:
        ParameterError: a refused value, named ``prefix + field name``.
    """
    for name, rule in field_rules(type(instance)).items():
        object.__setattr__(instance, name, rule.check(prefix + name, getattr(instance, name)))


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= SHOWN_CHARACTERS else f"{text[:SHOWN_CHARACTERS]}... ({len(text)} characters)"
