"""The stabiliser in a loop with delay that starts from any posture (walk_node → ik_node → servos).

:class:`~ik_solvers.whole_body.stabiliser.Stabiliser` compares the measured DCM with the plan's
of the same tick, and starts at once. In the offline loop the measurement is of the last physics
step and the robot starts in the plan's stance; through the nodes the joint states are a period
older and the targets act a period later, and the robot may start far from the plan's stance
(``walk.launch.py`` starts from straight legs, whose first targets bend the knees at the joints'
velocity limits). :class:`LoopStabiliser` adds:

1. **Alignment**: the measured DCM is compared with the plan's of one loop delay ago, d = the
   measurements' age + ``actuation_delay`` (a command acts from the next period on), the plan
   that the measured robot was following, interpolated in time between the ticks seen. The CoM
   velocity is the difference of two measurements over the time between them: a loop that
   misses periods (a stalled process catching up, a simulator that ran on without it) measures
   further apart than one period, and dividing by the period made the velocity, and the DCM
   error, jump by the periods missed (the stabilised demo fell standing, in its arms part).
2. **Ramp**: the feedback is held at zero until the measured stance (the torso height and the
   CoM, by the legs' kinematics) is within ``stance_tolerance`` of the plan's, then brought in
   linearly over ``ramp_time``: the DCM error — and with it the CoM shift and the landing
   change — and the torso's levelling, times a share rising from 0 to 1.

The measurements must be sampled at a steady age (walk_node's
:class:`~ik_solvers.walk.balance_inputs.BalanceInputs` interpolates them by their stamps): the
estimate's CoM velocity is a difference per period, and joint states sometimes one period newer
than the tick before made it jitter, which the loop amplified until the robot fell.

No ROS. Units: m, s, rad; world frame z up (the plan's).
"""

from __future__ import annotations

from collections import deque
from dataclasses import replace

import numpy as np

from ik_solvers.whole_body.capture_point import dcm
from ik_solvers.whole_body.stabiliser import Correction, Stabiliser
from ik_solvers.whole_body.stance import StanceSolver
from ik_solvers.whole_body.state_estimate import BaseEstimate, attitude_matrix
from ik_solvers.whole_body.walking_pattern import WalkingPatternGenerator, WalkTick

HISTORY = 50  # ticks of the plan kept (longer delays use the oldest)


class LoopStabiliser(Stabiliser):
    """The stabiliser aligned with the loop's delay and ramped in at start-up (module docstring).

    Args:
        generator, stance: as for :class:`Stabiliser`.
        actuation_delay: [s] from a command to the measured joints showing it, beyond the
            measurement's age (one period in a lock-stepped simulator).
        ramp_time: [s] over which the feedback comes in once the stance is reached (0: at once).
        stance_tolerance: [m] the measured torso height and CoM within this of the plan's count
            as the stance reached.

    Raises:
        ValueError: a negative delay or ramp time, a tolerance not above 0 (the message names it).
    """

    def __init__(
        self,
        generator: WalkingPatternGenerator,
        stance: StanceSolver,
        actuation_delay: float = 0.01,
        ramp_time: float = 1.0,
        stance_tolerance: float = 0.01,
    ) -> None:
        if not (actuation_delay >= 0.0 and ramp_time >= 0.0 and stance_tolerance > 0.0):
            raise ValueError(
                f"LoopStabiliser needs actuation_delay >= 0 (got {actuation_delay} s), ramp_time >= 0 "
                f"(got {ramp_time} s) and stance_tolerance > 0 (got {stance_tolerance} m)"
            )
        super().__init__(generator, stance, on_replan=self._rebase_plan_history)
        self.actuation_delay, self.ramp_time, self.tolerance = actuation_delay, ramp_time, stance_tolerance
        self.age = 0.0  # [s] the last measurements' age
        self.ramp = 0.0  # the feedback's share now, 0..1
        self.ready_at: float | None = None  # [s] plan time the stance was first reached
        self._measured: float | None = None  # [s] plan time the last measurements describe
        self._plan: deque[tuple[float, np.ndarray, np.ndarray]] = deque(
            maxlen=HISTORY
        )  # (plan time, CoM, velocity), newest last

    @property
    def delay(self) -> float:
        """[s] the loop delay: the last measurements' age + ``actuation_delay``."""
        return self.age + self.actuation_delay

    def update(
        self, tick: WalkTick, quaternion: np.ndarray, gyro: np.ndarray, q: np.ndarray, age: float = 0.0
    ) -> Correction:
        """The corrected targets for ``tick`` from measurements ``age`` [s] old (the other
        arguments as for :meth:`Stabiliser.update`)."""
        self.age = max(age, 0.0)
        self._plan.append((tick.time, tick.com[:2].copy(), tick.com_velocity[:2].copy()))
        measured = tick.time - self.age
        elapsed = None if self._measured is None else measured - self._measured
        self._measured = measured
        correction = super().update(tick, quaternion, gyro, q, elapsed)
        level = self.ramp * self.config.torso_level_gain
        roll, pitch = self.tilt.value  # as the base class filtered them for this tick
        rotation = attitude_matrix(-level * roll, -level * pitch, tick.torso_yaw)
        return replace(correction, torso_rotation=rotation)

    def _dcm_error(self, tick: WalkTick, estimate: BaseEstimate) -> np.ndarray:
        """(2,) the measured DCM against the plan's of one loop delay ago, times the ramp."""
        com, velocity = self._plan_at(tick.time - self.delay)
        self._advance_ramp(tick, estimate, com)
        return self.ramp * (
            dcm(estimate.com, estimate.com_velocity, self.omega) - dcm(com, velocity, self.omega)
        )

    def _rebase_plan_history(self) -> None:
        """The plan was laid again from the measured CoM (a capture step; the base class's
        ``on_replan``): the plan kept is taken as the new one's state now, so that the delayed
        comparison does not see the jump."""
        com, velocity = (np.array(v, dtype=float) for v in self.generator.controller.state[:2])
        self._plan = deque(((t, com, velocity) for t, _, _ in self._plan), maxlen=HISTORY)

    def _plan_at(self, when: float) -> tuple[np.ndarray, np.ndarray]:
        """The plan's (CoM (2,) [m], velocity (2,) [m/s]) at plan time ``when`` [s], interpolated
        between the ticks kept (the oldest before them, the newest after)."""
        plan = self._plan
        before = next((i for i in range(len(plan) - 1, -1, -1) if plan[i][0] <= when), None)
        if before is None:
            return plan[0][1], plan[0][2]
        if before == len(plan) - 1:
            return plan[-1][1], plan[-1][2]
        (t0, c0, v0), (t1, c1, v1) = plan[before], plan[before + 1]
        share = (when - t0) / (t1 - t0)
        return c0 + share * (c1 - c0), v0 + share * (v1 - v0)

    def _advance_ramp(self, tick: WalkTick, estimate: BaseEstimate, com: np.ndarray) -> None:
        """Start the ramp once the measured torso height and CoM are within the tolerance of the
        plan's (``com`` (2,) [m]); then raise it with the plan's time."""
        if self.ready_at is None:
            height = abs(float(estimate.torso[2, 3]) - tick.torso_height)
            if height > self.tolerance or float(np.hypot(*(estimate.com[:2] - com))) > self.tolerance:
                return
            self.ready_at = tick.time
        elapsed = tick.time - self.ready_at
        self.ramp = 1.0 if self.ramp_time == 0.0 else min(elapsed / self.ramp_time, 1.0)
