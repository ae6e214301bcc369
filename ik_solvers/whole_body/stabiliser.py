"""Balance feedback for the walking pattern: from the IMU and joint positions to corrected targets.

Each tick (after :meth:`WalkingPatternGenerator.step`), from what a real robot measures:

1. **State**: the floating base and the CoM (:mod:`ik_solvers.whole_body.state_estimate`: IMU
   roll/pitch, leg kinematics of the supporting sole), the DCM ξ = c + ċ/ω and its error
   e = ξ − ξ_ref against the plan's (:mod:`ik_solvers.whole_body.capture_point`).
2. **CoM within the support**: a position-servoed robot whose sole stays flat puts its CoM where
   it is told; a push or a model error shows as the whole robot tipping over a sole's edge, with
   the DCM running ahead of the plan. The CoM target moves the other way, Δc = −g e (g
   ``com_feedback_gain``), at most as far as the ZMP reference can move in the support polygon
   shrunk by a margin: the body is brought back over the sole, which rights it (an ankle strategy).
   The pendulum law of Englsberger et al. 2015 (ZMP p_ref + (1 + k/ω) e, the CoM integrated
   from it) diverged here: without a force sensor its ZMP is never measured, and the integrated
   CoM ran to its bounds within a second of walking.
3. **Stepping**: what the clipped ZMP cannot absorb by touch-down moves the swing's landing
   (:func:`~ik_solvers.whole_body.capture_point.landing_offset`, Khadiv et al. 2016 for a fixed
   step time), at most ``step_adjust_ratio`` of the leg's horizontal reach (a push that asks
   more may land as far before or behind the support sole as ``recovery_reach_ratio`` of that
   reach: :mod:`~ik_solvers.whole_body.landing_bounds`), never across the support sole's inner side, and no more once 80 % of the swing is done. A swinging foot that a
   push towards it has brought down early (its sole, by the joints and the IMU, level with the
   support's while the DCM error runs towards it) lands at once where it is
   (:meth:`~ik_solvers.whole_body.footsteps.FootstepPlanner.land_now`): a swing driven on into
   the floor lifted the support sole and threw the robot back over it.
4. **The far arm**: a push towards the support side that drives the DCM error beyond
   ``arm_trigger`` outwards over the support sole raises the arm on the other side, held and
   lowered slowly (:mod:`ik_solvers.whole_body.far_arm`); the CoM target moves by the arm's own
   shift of the CoM, so that a stance solve that counts the raised arm does not undo it. While
   it is up the torso also rolls into the fall by ``arm_torso_roll`` (a hip strategy).
5. **The front arms**: a walking push back that drives the DCM error beyond ``front_arm_trigger``
   behind the plan's swings both arms forward to ``front_arm_angle``, held and lowered
   (:mod:`ik_solvers.whole_body.front_arms`); the CoM target moves by their shift of the CoM.
6. **Torso level**: the measured roll and pitch times ``torso_level_gain`` are commanded the
   other way (the ankles and hips bring the torso back upright), low-pass filtered first with
   ``torso_level_filter`` > 0 (:class:`TiltFilter`): the lean it corrects is slow, and through a
   servo bus (30 ms of loop delay, positions in 4096 ticks) the unfiltered feedback rocked the
   torso at 10-15 Hz until it fell.

On a slope (``slope_filter`` > 0, :mod:`ik_solvers.whole_body.floor_slope`) the CoM target
also leans uphill by z_c tan α, so that the weight stays over the soles; standing, it also leans
against the support sole's own tilt beyond the floor's when a push tips the soles over their
edge (``tip_lean_gain``, :meth:`FloorSlope.tip_lean`); walking, in double support while the
front arms are out, it leans forward against soles measured on their heels beyond
``heel_lean_tilt`` (:meth:`Stabiliser._heel_lean`).

No ROS, no simulator truth. Units: m, s, rad; world frame z up (the plan's).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ik_solvers.whole_body.capture_point import (
    clip_to_half_planes,
    convex_hull,
    dcm,
    half_planes,
    landing_offset,
    natural_frequency,
)
from ik_solvers.whole_body.capture_step import CaptureStepper
from ik_solvers.whole_body.far_arm import FarArm
from ik_solvers.whole_body.floor_slope import FloorSlope
from ik_solvers.whole_body.front_arms import FrontArms
from ik_solvers.whole_body.landing_bounds import bounded_offset, recovery_landing
from ik_solvers.whole_body.stance import StanceSolver
from ik_solvers.whole_body.state_estimate import BaseEstimate, BaseStateEstimator, attitude_matrix
from ik_solvers.whole_body.walking_pattern import WalkingPatternGenerator, WalkTick

ADJUST_UNTIL = 0.8  # share of a swing after which its landing is no longer moved
TIP_DEADBAND = 0.035  # [rad] a support sole's tilt (against the floor) below this is not leaned against
TIP_LEAN_RATIO = 0.45  # the tip lean's largest size / the leg's horizontal reach (0.1 m packaged)


class TiltFilter:
    """The roll and pitch [rad] the torso level feeds back: first-order low-pass of time constant
    ``time_constant`` [s] (0: passed through), updated every ``dt`` [s] unless told otherwise."""

    def __init__(self, time_constant: float, dt: float) -> None:
        self.time_constant, self.dt = time_constant, dt
        self.value: tuple[float, float] = (0.0, 0.0)  # [rad] roll, pitch
        self.started = False

    def update(self, roll: float, pitch: float, elapsed: float | None = None) -> tuple[float, float]:
        """The filtered (roll, pitch) [rad] after a measurement ``elapsed`` [s] (None: ``dt``)
        after the last."""
        if not self.started or self.time_constant <= 0.0:
            self.value, self.started = (roll, pitch), True
            return self.value
        step = self.dt if elapsed is None else max(elapsed, 0.0)
        blend = step / (step + self.time_constant)
        self.value = tuple(v + blend * (m - v) for v, m in zip(self.value, (roll, pitch)))
        return self.value


@dataclass(frozen=True)
class Correction:
    """What the stabiliser commands at one tick (world frame).

    Attributes:
        com: (2,) CoM target [m] for the stance solve; torso_rotation: (3, 3) its torso attitude.
        estimate: the base state it was computed from.
        dcm_error: (2,) e = ξ − ξ_ref [m]; absorbed: (2,) the part of it the support can take
            (the ZMP's largest shift towards it inside the shrunk polygon) [m].
        landing_moved: (2,) how far the swing's landing is from its plan [m] (zero when standing
            or in double support).
        arm: arm joint → position [rad] to command (the far arm; empty: the arms as they are).
    """

    com: np.ndarray
    torso_rotation: np.ndarray
    estimate: BaseEstimate
    dcm_error: np.ndarray
    absorbed: np.ndarray
    landing_moved: np.ndarray
    arm: dict[str, float] = field(default_factory=dict)


class Stabiliser:
    """Closes the loop around a :class:`WalkingPatternGenerator` (see the module docstring).

    Args:
        generator: the pattern (its config's stabiliser fields; its landings are moved).
        stance: the stance solver (its CoM model and legs).
        on_replan: called when a capture step has laid the plan again from the measured CoM
            (within :meth:`update`, before that step is followed); None: nothing to call.
    """

    def __init__(
        self,
        generator: WalkingPatternGenerator,
        stance: StanceSolver,
        on_replan: Callable[[], None] | None = None,
    ) -> None:
        self.generator, self.stance, self.on_replan = generator, stance, on_replan
        self.config, geometry = generator.config, generator.geometry
        self.omega = natural_frequency(geometry.com_height)
        self.estimator = BaseStateEstimator(
            stance.com, stance.legs, self.config.dt, self.config.velocity_filter
        )
        self.margin = self.config.zmp_margin_ratio * float(min(s.size[1] for s in geometry.soles))
        self.max_adjust = self.config.step_adjust_ratio * geometry.horizontal_reach
        self.recovery_reach = self.config.recovery_reach_ratio * geometry.horizontal_reach
        self.max_tip = TIP_LEAN_RATIO * geometry.horizontal_reach
        self.inner = 0.75 * geometry.foot_separation  # the landing's least lateral distance
        sole_width = float(min(s.size[1] for s in geometry.soles))
        self.outwards_excess = self.config.landing_out_ratio * sole_width  # [m] (_not_inwards; 0: off)
        self.com_height = geometry.com_height
        sole = np.min([s.size for s in geometry.soles], axis=0)  # length, width [m]
        half_stance = np.array([0.5 * sole[0], 0.5 * (geometry.foot_separation + sole[1])])
        self.lean_limits = np.maximum(half_stance - self.margin, 0.0)  # [m] forward, sideways
        self.floor = (
            FloorSlope(stance.com, stance.legs, self.config.dt, self.config.slope_filter)
            if self.config.slope_filter > 0.0
            else None
        )
        reach = geometry.max_step[0] + self.max_adjust
        # a capture step lands no narrower than the standing stance (0.75 of it: rolled sideways after a 0.35 m/s push forward)
        self.capture = CaptureStepper(
            generator, self.omega, self.margin, reach, geometry.foot_separation, self.estimator
        )
        self.tilt = TiltFilter(self.config.torso_level_filter, self.config.dt)
        self.far_arm = FarArm(
            stance.com,
            self.config.arm_trigger,
            self.config.arm_raise_angle,
            self.config.arm_lower_time,
            self.config.arm_torso_roll,
        )
        self.front_arms = FrontArms(stance.com, self.config.front_arm_trigger, self.config.front_arm_angle)
        self._planned: tuple[tuple[str, float], np.ndarray] | None = None  # (swing, its landing as planned)
        self._support: tuple[tuple, tuple] = (
            (),
            (),
        )  # (the support's soles, their shrunk polygon's half-planes)

    def update(
        self,
        tick: WalkTick,
        quaternion: np.ndarray,
        gyro: np.ndarray,
        q: np.ndarray,
        elapsed: float | None = None,
    ) -> Correction:
        """The corrected targets for ``tick``.

        Args:
            tick: the pattern's targets (the generator's last step).
            quaternion: (4,) IMU orientation (w, x, y, z) (roll and pitch used); gyro: (3,) [rad/s].
            q: (n,) measured joint positions [rad] in ``CenterOfMass.joint_names`` order.
            elapsed: [s] between this measurement and the last update's (None: one period).
        """
        support = self._anchor(tick)
        sole = tick.left_sole if support == "left" else tick.right_sole
        estimate = self.estimator.update(quaternion, gyro, q, support, sole, tick.torso_yaw, elapsed)
        error = self._dcm_error(tick, estimate)
        lean = np.zeros(2)
        if self.floor is not None:
            moving = estimate.com_velocity[:2] - tick.com_velocity
            sole_in_torso = self.estimator.sole_in_torso[:3, :3]
            self.floor.update_measured(estimate.torso[:3, :3], sole_in_torso, gyro, sole, moving)
            lean = self.floor.lean(self.com_height, tick.torso_yaw, self.lean_limits)
            if self.config.tip_lean_gain > 0.0 and not tick.walking:
                lean = lean + self._tip_lean(estimate, sole_in_torso, sole, tick.torso_yaw)
            if (
                self.config.heel_lean_tilt > 0.0
                and tick.walking
                and tick.support == "double"
                and self.front_arms.out
            ):
                lean = lean + self._heel_lean(tick, estimate, q)
        reference = tick.zmp_reference
        wanted = np.empty((2, 2))
        wanted[0], wanted[1] = reference + error, reference - self.config.com_feedback_gain * error
        absorbed, shift = clip_to_half_planes(wanted, *self._support_planes(tick)) - reference
        com = tick.com + lean + shift
        if self.capture.update(tick, estimate, error - absorbed) and self.on_replan is not None:
            self.on_replan()
        followed = self.capture.follow(tick, estimate, q)
        if followed is None:
            moved = self._adjust_landing(tick, error, absorbed, self._touched_down(tick, estimate, q, error))
            com = self.capture.limit(tick, estimate, com)
        else:
            com, moved = followed, np.zeros(2)
        arm = self.far_arm.update(tick.time, tick.support, error, tick.torso_yaw, q)
        com = com + self.far_arm.com_shift(q, arm, tick.torso_yaw)
        com, arm = self._front_arms(tick, error, q, com, arm)
        roll, pitch = self.tilt.update(estimate.roll, estimate.pitch, elapsed)
        level = self.config.torso_level_gain
        hip = self.far_arm.torso_roll(tick.time)
        rotation = attitude_matrix(hip - level * roll, -level * pitch, tick.torso_yaw)
        return Correction(com, rotation, estimate, error, absorbed, moved, arm)

    def _front_arms(
        self, tick: WalkTick, error: np.ndarray, q: np.ndarray, com: np.ndarray, arm: dict[str, float]
    ) -> tuple[np.ndarray, dict[str, float]]:
        """The CoM target ``com`` (2,) [m] and arm command ``arm`` with the front arms added
        (step 5: both shoulders forward on a backward DCM ``error`` (2,) [m] arising in single
        support). Not in double support: a forward push's rebound and an 8 degree side slope's
        walk gave back errors beyond the trigger. Not while the far arm is up: a push sideways
        then has back errors of 20-50 mm as the robot rocks, and both arms forward with the far
        arm raised lost long_legs_heavier's 0.1 m/s push right. Not during a capture step from
        standing: swung then, standing pushes back held 0.30 instead of 0.35-0.40 m/s on
        long_legs_heavier and short_legs_lighter."""
        free = tick.support != "double" and self.far_arm.side is None and not self.capture.catching
        front = self.front_arms.update(tick.time, free, error, tick.torso_yaw, q)
        return com + self.front_arms.com_shift(q, front, tick.torso_yaw), {**arm, **front}

    def _tip_lean(
        self, estimate: BaseEstimate, sole_in_torso: np.ndarray, sole: np.ndarray, yaw: float
    ) -> np.ndarray:
        """(2,) [m] the CoM target's lean against the support sole's tip (``tip_lean_gain``),
        at most TIP_LEAN_RATIO of the leg's horizontal reach; over the heels only (forward along
        the heading ``yaw`` [rad]): over the toes leaning back tipped the soles further, over the
        sides it lost the standing sideways push (docs/walking.md, "Forward and back")."""
        tip = self.config.tip_lean_gain * self.floor.tip_lean(
            estimate.torso[:3, :3], sole_in_torso, sole, self.com_height, TIP_DEADBAND
        )
        heading = np.array([np.cos(yaw), np.sin(yaw)])
        tip = max(float(heading @ tip), 0.0) * heading
        return bounded_offset(tip, self.max_tip)

    def _heel_lean(self, tick: WalkTick, estimate: BaseEstimate, q: np.ndarray) -> np.ndarray:
        """(2,) [m] the CoM target's lean forward along the heading in double support, while the
        front arms are out (a walking push back: gated so, the lean lost pushes right, 0.70 ->
        0.50 m/s on short_legs_lighter, 0.50 -> 0.40 on heavier_torso; gated on a backward DCM
        error instead, it helped no back push), with a sole measured on its heel
        (``heel_lean_tilt``): z_c tan(θ − θ_0), θ the larger of the two soles' heel-down pitch
        against the learnt floor (the IMU's attitude and each leg's joints ``q``,
        :meth:`FloorSlope.tip_lean`), θ_0 that field; at most
        TIP_LEAN_RATIO of the leg's horizontal reach. Soles on their heel edges turn about them
        until the CoM stands over those edges: the forward lean moves that balance to a larger
        tilt, so that the soles come back down instead of the robot falling back over them
        (docs/walking.md, "Back pushes: the heel lean")."""
        heading = np.array([np.cos(tick.torso_yaw), np.sin(tick.torso_yaw)])
        torso = estimate.torso[:3, :3]
        tilt = 0.0  # [rad] the larger heel-down pitch
        for side, sole in (("left", tick.left_sole), ("right", tick.right_sole)):
            in_torso = self.estimator.sole_pose(side, q)[:3, :3]
            tip = self.floor.tip_lean(torso, in_torso, sole, self.com_height, 0.0)  # z_c tan θ, forward
            tilt = max(tilt, float(np.arctan(max(float(heading @ tip), 0.0) / self.com_height)))
        forward = self.com_height * np.tan(max(tilt - self.config.heel_lean_tilt, 0.0))
        return bounded_offset(forward * heading, self.max_tip)

    def _dcm_error(self, tick: WalkTick, estimate: BaseEstimate) -> np.ndarray:
        """(2,) e = ξ − ξ_ref [m]: the estimate's DCM against the plan's at ``tick``."""
        return dcm(estimate.com, estimate.com_velocity, self.omega) - dcm(
            tick.com, tick.com_velocity, self.omega
        )

    def _anchor(self, tick: WalkTick) -> str:
        """The sole the estimate stands on: the support, in double support the one nearer the ZMP reference."""
        if tick.support != "double":
            return tick.support
        left = np.hypot(*(tick.left_sole[:2, 3] - tick.zmp_reference))
        right = np.hypot(*(tick.right_sole[:2, 3] - tick.zmp_reference))
        return "left" if left <= right else "right"

    def _support_planes(self, tick: WalkTick) -> tuple:
        """:func:`half_planes` of the support polygon of ``tick`` shrunk by the margin, computed
        again only when the support or its soles change."""
        key = (
            tick.support,
            tick.left_sole.tobytes() if tick.support != "right" else b"",
            tick.right_sole.tobytes() if tick.support != "left" else b"",
        )
        if self._support[0] != key:
            self._support = (key, half_planes(self._polygon(tick), self.margin))
        return self._support[1]

    def _polygon(self, tick: WalkTick) -> np.ndarray:
        """(k, 2) the support polygon of ``tick`` in the world."""
        soles = self.generator.geometry.soles
        corners = []
        if tick.support in ("left", "double"):
            corners.append(soles[0].corners_in_world(tick.left_sole))
        if tick.support in ("right", "double"):
            corners.append(soles[1].corners_in_world(tick.right_sole))
        return corners[0] if len(corners) == 1 else convex_hull(np.concatenate(corners))

    def _touched_down(self, tick: WalkTick, estimate: BaseEstimate, q: np.ndarray, error: np.ndarray) -> bool:
        """Whether the swinging foot is down early: past ``touch_after`` of its swing, its sole
        (by the measured joints and the IMU's attitude) within ``touch_height_ratio`` of the step
        height above the support sole's, while the DCM error runs more than ``touch_error_ratio``
        of the stance width towards it (a push rolling the robot onto that foot), or, an error
        mostly along the heading the way the swing travels as planned, by more than that share
        of the sole's length (a forward push pitching the robot onto that toe: the sole's
        mid-swing place lies mostly beside the CoM, so the error's share towards it shrank as the
        hips widened and the toe was driven on into the floor; docs/walking.md "Forward pushes on
        robots of other sizes"; the fast gait's 0.4 s swings, landed so at 0.78 of the swing,
        fell to 0.25 m/s forward instead of 0.35, so this test waits for a landing at least
        ``touch_remaining`` away); the config's fields. A landing nearer than ``touch_remaining``
        [1/ω] is left to land where it was going, unless the error is mostly along the heading: a
        push back tips the robot onto its support heel and the swinging heel, already behind,
        meets the floor before its time; driven on to its landing it rolled the robot over the
        support sole's outer corner (docs/walking.md, "Back pushes")."""
        step = self.generator.planner.phase_at(tick.time).step
        if step is None or tick.time >= step.land:
            return False
        if tick.time - step.lift < self.config.touch_after * (step.land - step.lift):
            return False
        far = (step.land - tick.time) * self.omega >= self.config.touch_remaining  # [1/ω] to the landing
        if not far and not _sagittal(error, tick.torso_yaw):
            return False
        support = self.estimator.sole_in_torso[:3, 3]
        swing = self.estimator.sole_position(step.side, q)
        height = float(estimate.torso[2, :3] @ (swing - support))
        if height > self.config.touch_height_ratio * self.generator.geometry.step_height:
            return False
        sole = tick.left_sole if step.side == "left" else tick.right_sole
        towards = sole[:2, 3] - estimate.com[:2]
        towards /= max(float(np.hypot(*towards)), 1e-9)
        geometry = self.generator.geometry
        if float(error @ towards) > self.config.touch_error_ratio * geometry.foot_separation:
            return True
        return far and _along_the_swing(
            error, self._planned_landing(step)[:2] - step.start[:2], tick.torso_yaw
        ) > (self.config.touch_error_ratio * float(min(s.size[0] for s in geometry.soles)))

    def _planned_landing(self, step) -> np.ndarray:
        """(3,) [m] where ``step`` (the swing under way) was planned to land, before any move."""
        if self._planned is not None and self._planned[0] == (step.side, step.lift):
            return self._planned[1]
        return step.end

    def _adjust_landing(
        self, tick: WalkTick, error: np.ndarray, absorbed: np.ndarray, touched: bool = False
    ) -> np.ndarray:
        """Move the swing under way so that it lands where the DCM will be, or, ``touched`` down
        early, land it now where it is; (2,) how far from its plan."""
        planner = self.generator.planner
        phase = planner.phase_at(tick.time)
        step = phase.step
        if step is None or tick.time >= step.land:
            return np.zeros(2)
        key = (step.side, step.lift)
        if self._planned is None or self._planned[0] != key:
            self._planned = (key, step.end.copy())
        planned = self._planned[1]
        if touched:
            sole = tick.left_sole if step.side == "left" else tick.right_sole
            here = np.array([sole[0, 3], sole[1, 3], step.end[2]])
            step = planner.land_now(tick.time, here) or step
            return step.end[:2] - planned[:2]
        if (tick.time - step.lift) > ADJUST_UNTIL * (step.land - step.lift):
            return step.end[:2] - planned[:2]
        offset = landing_offset(error, absorbed, self.omega, step.land - tick.time)
        support = tick.right_sole if step.side == "left" else tick.left_sole
        target = planned.copy()
        target[:2] = recovery_landing(planned[:2], offset, support, self.max_adjust, self.recovery_reach)
        target[:2] = self._outside_support(target[:2], step.side, tick)
        if self.outwards_excess > 0.0:
            excess = error - absorbed
            target[:2] = _not_inwards(
                target[:2], planned[:2], step.side, support, excess, self.outwards_excess
            )
        if np.hypot(*(target[:2] - step.end[:2])) >= self.config.step_adjust_deadband:
            step = planner.move_landing(tick.time, target)
        return step.end[:2] - planned[:2]

    def _outside_support(self, landing: np.ndarray, side: str, tick: WalkTick) -> np.ndarray:
        """``landing`` (2,) moved out, if needed, to at least ``inner`` beside the support sole."""
        support = tick.right_sole if side == "left" else tick.left_sole
        lateral = support[:3, 1][:2]  # the support sole's y axis in the world
        sign = 1.0 if side == "left" else -1.0
        across = float(lateral @ (landing - support[:2, 3])) * sign
        if across < self.inner:
            landing = landing + (self.inner - across) * sign * lateral
        return landing


def _not_inwards(
    landing: np.ndarray,
    planned: np.ndarray,
    side: str,
    support: np.ndarray,
    excess: np.ndarray,
    beyond: float,
) -> np.ndarray:
    """``landing`` (2,) [m] of ``side``'s swing, no nearer the ``support`` sole (4, 4) across it
    than ``planned`` (2,) [m] while the DCM's ``excess`` (2,) [m] beyond the shrunk support
    polygon runs more than ``beyond`` [m] outwards over that sole (a push towards the support
    side; ``landing_out_ratio`` of the sole's width: with 0 instead of 20 mm on the packaged
    robot, the fast gait's rocking after a push to the right lost the inward move that held it
    at one instant of five). The swinging foot, on the other side, cannot catch such a DCM
    (docs/walking.md, "Sideways pushes"); moved inwards, it only narrowed the stance the robot
    then rocks back onto: tipped onto the support sole's outer edge, the body came back with the
    DCM beyond the landed sole's outer edge and fell that way (docs/walking.md, "Support-side
    pushes: the rebound")."""
    lateral = support[:2, 1]  # the support sole's y axis in the world
    swing_way = 1.0 if side == "left" else -1.0  # the swing's side along it
    if -float(lateral @ excess) * swing_way <= beyond:
        return landing
    inwards = float(lateral @ (planned - landing)) * swing_way
    return landing + max(inwards, 0.0) * swing_way * lateral


def _along_the_swing(error: np.ndarray, travel: np.ndarray, yaw: float) -> float:
    """[m] the DCM error (2,) along the heading ``yaw`` [rad] when it is mostly along it and
    points the way the swing ``travel`` (2,) [m, landing less lift-off] goes along it; else 0."""
    heading = np.array([np.cos(yaw), np.sin(yaw)])
    along = float(heading @ error)
    if not _sagittal(error, yaw) or along * float(heading @ travel) <= 0.0:
        return 0.0
    return abs(along)


def _sagittal(error: np.ndarray, yaw: float) -> bool:
    """Whether the DCM error (2,) [m] lies more along the heading ``yaw`` [rad] than across it."""
    along = np.cos(yaw) * error[0] + np.sin(yaw) * error[1]
    across = -np.sin(yaw) * error[0] + np.cos(yaw) * error[1]
    return abs(along) > abs(across)
