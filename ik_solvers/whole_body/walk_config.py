"""Walking parameters: timing, weights and fractions; every length comes from the URDF.

Lengths are fractions of the robot's own sizes (:class:`~ik_solvers.whole_body.walk_geometry.WalkGeometry`
reads them from the URDF: leg length, reach, sole size), so that one configuration fits robots of
other dimensions. ``config/walk.yaml`` holds the same fields for the walk node, whose ``walk.<name>``
parameters take their types and ranges from the rules here (:meth:`WalkConfig.rules`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from typing import Any

from ik_solvers.parameter_rules import ParameterError, Rule, check_fields, field_rules, rule_field
from ik_solvers.whole_body.capture_point import natural_frequency

MAX_PREVIEW_STEPS = 2000  # preview_time / dt: the preview gains and every tick's ZMP reference
# have this many rows (2000 rows: the generator built in 0.07 s and stepped in 0.4 ms; 160: 0.33 ms)


def _seconds(default: float, text: str, high: float = 10.0) -> Any:
    return rule_field(Rule(default, text, "s", 0.0, high, low_open=True, start_up_only=True))


def _fraction(default: float, text: str, high: float = 1.0, high_open: bool = True) -> Any:
    return rule_field(
        Rule(default, text, "", 0.0, high, low_open=True, high_open=high_open, start_up_only=True)
    )


def _closed(default: float, text: str, high: float, unit: str = "") -> Any:
    return rule_field(Rule(default, text, unit, 0.0, high, start_up_only=True))


def _weight(default: float, text: str) -> Any:
    return rule_field(Rule(default, text, "", 1e-9, 1e9, start_up_only=True))


def _optional_size(text: str) -> Any:
    return rule_field(Rule(0.0, f"{text}; 0: from the robot", "m", 0.0, 10.0, start_up_only=True))


OPTIONAL_SIZES = (
    "sole_length",
    "sole_width",
    "timing_com_height",
    "timing_sole_length",
    "timing_sole_width",
)  # 0: not given
SCALED_DURATIONS = ("single_support", "double_support", "start_transfer", "preview_time", "command_delay")


@dataclass(frozen=True)
class WalkConfig:
    """Parameters of the walking pattern generator (units in brackets; ranges in :meth:`rules`).

    Attributes:
        dt: control period [s] (100 Hz).
        single_support: duration of one swing [s].
        double_support: transfer of the ZMP between two swings [s].
        start_transfer: ZMP transfer from between the soles to the first support sole, and back
            when stopping [s].
        preview_time: how far ahead the preview controller reads the ZMP reference [s]; at most
            ``MAX_PREVIEW_STEPS`` periods.
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
        timing_sole_length, timing_sole_width: the footprint [m] the swing duration is given
            for; > 0: on a robot whose smaller footprint is shorter or narrower, the swing
            (``single_support``) lasts longer by the larger of the two ratios: walked open loop,
            the CoM strays from its plan by an amount that grows with the swing's pace, and a
            smaller footprint tolerates less (6 cm wide or 8 cm long feet fell at 0.8 s and walked
            at 1.2 s, docs/your-robot.md); 0: not scaled.
        liftoff_margin_ratio: > 0: on a robot whose soles walk far apart for their width, the
            ZMP transfer (``double_support``) lasts long enough that the CoM stands this share
            of the sole's width inside the support sole when the other foot lifts: at the end
            of a linear ZMP transfer over a distance s in a time T the cart-table CoM (its
            bounded solution, which preview control follows) trails the ZMP by s / (2 ω T),
            ω = √(g / z_c), so T ≥ s / (2 ω (w/2 − inset − margin)) (docs/walking.md, "The CoM
            margin at lift-off"); 0: as given.
        stabilise: close the loop (:mod:`ik_solvers.whole_body.stabiliser`): the CoM and torso
            attitude corrected from the IMU and the joint positions, landings adjusted.
        com_feedback_gain: the CoM target moves this times the DCM error (measured − planned)
            the other way, within the support polygon.
        zmp_margin_ratio: the corrected CoM target stays this share of the sole's width inside
            the support polygon (also the margin the ZMP is granted before a step is moved).
        step_adjust_ratio: a swing's landing moves at most this share of the leg's horizontal
            reach at the walking height from its plan.
        step_adjust_deadband: [m] landing changes smaller than this are not made.
        torso_level_gain: the measured torso roll and pitch times this are commanded the other way.
        torso_level_filter: [s] low-pass time constant of the roll and pitch the torso level feeds
            back (0: unfiltered); through a servo bus the unfiltered feedback rocked the torso
            (docs/hardware.md, "The walk through the bus: why the arms part fell").
        tip_lean_gain: standing, when the soles tip over their heels (the support sole's tilt
            measured against the learnt floor, beyond a deadband; not over the toes or sides,
            docs/walking.md "Balance", step 7), the CoM target leans against it by this times
            the lean that holds the pendulum still on a floor of that tilt, z_c tan θ (needs
            ``slope_filter`` > 0); 0: off.
        heel_lean_tilt: [rad] walking, in double support while the front arms are out, a sole
            measured tipped onto its heel (against the learnt floor) beyond this leans the CoM
            target forward by z_c tan of the excess, at most 0.45 of the leg's horizontal reach
            (``Stabiliser._heel_lean``; needs ``slope_filter`` and ``front_arm_trigger`` > 0); 0: off.
        capture_swing: standing (nothing commanded), a push whose DCM leaves the soles is
            caught by a step of this swing time, in units of the pendulum's time constant 1/ω
            (:mod:`ik_solvers.whole_body.capture_step`); 0: off (needs ``stabilise``).
        capture_threshold: how far [sole lengths] the DCM must lie beyond the soles' polygon
            (shrunk by the margin) before a capture step is taken.
        recovery_reach_ratio: when the landing change a push asks exceeds ``step_adjust_ratio``,
            the landing may go this share of the leg's horizontal reach before or behind the
            support sole (:func:`ik_solvers.whole_body.landing_bounds.recovery_landing`); 0: off.
        touch_after, touch_height_ratio, touch_remaining, touch_error_ratio: a swinging foot
            that a push towards it brings down early lands at once where it is
            (:meth:`ik_solvers.whole_body.stabiliser.Stabiliser._touched_down`) when all hold:
            past ``touch_after`` of its swing (a share; 1: never); its sole within
            ``touch_height_ratio`` of the step height above the support sole's level; its
            planned landing more than ``touch_remaining`` [1/ω, the pendulum's time constant]
            away; the DCM error more than ``touch_error_ratio`` of the stance width towards it,
            or, mostly along the heading and the way the swing travels as planned, of the sole's length.
        zmp_inset_ratio: the ZMP reference on each sole lies this share of the sole's width
            inside its footprint's centre, towards the other sole (single support and the
            transfers alike, so the standing midpoint is unchanged): in single support the
            DCM then stands that much further from the support sole's outer edge, which a push
            towards the support side must cross (docs/walking.md, "Support-side pushes: the ZMP
            reference inset": it holds more there but loses elsewhere, hence off); 0: the
            footprint's centre.
        landing_out_ratio: while the DCM runs more than this share of the sole's width
            outwards beyond the support sole (shrunk by the margin), the swing's landing is not
            moved towards the support sole (a push towards the support side: the swinging foot
            cannot catch it there, and landed inwards it narrowed the stance the robot rocked
            back onto; docs/walking.md, "Support-side pushes: the rebound"); 0: off (the fast
            gait's short swings held a 0.2 m/s push left better with the inward move).
        arm_trigger: [m] in single support, a lateral DCM error beyond this outwards over the
            support sole raises the arm on the other side (:mod:`ik_solvers.whole_body.far_arm`;
            the unpushed walk's error stays within ±14 mm on the packaged robot and the factory
            variants); 0: the arms are never commanded.
        arm_raise_angle: [rad] how far that arm's shoulder abducts (within its joint limit).
        arm_lower_time: [s] once the next single support begins, the arm returns to where it was
            over this time (lowered at once, it threw the body back towards the push).
        arm_torso_roll: [rad] while the far arm is up, the torso rolls into the fall (its top
            towards the support side) by up to this, reached as the outward DCM error grows from
            ``arm_trigger`` to twice it, returned as the arm is lowered: a hip strategy
            (:mod:`ik_solvers.whole_body.far_arm`); 0: none.
        front_arm_trigger: [m] walking, a DCM error beyond this behind the plan's (mostly along
            the heading) swings both arms forward (:mod:`ik_solvers.whole_body.front_arms`: their
            reaction and mass against the tip over the support heel); 0: never.
        front_arm_angle: [rad] how far those shoulders flex forward (within their joint limits).
        velocity_filter: [s] low-pass time constant of the CoM velocity estimate.
        slope_filter: [s] low-pass time constant of the floor's slope estimate
            (:mod:`ik_solvers.whole_body.floor_slope`, from the IMU and the support sole's
            kinematics; the CoM target leans uphill by it); 0: the floor taken as level.
    """

    dt: float = _seconds(0.01, "control period", high=0.1)
    single_support: float = _seconds(0.5, "duration of one swing")
    double_support: float = _seconds(0.15, "ZMP transfer between two swings")
    start_transfer: float = _seconds(0.4, "ZMP transfer onto the first support sole and back")
    preview_time: float = _seconds(1.6, "ZMP preview horizon", high=5.0)
    command_delay: float = _seconds(1.6, "a new cmd_vel changes the plan no earlier than this")
    zmp_error_weight: float = _weight(1.0, "preview controller Qe")
    jerk_weight: float = _weight(1e-6, "preview controller R")
    torso_height_ratio: float = _fraction(0.9, "torso height over the soles / with straight legs")
    step_height_ratio: float = _fraction(0.08, "swing lift / leg length", high=0.5, high_open=False)
    reach_ratio: float = _fraction(0.35, "step limits / the leg's horizontal reach")
    max_step_yaw: float = rule_field(
        Rule(0.4, "turn of one step", "rad", 0.0, math.pi / 2, low_open=True, start_up_only=True)
    )
    sole_length: float = _optional_size("sole length, when the collision geometry does not give it")
    sole_width: float = _optional_size("sole width, when the collision geometry does not give it")
    timing_com_height: float = _optional_size("CoM height the durations are tuned for (scaled by sqrt)")
    timing_sole_length: float = _optional_size("footprint length the swing duration is tuned for")
    timing_sole_width: float = _optional_size("footprint width the swing duration is tuned for")
    liftoff_margin_ratio: float = _closed(
        0.0,
        "CoM inside the support sole at lift-off, lengthening the ZMP transfer / sole width (0: off)",
        0.45,
    )
    stabilise: bool = rule_field(
        Rule(
            False, "close the loop on the IMU and joint positions (whole_body.stabiliser)", start_up_only=True
        )
    )
    com_feedback_gain: float = rule_field(
        Rule(
            0.5,
            "the CoM target moves this times the DCM error the other way",
            "",
            0.0,
            5.0,
            start_up_only=True,
        )
    )
    zmp_margin_ratio: float = _fraction(0.3, "margin inside the support polygon / the sole's width", 0.5)
    step_adjust_ratio: float = _fraction(0.5, "largest landing change / the leg's horizontal reach", 2.0)
    step_adjust_deadband: float = rule_field(
        Rule(0.005, "landing changes smaller than this are not made", "m", 0.0, 1.0, start_up_only=True)
    )
    torso_level_gain: float = rule_field(
        Rule(0.5, "torso tilt fed back into its commanded attitude", "", 0.0, 5.0, start_up_only=True)
    )
    torso_level_filter: float = rule_field(
        Rule(
            0.0,
            "low-pass time constant of the tilt the torso level feeds back (0: none)",
            "s",
            0.0,
            1.0,
            start_up_only=True,
        )
    )
    tip_lean_gain: float = rule_field(
        Rule(0.0, "lean against a support sole tipped over its edge", "", 0.0, 2.0, start_up_only=True)
    )
    heel_lean_tilt: float = _closed(
        0.0, "a sole's heel-down tilt beyond which the CoM leans forward (0: off)", 0.5, "rad"
    )
    capture_swing: float = rule_field(
        Rule(
            0.0,
            "standing, a capture step's swing time (whole_body.capture_step; 0: off)",
            "1/omega",
            0.0,
            10.0,
            start_up_only=True,
        )
    )
    capture_threshold: float = rule_field(
        Rule(
            0.1,
            "standing, the DCM this far beyond the soles starts a capture step / the sole's length",
            "",
            0.0,
            2.0,
            start_up_only=True,
        )
    )
    recovery_reach_ratio: float = rule_field(
        Rule(
            0.0,
            "a recovery step's reach before or behind the support sole / the leg's horizontal reach",
            "",
            0.0,
            2.0,
            start_up_only=True,
        )
    )
    touch_after: float = _closed(
        0.3, "share of a swing before which an early touch-down is not looked for", 1.0
    )
    touch_height_ratio: float = _closed(
        0.25, "a swinging sole this near the support's level is down / step height", 2.0
    )
    touch_remaining: float = _closed(
        1.0, "a swing landing sooner than this lands where it was going", 10.0, "1/omega"
    )
    touch_error_ratio: float = _closed(
        0.2,
        "DCM error towards the swinging foot landing it early / stance width (along the heading: / sole length)",
        10.0,
    )
    zmp_inset_ratio: float = _closed(
        0.0, "the ZMP reference on a sole this far inside its centre, towards the other / sole width", 0.5
    )
    landing_out_ratio: float = _closed(
        0.0,
        "DCM beyond the support sole that keeps the landing from moving towards it / sole width (0: off)",
        10.0,
    )
    arm_trigger: float = _closed(
        0.0, "lateral DCM error outwards over the support sole that raises the far arm (0: never)", 1.0, "m"
    )
    arm_raise_angle: float = _closed(
        2.9, "the far arm's shoulder abduction (within its limit)", math.pi, "rad"
    )
    arm_lower_time: float = _seconds(2.0, "the far arm returns to where it was over this time")
    arm_torso_roll: float = _closed(
        0.0, "the torso's largest roll into the fall while the far arm is up (0: none)", 0.5, "rad"
    )
    front_arm_trigger: float = _closed(
        0.0, "DCM error behind the plan's, walking, that swings both arms forward (0: never)", 1.0, "m"
    )
    front_arm_angle: float = _closed(
        2.5, "the front arms' shoulder flexion (within its limit)", math.pi, "rad"
    )
    velocity_filter: float = rule_field(
        Rule(0.02, "low-pass time constant of the CoM velocity estimate", "s", 0.0, 1.0, start_up_only=True)
    )
    slope_filter: float = rule_field(
        Rule(
            1.0, "low-pass time constant of the floor's slope (0: level)", "s", 0.0, 10.0, start_up_only=True
        )
    )

    def __post_init__(self) -> None:
        check_fields(self, "walk.")
        if (self.sole_length > 0) != (self.sole_width > 0):
            raise ParameterError(
                f"walk.sole_length = {self.sole_length} and walk.sole_width = {self.sole_width}: "
                "give both (the sole's size [m]) or neither (0: from the collision geometry)"
            )
        if self.preview_time < self.dt or self.single_support < 2 * self.dt:
            raise ParameterError(
                f"walk timing: preview_time {self.preview_time} s and single_support {self.single_support} s "
                f"must cover a few periods of dt {self.dt} s"
            )
        if self.preview_time / self.dt > MAX_PREVIEW_STEPS:
            raise ParameterError(
                f"walk.preview_time {self.preview_time} s is {self.preview_time / self.dt:.0f} periods of "
                f"walk.dt {self.dt} s; at most {MAX_PREVIEW_STEPS} periods are accepted"
            )

    @classmethod
    def rules(cls) -> dict[str, Rule]:
        """Field name → its :class:`~ik_solvers.parameter_rules.Rule` (type, range, unit)."""
        return field_rules(cls)

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

    def for_footprint(self, size: tuple[float, float]) -> WalkConfig:
        """This configuration with its swing made longer for a footprint of ``size`` (length,
        width) [m] smaller than ``timing_sole_length`` × ``timing_sole_width`` (whole periods
        ``dt``); itself when the footprint is as large or those are 0."""
        ratios = [
            reference / max(actual, 1e-9)
            for reference, actual in zip((self.timing_sole_length, self.timing_sole_width), size)
            if reference > 0.0
        ]
        scale = max(ratios, default=1.0)
        if scale <= 1.0 + 1e-6:  # as large (to rounding): the swing as given
            return self
        return replace(self, single_support=round(self.single_support * scale / self.dt) * self.dt)

    def for_stance(self, separation: float, sole_width: float, com_height: float) -> WalkConfig:
        """This configuration with its ZMP transfer made long enough for the CoM margin at lift-off
        (``liftoff_margin_ratio``) on soles ``separation`` [m] apart (centres) and ``sole_width``
        [m] wide, the CoM ``com_height`` [m] high (whole periods ``dt``); itself when the
        transfer is long enough as given or the ratio is 0.

        Raises:
            ValueError: the ZMP inset and the margin leave no room inside the sole's half width.
        """
        if not self.liftoff_margin_ratio:
            return self
        inset = self.zmp_inset_ratio * sole_width
        room = 0.5 * sole_width - inset - self.liftoff_margin_ratio * sole_width  # [m] CoM lag allowed
        if room <= 0.0:
            raise ValueError(
                f"zmp_inset_ratio {self.zmp_inset_ratio} and liftoff_margin_ratio {self.liftoff_margin_ratio} "
                "leave the CoM no room inside the sole's half width; accepted: their sum below 0.5"
            )
        transfer = max(separation - 2.0 * inset, 0.0)  # [m] between the two soles' ZMP references
        needed = transfer / (2.0 * natural_frequency(com_height) * room)  # [s]
        if needed <= self.double_support + 1e-9:
            return self
        return replace(self, double_support=math.ceil(needed / self.dt - 1e-6) * self.dt)

    @property
    def step_period(self) -> float:
        """One step: swing plus transfer [s]."""
        return self.single_support + self.double_support

    @classmethod
    def from_mapping(cls, values: Mapping[str, float]) -> WalkConfig:
        """From a dict (e.g. the walk node's parameters); unknown names are refused by name.

        Raises:
            ParameterError: an unknown name, or a value of a wrong type or out of its range.
        """
        known = {item.name for item in fields(cls)}
        unknown = sorted(set(values) - known)
        if unknown:
            raise ParameterError(f"unknown walk parameters {unknown}; known: {', '.join(sorted(known))}")
        return cls(**values)
