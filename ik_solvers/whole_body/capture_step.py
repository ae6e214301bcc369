"""Capture steps from standing: a push the ankles cannot hold is caught by stepping.

A standing robot (the plan standing still, nothing commanded) holds a push with its CoM and ZMP
inside the double-support polygon (the stabiliser's ankle strategy). When the measured DCM
ξ = c + ċ/ω lies beyond that polygon, shrunk by the stabiliser's margin, by more than
``capture_threshold`` of the sole's length, no ZMP inside the soles brings it back: the robot
must step (J. Pratt, J. Carff, S. Drakunov, A. Goswami, "Capture point: a step toward humanoid
push recovery", IEEE-RAS Humanoids 2006). :class:`CaptureStepper` then:

1. takes the foot on the side the DCM left the soles' midpoint towards (a sagittal push: the
   right one), the other supporting, its ZMP held at the point of that sole (shrunk by the
   margin) nearest the DCM;
2. predicts the DCM at touch-down, T = ``capture_swing`` / ω later, with the ZMP held there,
   ξ_T = p + (ξ − p) e^{ωT} (Englsberger, Ott, Albu-Schäffer, "Three-dimensional bipedal walking
   control based on divergent component of motion", IEEE T-RO 31(2), 2015), and puts the swing's
   sole centre on it, within the leg's reach around the support sole (forward and back: the step
   limit plus the stabiliser's largest landing change; outwards as far), never nearer the support
   sole than 0.75 of the standing stance width (no crossing): of the lateral places from the
   widest down to that, the widest that keeps the predicted DCM a margin inside the two soles'
   convex hull (shrunk by the margin), else the one that keeps it deepest (a large push landed a
   full stance width out and left the DCM on the staggered hull's diagonal edge; every landing
   at 0.75 lost a small push on ``long_legs_heavier``). A target beyond ``NARROW_BEYOND`` reaches
   (the estimate over-reads a large push: 0.45 m predicted against 0.28 m true) lies outside
   every landing's hull and the rule lands a full width out: such a landing goes to 0.75 of the
   width when the DCM, caught at the landed sole's centre along the push, stays inside the shrunk
   hull there;
3. resets the pattern's CoM state to the measured one (the plan is made from where the robot
   is, :meth:`WalkingPatternGenerator.observe_com`) and lays the step into the plan
   (:meth:`FootstepPlanner.step_now`); from touch-down the robot stands in the stance it landed
   in, the ZMP reference between the soles, the pattern's CoM state set to the measured one
   again (no second step: the other foot brought beside the landed one lifted while the body
   was still over the landed sole's heel and threw the caught robot over it). At the swing's last
   tick the landing becomes where the legs measure the swing sole (:meth:`CaptureStepper.land_measured`):
   a swing this short lands 40-80 mm from its plan, and the estimate stands on the plan's soles.
   The landed stance's ZMP reference starts half-way from the soles' midpoint to the caught DCM
   and moves to the midpoint over the transfer (:meth:`CaptureStepper._landed_zmp`): the DCM
   is kept where the step caught it and moved inside the hull slowly, instead of the plan's CoM
   thrown towards the midpoint (a ZMP-limited DCM hold, after Kajita et al. 2010 and Englsberger
   et al. 2015; the ZMP stays inside the shrunk hull).

Only the sagittal part of the DCM's excess starts a step: sideways the soles' polygon is wide and
the ankles hold 0.5 m/s (a step there, never across the support sole, lost it). The soles must
stay flat for the step to work: a position-servoed robot told to bring its CoM back while the DCM
is beyond the toes (heels) tips over that edge instead, and a push of 0.5 m/s had both soles up
8-13 mm before the step lifted (docs/walking.md, Balance step 8). So, while the capture step
swings, the ankles do not fight the push (:meth:`CaptureStepper.follow`): each tick the pattern's
CoM state is reset to the measured one (a pendulum on the held ZMP), the landing is moved to the
DCM predicted at touch-down from the measured state, and the CoM target is the measured CoM (the
stance's joints go with the body; the soles stayed within 0.5-4 degrees of flat instead of 7-13).
For ``FOLLOW_AFTER`` after touch-down the CoM target stays within ``FOLLOW_LIMIT`` of the measured
CoM (:meth:`CaptureStepper.limit`): the ankle strategy limited to what the new soles hold, as a
CoM target far behind the CoM tipped the landed sole over its toes again.

No ROS. Units: m, s, rad; world frame z up (the plan's).
"""

from __future__ import annotations

import numpy as np

from ik_solvers.whole_body.capture_point import clip_to_half_planes, convex_hull, dcm, dcm_after, half_planes
from ik_solvers.whole_body.footsteps import Footstep
from ik_solvers.whole_body.landing_bounds import bounded_offset
from ik_solvers.whole_body.state_estimate import BaseEstimate, BaseStateEstimator
from ik_solvers.whole_body.walking_pattern import WalkingPatternGenerator, WalkTick

FOLLOW_AFTER = 1.0  # [s] after a capture step's touch-down its CoM target stays near the measured CoM
FOLLOW_LIMIT = 0.03  # [m] that far at most (0.02: long_legs_heavier fell to a 0.3 m/s push forward)
MOVE_UNTIL = 0.8  # share of the capture swing after which its landing is no longer moved
# the landing's least lateral place / the standing stance's (0.6: a push back fell on long_legs_heavier)
NARROWEST = 0.75
# a landing whose target lies beyond this many reaches (the estimate over-reads a large push) lands at
# NARROWEST of the width when the DCM, caught at the landed sole's centre along the push, stays inside
NARROW_BEYOND = 1.2
HULL_DEPTH = 1.0  # [margins] how deep inside the shrunk hull the widest landing keeps the predicted DCM
# the landed stance's first ZMP reference: this share of the way from the soles' midpoint to the caught DCM
LANDED_SHARE = 0.5


class CaptureStepper:
    """Starts a capture step from standing when the DCM leaves the soles (module docstring).

    Args:
        generator: the pattern (its planner gets the step; its CoM state is reset).
        omega: the pendulum's natural frequency [1/s].
        margin: [m] the support polygon's margin (the stabiliser's).
        reach: [m] how far forward, back and outwards the swing may land from its nominal place.
        inner: [m] the landing's least lateral distance from the support sole.
        estimator: the stabiliser's state estimate (its legs measure where the swing lands).
    """

    def __init__(
        self,
        generator: WalkingPatternGenerator,
        omega: float,
        margin: float,
        reach: float,
        inner: float,
        estimator: BaseStateEstimator,
    ) -> None:
        config, geometry = generator.config, generator.geometry
        self.generator, self.omega, self.margin, self.estimator = generator, omega, margin, estimator
        self.reach, self.inner = reach, inner
        self.swing = round(config.capture_swing / omega / config.dt) * config.dt  # [s], whole periods
        sole_length = float(min(s.size[0] for s in geometry.soles))
        self.threshold = config.capture_threshold * sole_length
        self.enabled = config.capture_swing > 0.0
        self.steps = 0  # capture steps started
        self._step: tuple[Footstep, np.ndarray] | None = None  # the capture step, its held ZMP (2,) [m]
        self._landed = False  # the capture step has touched down (the plan re-based then)

    @property
    def catching(self) -> bool:
        """A capture step is under way (from its start until the robot stands in its landing)."""
        return self._step is not None

    def standing(self, tick: WalkTick) -> bool:
        """The plan stands still at ``tick`` with nothing commanded."""
        planner = self.generator.planner
        phase = planner.phase_at(tick.time)
        return bool(np.isinf(phase.end) and phase.after.stopped and not np.any(planner.command))

    def update(self, tick: WalkTick, estimate: BaseEstimate, outside: np.ndarray) -> bool:
        """Start a capture step when standing and the DCM is ``outside`` (2,) [m] beyond the shrunk
        double-support polygon by more than the threshold along the soles' forward axis (sagittal
        pushes only); whether one was started."""
        if not self.enabled or not self.beyond(tick, outside) or not self.standing(tick):
            return False
        com, velocity = estimate.com[:2], estimate.com_velocity[:2]
        xi = dcm(com, velocity, self.omega)
        side = self._side(tick, xi)
        support = tick.right_sole if side == "left" else tick.left_sole
        soles = self.generator.geometry.soles
        corners = soles[1 if side == "left" else 0].corners_in_world(support)
        zmp = clip_to_half_planes(xi[None, :], *half_planes(corners, self.margin))[0]
        landing = self._landing(side, support, dcm_after(xi, zmp, self.omega, self.swing))
        self.generator.observe_com(np.array(com), np.array(velocity))
        step = self.generator.planner.step_now(tick.time, side, landing, self.swing, zmp)
        self._step, self._landed = (step, zmp), False
        self.steps += 1
        return True

    def beyond(self, tick: WalkTick, outside: np.ndarray) -> bool:
        """Whether the DCM's excess ``outside`` (2,) [m] beyond the shrunk soles exceeds the
        threshold along the left sole's forward axis."""
        return abs(float(tick.left_sole[:2, 0] @ outside)) > self.threshold

    def follow(self, tick: WalkTick, estimate: BaseEstimate, q: np.ndarray) -> np.ndarray | None:
        """While a capture step swings: the pattern's CoM state reset to the measured one, its
        landing moved to the DCM predicted at touch-down (until ``MOVE_UNTIL`` of the swing), and
        (2,) the CoM target [m], the measured CoM a period ahead (module docstring); None when no
        capture step swings. At its last tick the landing is where the swing sole measures by
        leg kinematics of ``q`` (n,) [rad] (:meth:`land_measured`); at the first tick after
        touch-down the pattern's CoM state is set to the measured one once more, its ZMP the
        reference between the landed soles."""
        if self._step is None:
            return None
        step, zmp = self._step
        com, velocity = estimate.com[:2], estimate.com_velocity[:2]
        if tick.time >= step.land:
            if not self._landed:  # the plan goes on from where the robot stands on its new soles
                self._observe(com, velocity, self._landed_zmp(tick, dcm(com, velocity, self.omega)))
                self._landed = True
            return None
        self._observe(com, velocity, zmp)
        if tick.time + self.generator.config.dt >= step.land:
            self._step = (self.land_measured(tick, estimate, q, step), zmp)
        elif tick.time - step.lift < MOVE_UNTIL * (step.land - step.lift):
            support = tick.right_sole if step.side == "left" else tick.left_sole
            xi = dcm(com, velocity, self.omega)
            target = dcm_after(xi, zmp, self.omega, step.land - tick.time)
            moved = self.generator.planner.move_landing(tick.time, self._landing(step.side, support, target))
            self._step = (moved or step, zmp)
        return com + velocity * self.generator.config.dt

    def land_measured(
        self, tick: WalkTick, estimate: BaseEstimate, q: np.ndarray, step: Footstep
    ) -> Footstep:
        """The swing ``step`` lands where its sole is now, by forward kinematics of ``q`` (n,)
        [rad] from the torso the estimate stands on the support sole (its yaw as planned): a
        0.17 s swing lands 40-80 mm from its planned place (the servos lag, the support sole
        slides), and an estimate standing on the planned place after touch-down read the CoM
        that far off and pulled the caught robot over (docs/walking.md, 2026-11-29)."""
        sole = estimate.torso[:3, :3] @ self.estimator.sole_position(step.side, q) + estimate.torso[:3, 3]
        landing = np.array([sole[0], sole[1], step.end[2]])
        return self.generator.planner.move_landing(tick.time, landing) or step

    def limit(self, tick: WalkTick, estimate: BaseEstimate, com: np.ndarray) -> np.ndarray:
        """The CoM target ``com`` (2,) [m], within ``FOLLOW_LIMIT`` of the measured CoM for
        ``FOLLOW_AFTER`` after a capture step's touch-down (module docstring); as given otherwise."""
        if self._step is None:
            return com
        if tick.time > self._step[0].land + FOLLOW_AFTER:
            self._step = None
            return com
        return estimate.com[:2] + bounded_offset(com - estimate.com[:2], FOLLOW_LIMIT)

    def _observe(self, com: np.ndarray, velocity: np.ndarray, zmp: np.ndarray) -> None:
        """The pattern's CoM state set to the measured ``com`` (2,) [m] and ``velocity`` (2,) [m/s],
        its acceleration the pendulum's on ``zmp`` (2,) [m], no integrated ZMP error (the preview
        controller's integral would otherwise wind up while the state is overridden)."""
        self.generator.observe_com(np.array(com), np.array(velocity))
        controller = self.generator.controller
        controller.state[2] = (com - zmp) * self.omega**2
        controller.error_sum[:] = 0.0

    def _side(self, tick: WalkTick, xi: np.ndarray) -> str:
        """The foot on the side the DCM ``xi`` (2,) left the soles' midpoint towards (right when
        straight ahead or back)."""
        middle = 0.5 * (tick.left_sole[:2, 3] + tick.right_sole[:2, 3])
        leftwards = tick.left_sole[:2, 3] - tick.right_sole[:2, 3]
        return "left" if float(leftwards @ (xi - middle)) > 0.0 else "right"

    def _landing(self, side: str, support: np.ndarray, target: np.ndarray) -> np.ndarray:
        """The planar pose (x, y, yaw) of ``side``'s sole with its centre at ``target`` (2,) [m],
        within ``reach`` of its place beside the ``support`` sole (4, 4) and at least ``inner``
        outside it, facing as the support sole does."""
        sole = self.generator.geometry.soles[0 if side == "left" else 1]
        rotation = support[:2, :2]
        sign = 1.0 if side == "left" else -1.0
        seen = rotation.T @ (target - support[:2, 3])  # in the support sole's frame
        local = seen - np.asarray(sole.center)  # the landing sole's origin
        beyond = abs(float(local[0])) > NARROW_BEYOND * self.reach
        local[0] = np.clip(local[0], -self.reach, self.reach)
        widest = float(
            np.clip(sign * local[1], self.inner, self.generator.geometry.foot_separation + self.reach)
        )
        outwards = self._hull_outwards(side, local[0], widest, seen)
        if beyond:
            caught = np.array([local[0] + sole.center[0], seen[1]])  # along the push: the landed centre
            if self._depth(side, local[0], NARROWEST * widest, caught) >= 0.0:
                outwards = NARROWEST * widest
        local[1] = sign * outwards
        origin = support[:2, 3] + rotation @ local
        return np.array([origin[0], origin[1], np.arctan2(support[1, 0], support[0, 0])])

    def _hull_outwards(self, side: str, along: float, widest: float, target: np.ndarray) -> float:
        """[m] how far outside the support sole ``side``'s sole lands, its origin ``along`` [m]
        ahead of the support's, so that ``target`` (2,) [m, the DCM predicted at touch-down, in
        the support sole's frame] lies deepest inside the two soles' convex hull: the widest of
        ``NARROWEST``..1 of ``widest`` that keeps it ``HULL_DEPTH`` margins inside, else the deepest.
        A landing a full stance width out left the DCM of a large push on the staggered hull's
        diagonal edge and the caught robot rolled over it (docs/walking.md, 2026-11-29 late)."""
        widths = np.linspace(widest, NARROWEST * widest, 6)
        depths = np.array([self._depth(side, along, width, target) for width in widths])
        enough = np.flatnonzero(depths >= HULL_DEPTH * self.margin)
        return float(widths[enough[0]] if len(enough) else widths[int(np.argmax(depths))])

    def _depth(self, side: str, along: float, outwards: float, target: np.ndarray) -> float:
        """[m] how deep ``target`` (2,) [m, in the support sole's frame] lies inside the two soles'
        convex hull shrunk by the margin (negative outside), ``side``'s sole origin ``along`` [m]
        ahead of the support's and ``outwards`` [m] outside it."""
        soles = self.generator.geometry.soles
        swing, support = (soles[0], soles[1]) if side == "left" else (soles[1], soles[0])
        sign = 1.0 if side == "left" else -1.0
        landed = swing.polygon + np.array([along, sign * outwards])
        normals, offsets, _ = half_planes(convex_hull(np.concatenate([support.polygon, landed])), self.margin)
        return float(np.min(offsets - normals @ target))

    def _landed_zmp(self, tick: WalkTick, xi: np.ndarray) -> np.ndarray:
        """(2,) [m] the landed stance's first ZMP reference, set in the plan: ``LANDED_SHARE`` of
        the way from the soles' midpoint to the measured DCM ``xi`` (2,) [m] clipped into the two
        soles' hull shrunk by the margin, moving to the midpoint over the transfer. The plan jumping
        to the midpoint pulled the caught body back across the staggered stance and it rolled over
        the rear sole's outer edge; holding the whole DCM left it on the landed toes (docs/walking.md,
        2026-11-29, branch standpush3)."""
        soles = self.generator.geometry.soles
        corners = np.concatenate(
            [soles[0].corners_in_world(tick.left_sole), soles[1].corners_in_world(tick.right_sole)]
        )
        caught = clip_to_half_planes(xi[None, :], *half_planes(convex_hull(corners), self.margin))[0]
        zmp = tick.zmp_reference + LANDED_SHARE * (caught - tick.zmp_reference)
        self.generator.planner.start_landed_zmp(tick.time, zmp)
        return zmp
