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
   sole than 0.75 of the stance width (no crossing, no collision of the legs);
3. resets the pattern's CoM state to the measured one (the plan is made from where the robot
   is, :meth:`WalkingPatternGenerator.observe_com`) and lays the step into the plan
   (:meth:`FootstepPlanner.step_now`); the stabiliser's landing change then corrects it in the
   air as for any step, and the zero command brings the other foot beside the landed one and the
   robot back to standing (a second step).

No ROS. Units: m, s, rad; world frame z up (the plan's).
"""

from __future__ import annotations

import numpy as np

from ik_solvers.whole_body.capture_point import clip_to_half_planes, dcm, dcm_after, half_planes
from ik_solvers.whole_body.state_estimate import BaseEstimate
from ik_solvers.whole_body.walking_pattern import WalkingPatternGenerator, WalkTick


class CaptureStepper:
    """Starts a capture step from standing when the DCM leaves the soles (module docstring).

    Args:
        generator: the pattern (its planner gets the step; its CoM state is reset).
        omega: the pendulum's natural frequency [1/s].
        margin: [m] the support polygon's margin (the stabiliser's).
        reach: [m] how far forward, back and outwards the swing may land from its nominal place.
        inner: [m] the landing's least lateral distance from the support sole.
    """

    def __init__(
        self, generator: WalkingPatternGenerator, omega: float, margin: float, reach: float, inner: float
    ) -> None:
        config, geometry = generator.config, generator.geometry
        self.generator, self.omega, self.margin = generator, omega, margin
        self.reach, self.inner = reach, inner
        self.swing = round(config.capture_swing / omega / config.dt) * config.dt  # [s], whole periods
        sole_length = float(min(s.size[0] for s in geometry.soles))
        self.threshold = config.capture_threshold * sole_length
        self.enabled = config.capture_swing > 0.0
        self.steps = 0  # capture steps started

    def standing(self, tick: WalkTick) -> bool:
        """The plan stands still at ``tick`` with nothing commanded."""
        planner = self.generator.planner
        phase = planner.phase_at(tick.time)
        return bool(np.isinf(phase.end) and phase.after.stopped and not np.any(planner.command))

    def update(self, tick: WalkTick, estimate: BaseEstimate, outside: np.ndarray) -> bool:
        """Start a capture step when standing and the DCM is ``outside`` (2,) [m] beyond the shrunk
        double-support polygon by more than the threshold; whether one was started."""
        if not self.enabled or float(np.hypot(*outside)) <= self.threshold or not self.standing(tick):
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
        self.generator.planner.step_now(tick.time, side, landing, self.swing, zmp)
        self.steps += 1
        return True

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
        local = rotation.T @ (target - support[:2, 3]) - np.asarray(sole.center)  # sole origin
        local[0] = np.clip(local[0], -self.reach, self.reach)
        outwards = np.clip(sign * local[1], self.inner, self.generator.geometry.foot_separation + self.reach)
        local[1] = sign * outwards
        origin = support[:2, 3] + rotation @ local
        return np.array([origin[0], origin[1], np.arctan2(support[1, 0], support[0, 0])])
