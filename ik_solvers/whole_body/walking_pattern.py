"""Walking pattern generator: velocity command → footsteps → ZMP reference → CoM → per-tick targets.

The linear inverted pendulum with ZMP preview control (Kajita et al., "Biped walking pattern
generation by using preview control of zero-moment point", ICRA 2003; see ``docs/walking.md``):
:class:`~ik_solvers.whole_body.footsteps.FootstepPlanner` lays out the steps and the ZMP
reference, :class:`~ik_solvers.whole_body.preview_control.PreviewController` moves the CoM so that
the cart-table ZMP follows it, and :mod:`~ik_solvers.whole_body.swing` lifts and lands the swinging
sole. Each :meth:`WalkingPatternGenerator.step` yields a :class:`WalkTick`: what one stance solve
needs (both soles, the support, the CoM target, the torso's yaw and height).

World frame: z up, the ground at the initial soles' height; x, y as the initial soles are given.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

import numpy as np

from ik_solvers.model import RobotModel
from ik_solvers.whole_body.footsteps import Footstep, FootstepPlanner
from ik_solvers.whole_body.preview_control import PreviewController
from ik_solvers.whole_body.stance import StanceSolver
from ik_solvers.whole_body.swing import sole_matrix, swing_state, wrap_angle
from ik_solvers.whole_body.walk_config import WalkConfig
from ik_solvers.whole_body.walk_geometry import WalkGeometry

SETTLED_DISTANCE, SETTLED_SPEED = 1e-3, 1e-3  # [m], [m/s]: the CoM at rest when standing


@dataclass(frozen=True)
class WalkTick:
    """The pattern at one instant (world frame).

    Attributes:
        time: [s] since the generator started.
        left_sole, right_sole: (4, 4) sole poses [m].
        support: "left", "right" or "double" (the stance solve's ``support``).
        com: (2,) CoM target x, y [m]; com_velocity: (2,) [m/s].
        zmp_reference: (2,) the planned ZMP [m]; zmp: (2,) the cart-table model's ZMP of ``com``.
        torso_yaw: [rad]; torso_height: torso origin z [m].
        walking: False once standing with nothing planned and the CoM at rest over the soles'
            midpoint (within 1 mm and 1 mm/s).
    """

    time: float
    left_sole: np.ndarray
    right_sole: np.ndarray
    support: str
    com: np.ndarray
    com_velocity: np.ndarray
    zmp_reference: np.ndarray
    zmp: np.ndarray
    torso_yaw: float
    torso_height: float
    walking: bool

    @property
    def torso_rotation(self) -> np.ndarray:
        """(3, 3) level torso orientation facing ``torso_yaw``."""
        return sole_matrix(0.0, 0.0, 0.0, self.torso_yaw)[:3, :3]


class WalkingPatternGenerator:
    """Stepped at the config's ``dt``; turns a velocity command into whole-body targets.

    Args:
        model: the robot (sizes from its URDF, see :class:`WalkGeometry`).
        config: timing and fractions; defaults suit the packaged humanoid and scale with it (the
            durations with the CoM height when ``timing_com_height`` is set, the swing with a
            smaller footprint when ``timing_sole_length``/``width`` are, the transfer with soles
            far apart for their width when ``liftoff_margin_ratio`` is: :attr:`config` is the
            scaled configuration).
        left_sole, right_sole: (4, 4) initial world poses of the standing soles; None = the
            standing stance (``WalkGeometry.start_separation``) around the world origin, facing
            x, on the ground z = 0.
        stance: a stance solver to reuse for the sizes (else one is built).
    """

    def __init__(
        self,
        model: RobotModel,
        config: WalkConfig | None = None,
        left_sole: np.ndarray | None = None,
        right_sole: np.ndarray | None = None,
        stance: StanceSolver | None = None,
    ) -> None:
        config = config or WalkConfig()
        self.geometry = WalkGeometry.from_model(model, config, stance)
        footprint = np.min([sole.size for sole in self.geometry.soles], axis=0)
        self.config = (
            config.for_com_height(self.geometry.com_height)
            .for_footprint(tuple(footprint))
            .for_stance(self.geometry.foot_separation, float(footprint[1]), self.geometry.com_height)
        )
        half = 0.5 * self.geometry.start_separation
        left_sole = sole_matrix(0.0, half, 0.0, 0.0) if left_sole is None else np.asarray(left_sole, float)
        right_sole = (
            sole_matrix(0.0, -half, 0.0, 0.0) if right_sole is None else np.asarray(right_sole, float)
        )
        self.ground = 0.5 * float(left_sole[2, 3] + right_sole[2, 3])
        self.planner = FootstepPlanner(self.geometry, self.config, _planar(left_sole), _planar(right_sole))
        self.controller = PreviewController(
            self.config.dt,
            self.geometry.com_height,
            self.config.preview_time,
            self.config.zmp_error_weight,
            self.config.jerk_weight,
        )
        self.controller.reset(self.planner.phases[0].zmp_start)
        self._offsets = np.arange(self.controller.horizon + 1) * self.config.dt
        self.ticks = 0

    @property
    def time(self) -> float:
        """[s] of the last tick."""
        return self.ticks * self.config.dt

    @property
    def max_command(self) -> np.ndarray:
        """(3,) largest forward, lateral speed [m/s] and yaw rate [rad/s] (from the step limits)."""
        return self.planner.max_command

    def set_command(self, forward: float, lateral: float, yaw_rate: float) -> np.ndarray:
        """Velocity command in the robot's heading frame [m/s, m/s, rad/s]; steps not yet begun are
        re-planned (``config.command_delay`` from now: :meth:`stop` stops sooner). Returns the
        command as clipped to :attr:`max_command`.

        Raises:
            ValueError: a non-finite number.
        """
        command = np.array([forward, lateral, yaw_rate], dtype=float)
        if not np.all(np.isfinite(command)):
            raise ValueError(f"velocity command {command.tolist()}: finite numbers are required")
        return self.planner.set_command(command, self.time, self._horizon())

    def stop(self) -> bool:
        """Stop at once (a dead-man timeout): the command becomes zero, a swing under way in its
        first half lands beside the support sole, a later one as planned, and the other sole
        steps beside it (none when they stand side by side); the last step lands within one step
        period (:attr:`WalkConfig.step_period`) from now, and the ZMP reference changes at once
        (:class:`~ik_solvers.whole_body.footsteps.FootstepPlanner`). Returns True.

        The preview controller is first run a horizon ahead on the new ZMP reference: when its ZMP
        would stray farther from it than ``planner.stop_tolerance`` (a faster gait than
        ``config/walk.yaml``'s), the stop is instead a zero command like any other
        (:meth:`set_command`, ``command_delay`` later), and this returns False.
        """
        now = self.time
        if self.planner.stop(now, now + 2 * self._horizon(), self._followable):
            return True
        self.set_command(0.0, 0.0, 0.0)
        return False

    def _followable(self) -> bool:
        """A copy of the preview controller, run a horizon ahead on the planned ZMP reference,
        keeps its ZMP within ``planner.stop_tolerance`` of it."""
        controller, horizon = copy.deepcopy(self.controller), self.controller.horizon
        reference = self.planner.zmp_reference(self.time + np.arange(2 * horizon + 1) * self.config.dt)
        for k in range(horizon):
            controller.step(reference[k : k + horizon + 1])
            if np.hypot(*(controller.zmp - reference[k + 1])) > self.planner.stop_tolerance:
                return False
        return True

    def observe_com(
        self, position: np.ndarray, velocity: np.ndarray | None = None, gain: float = 1.0
    ) -> None:
        """Pull the pattern's CoM state towards a measured one (closing the loop on a base pose or
        an IMU-based estimate): position (2,) [m] and velocity (2,) [m/s] in the world, each moved
        by ``gain`` (0..1) of the difference. The preview controller then steers from there back
        onto the ZMP reference.

        Raises:
            ValueError: non-finite numbers, wrong shapes or a gain outside [0, 1].
        """
        state = self.controller.state
        position = np.asarray(position, dtype=float)
        velocity = state[1] if velocity is None else np.asarray(velocity, dtype=float)
        if position.shape != (2,) or velocity.shape != (2,) or not 0.0 <= gain <= 1.0:
            raise ValueError(
                f"observe_com takes position (2,) [m], velocity (2,) [m/s] and gain in [0, 1]; got shapes "
                f"{position.shape}, {velocity.shape} and gain {gain}"
            )
        if not (np.all(np.isfinite(position)) and np.all(np.isfinite(velocity))):
            raise ValueError("observe_com: position and velocity must be finite")
        state[0] += gain * (position - state[0])
        state[1] += gain * (velocity - state[1])

    def footsteps(self) -> list[Footstep]:
        """Every swing so far and planned (for figures)."""
        return self.planner.footsteps()

    def step(self) -> WalkTick:
        """Advance one period ``dt`` and return the targets at the new time."""
        now = self.time
        self.planner.extend(now + self._horizon())
        reference = self.planner.zmp_reference(now + self._offsets)
        self.controller.step(reference)
        self.ticks += 1
        return self._tick(self.time, reference[1])

    def _horizon(self) -> float:
        return self.config.preview_time + 2 * self.config.dt

    def _tick(self, time: float, zmp_reference: np.ndarray) -> WalkTick:
        phase = self.planner.phase_at(time)
        after = self.planner.phases[-1].after
        soles = {"left": None, "right": None}
        state = self._sole_state(time)
        for side in soles:
            x, y, z, yaw = state[side]
            soles[side] = sole_matrix(x, y, self.ground + z, yaw)
        yaw_left, yaw_right = state["left"][3], state["right"][3]
        com = self.controller.state
        return WalkTick(
            time,
            soles["left"],
            soles["right"],
            phase.support,
            com[0].copy(),
            com[1].copy(),
            zmp_reference,
            self.controller.zmp,
            float(wrap_angle(yaw_left + 0.5 * wrap_angle(yaw_right - yaw_left))),
            self.ground + self.geometry.torso_height,
            not (np.isinf(phase.end) and after.stopped and self._settled(com, zmp_reference)),
        )

    @staticmethod
    def _settled(com: np.ndarray, zmp_reference: np.ndarray) -> bool:
        """The CoM at rest over the ZMP reference (within SETTLED_DISTANCE, SETTLED_SPEED)."""
        offset = np.hypot(*(com[0] - zmp_reference))
        return bool(offset <= SETTLED_DISTANCE and np.hypot(*com[1]) <= SETTLED_SPEED)

    def _sole_state(self, time: float) -> dict[str, np.ndarray]:
        """Per side (x, y, z above ground, yaw) at ``time``: the last landing, or the swing under way."""
        state = {}
        for side in ("left", "right"):
            step = self.planner.last_step(side, time)
            if step is None:
                start = self.planner.initial[side]
                state[side] = np.array([start[0], start[1], 0.0, start[2]])
            elif time < step.land:
                state[side] = swing_state(step, time, self.geometry.step_height)
            else:
                state[side] = np.array([step.end[0], step.end[1], 0.0, step.end[2]])
        return state


def _planar(pose: np.ndarray) -> np.ndarray:
    """(x, y, yaw) of a (4, 4) sole pose (its heading projected on the ground)."""
    pose = np.asarray(pose, dtype=float)
    if pose.shape != (4, 4) or not np.all(np.isfinite(pose)):
        raise ValueError(
            f"sole pose has shape {pose.shape} or non-finite entries; expected a finite (4, 4) pose"
        )
    return np.array([pose[0, 3], pose[1, 3], np.arctan2(pose[1, 0], pose[0, 0])])
