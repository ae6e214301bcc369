"""Walking parameters: timing, weights and fractions; every length comes from the URDF.

Lengths are fractions of the robot's own sizes (:class:`~ik_solvers.whole_body.walk_geometry.WalkGeometry`
reads them from the URDF: leg length, reach, sole size), so that one configuration fits robots of
other dimensions. ``config/walk.yaml`` holds the same fields for the walk node.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace

OPTIONAL_SIZES = ("sole_length", "sole_width", "timing_com_height")  # 0: not given
SCALED_DURATIONS = ("single_support", "double_support", "start_transfer", "preview_time", "command_delay")


@dataclass(frozen=True)
class WalkConfig:
    """Parameters of the walking pattern generator (units in brackets).

    Attributes:
        dt: control period [s] (100 Hz).
        single_support: duration of one swing [s].
        double_support: transfer of the ZMP between two swings [s].
        start_transfer: ZMP transfer from between the soles to the first support sole, and back
            when stopping [s].
        preview_time: how far ahead the preview controller reads the ZMP reference [s].
        command_delay: a new velocity command changes the plan no earlier than this after it
            arrives [s] (then at the next step's start): the preview controller must see changes
            of the ZMP reference coming.
        zmp_error_weight, jerk_weight: the preview controller's Qe and R (Kajita et al. 2003).
        torso_height_ratio: how far the body is lowered for walking (knees bent below 1): the
            torso (root link) goes down by (1 - ratio) times the body's height with the legs
            straight, the higher of the root's and the hips' heights over the soles (a root
            frame on the floor lowers with the hips).
        step_height_ratio: swing foot lift, fraction of the leg length (hip to sole).
        reach_ratio: forward and lateral step limits, fractions of the leg's horizontal reach at
            the walking height.
        max_step_yaw: turn of one step [rad], also at most half the hip yaw range.
        sole_length, sole_width: the sole's size [m], a rectangle centred under each sole
            frame; 0 (default): the footprint comes from the feet's collision geometry
            (:mod:`ik_solvers.limbs.footprint`). Give both or neither.
        timing_com_height: the CoM height [m] the durations above are given for; > 0: for a
            robot whose nominal CoM height is z_c, every duration but ``dt`` scales by
            √(z_c / timing_com_height) (the cart-table pendulum's time constant √(z_c / g) sets
            how fast a robot of that size shifts its weight); 0: durations as given.
    """

    dt: float = 0.01
    single_support: float = 0.5
    double_support: float = 0.15
    start_transfer: float = 0.4
    preview_time: float = 1.6
    command_delay: float = 1.6
    zmp_error_weight: float = 1.0
    jerk_weight: float = 1e-6
    torso_height_ratio: float = 0.9
    step_height_ratio: float = 0.08
    reach_ratio: float = 0.35
    max_step_yaw: float = 0.4
    sole_length: float = 0.0
    sole_width: float = 0.0
    timing_com_height: float = 0.0

    def __post_init__(self) -> None:
        for item in fields(self):
            value = getattr(self, item.name)
            optional = item.name in OPTIONAL_SIZES and value == 0
            if not (isinstance(value, (int, float)) and math.isfinite(value) and (value > 0 or optional)):
                raise ValueError(
                    f"walk parameter {item.name} = {value!r}: a positive finite number is required"
                    + (" (or 0: from the collision geometry)" if item.name in OPTIONAL_SIZES else "")
                )
        if (self.sole_length > 0) != (self.sole_width > 0):
            raise ValueError(
                f"walk parameters sole_length = {self.sole_length} and sole_width = {self.sole_width}: "
                "give both (the sole's size [m]) or neither (0: from the collision geometry)"
            )
        for name in ("torso_height_ratio", "reach_ratio"):
            if getattr(self, name) >= 1.0:
                raise ValueError(
                    f"walk parameter {name} = {getattr(self, name)}: a fraction below 1 is required"
                )
        if self.preview_time < self.dt or self.single_support < 2 * self.dt:
            raise ValueError(
                f"walk timing: preview_time {self.preview_time} s and single_support {self.single_support} s "
                f"must cover a few periods of dt {self.dt} s"
            )

    @property
    def sole_size(self) -> tuple[float, float] | None:
        """(length, width) [m] of the soles when given, else None (from the geometry)."""
        return (self.sole_length, self.sole_width) if self.sole_length > 0 else None

    def for_com_height(self, com_height: float) -> WalkConfig:
        """This configuration with its durations scaled for a CoM height [m] (see
        ``timing_com_height``), each rounded to whole periods ``dt``; itself when that is 0."""
        if not self.timing_com_height:
            return self
        scale = math.sqrt(com_height / self.timing_com_height)
        # whole control periods: a phase that ends between two ticks made the simulated soles slip
        # (15.8 mm against 3.2 mm in ik_demo's walk, the packaged robot scaled by 1.0005)
        periods = {name: max(round(getattr(self, name) * scale / self.dt), 1) for name in SCALED_DURATIONS}
        return replace(self, **{name: count * self.dt for name, count in periods.items()})

    @property
    def step_period(self) -> float:
        """One step: swing plus transfer [s]."""
        return self.single_support + self.double_support

    @classmethod
    def from_mapping(cls, values: Mapping[str, float]) -> WalkConfig:
        """From a dict (e.g. the walk node's parameters); unknown names are refused by name."""
        known = {item.name for item in fields(cls)}
        unknown = sorted(set(values) - known)
        if unknown:
            raise ValueError(f"unknown walk parameters {unknown}; known: {', '.join(sorted(known))}")
        return cls(**{name: float(value) for name, value in values.items()})
