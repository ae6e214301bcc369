"""Footstep plan from a velocity command, as a timeline of support phases with the ZMP reference.

Steps follow a walk frame (x, y, yaw) midway between the soles: each step moves it by the
command times the step period, and the swinging sole lands beside it at half the foot separation.
Sideways and turning, only the foot on the side of the motion opens (by twice the per-step amount)
and the other one closes back to the nominal stance, so the soles never cross or collide.

A new command changes the plan ``command_delay`` after it (at the next step then), so that the
preview controller sees the change a horizon ahead. :meth:`FootstepPlanner.stop` stops at once
instead, the last step landing within one step period (swing + transfer): a swing under way in its
first half is redirected in the air to land beside the support sole at its planned time
(:func:`~ik_solvers.whole_body.swing.redirect`), and the ZMP reference then moves as the walk's
would have for as long as it stays ``STOP_MARGIN`` of the sole width inside the soles side by side;
a later swing lands as planned and the other sole steps beside it after the transfer, its swing
shortened to land one step period after the stop; in double support the transfer under way
finishes, then the trailing sole steps beside the other (when the soles already stand side by
side, the ZMP stays on the last one a swing's time, as the walk had it). Then the ZMP goes back
between both soles: the walk starts and stops in double support.

Phases: double support (the ZMP reference moves in a straight line from one sole's centre to the
other's, inside both soles' convex hull), single support (the ZMP reference at the support sole's
centre while the other swings), and standing (double support with the ZMP midway, no end).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np
from scipy.spatial import ConvexHull

from ik_solvers.whole_body.swing import redirect, sole_matrix, wrap_angle
from ik_solvers.whole_body.walk_config import WalkConfig
from ik_solvers.whole_body.walk_geometry import WalkGeometry

SIDES = ("left", "right")
REDIRECT_LIMIT = 0.5  # a swing stopped in this first fraction of its time lands beside the support sole
STOP_SLACK = 5  # periods: a stop's last step lands at least this much within the bound (the node's latency)
STOP_MARGIN = 0.25  # of the sole width: how far inside the final stance the stop keeps its ZMP reference,
# and how closely the preview controller must follow it for the stop to come at once


@dataclass(frozen=True)
class Footstep:
    """One swing: ``side`` moves from ``start`` to ``end``, planar (x, y, yaw) [m, m, rad], from
    ``lift`` to ``land`` [s]. A swing redirected in the air (a stop) keeps the swing as it was
    ``planned`` and the time ``since`` [s] it was redirected (:func:`~ik_solvers.whole_body.swing.redirect`)."""

    side: str
    start: np.ndarray
    end: np.ndarray
    lift: float
    land: float
    planned: Footstep | None = None
    since: float = math.nan


@dataclass(frozen=True)
class _State:
    """The plan's state after a unit of phases: soles (x, y, yaw), walk frame, where the ZMP
    reference ends, whether the robot stands, and the side that swings next."""

    left: np.ndarray
    right: np.ndarray
    frame: np.ndarray
    zmp: np.ndarray
    stopped: bool
    swing: str = "right"


@dataclass(frozen=True)
class Phase:
    """A time interval [start, end) [s] with its support and ZMP reference (straight from
    ``zmp_start`` to ``zmp_end``, (2,) [m]); ``step`` while a foot swings."""

    start: float
    end: float
    support: str  # "left", "right" or "double"
    zmp_start: np.ndarray
    zmp_end: np.ndarray
    step: Footstep | None = None
    after: _State | None = None  # set on the last phase of a unit: where re-planning resumes


class FootstepPlanner:
    """The timeline of phases, extended ahead of time from the current command.

    Args:
        geometry: the robot's sizes. config: timing.
        left, right: the soles' planar poses (x, y, yaw) [m, rad] at time 0 (standing).
    """

    def __init__(
        self, geometry: WalkGeometry, config: WalkConfig, left: np.ndarray, right: np.ndarray
    ) -> None:
        self.geometry, self.config = geometry, config
        self.command = np.zeros(3)
        self.stopping = False  # a stop() is under way (until the next command)
        left, right = np.asarray(left, dtype=float), np.asarray(right, dtype=float)
        self.initial = {"left": left, "right": right}
        state = self._standing(_State(left, right, np.zeros(3), np.zeros(2), stopped=True))
        self.phases: list[Phase] = [Phase(0.0, np.inf, "double", state.zmp, state.zmp, after=state)]
        self._arrays()

    @property
    def max_command(self) -> np.ndarray:
        """(3,) the largest forward, lateral [m/s] and yaw rate [rad/s] that the step limits allow."""
        period = self.config.step_period
        return self.geometry.max_step / (period * np.array([1.0, 2.0, 2.0]))

    def command_for(self, axis: int, amount: float, rate: float) -> tuple[float, float]:
        """(rate, duration [s]) of a command along one ``axis`` (0 forward, 1 lateral, 2 yaw)
        that, sent to a standing robot and then followed by zero, walks ``amount`` [m or rad]
        exactly, at a rate of at most ``rate`` [m/s or rad/s].

        Every step moves the walk frame by the command times the step period (sideways and
        turning: twice that every other step, so an even number of steps), and the plan changes
        (to walking, and back to zero) at the end of the step under way ``command_delay`` after
        the command: held ``start_transfer + (n - 1/2)`` step periods, a command makes ``n``
        steps, with half a period to spare at either end. A command held ``amount / rate`` walks
        ``start_transfer`` worth of it less and a fraction of a step more or less (the ROBOTIS
        OP3: 0.983 m of 1 m). ``n`` is the fewest steps at ``rate``; the rate is lowered to fit.
        """
        if axis not in (0, 1, 2) or not (amount > 0.0 and rate > 0.0):
            raise ValueError(
                f"axis {axis}, amount {amount}, rate {rate}: axis 0, 1 or 2 and both > 0 are required"
            )
        period, pair = self.config.step_period, 1 if axis == 0 else 2
        steps = pair * max(1, math.ceil(amount / (rate * period * pair) - 1e-9))
        return amount / (steps * period), self.config.start_transfer + (steps - 0.5) * period

    def set_command(self, command: np.ndarray, now: float, horizon: float) -> np.ndarray:
        """Re-plan with ``command`` (3,) (forward, lateral [m/s], yaw rate [rad/s]), clipped to
        :attr:`max_command` (forward and lateral together to the ellipse of their limits);
        returns the clipped one.

        The plan is kept as it is until ``config.command_delay`` after ``now`` [s] (to the end of
        the step under way then): the preview controller must see every change of the ZMP
        reference coming, as one inside its horizon jerks the CoM off its ZMP. Then it is
        re-planned up to ``now + horizon``. (:meth:`stop` stops sooner.)
        """
        command = np.clip(np.asarray(command, dtype=float), -self.max_command, self.max_command)
        # forward and sideways at once: within the ellipse of the two limits (both at their
        # limits put the swing sole beyond the leg's reach)
        planar = float(np.hypot(*(command[:2] / self.max_command[:2])))
        if planar > 1.0:
            command[:2] /= planar
        if np.array_equal(command, self.command):
            return command
        self.command, self.stopping = command, False
        self.extend(now + self.config.command_delay)
        keep_until = now + self.config.command_delay
        index = self._index(keep_until)
        while self.phases[index].after is None:  # keep the whole unit under way then
            index += 1
        if np.isinf(self.phases[index].end):
            self.phases[index] = replace(self.phases[index], end=max(keep_until, self.phases[index].start))
        del self.phases[index + 1 :]
        self._arrays()
        self.extend(now + horizon)
        return command

    @property
    def stop_tolerance(self) -> float:
        """[m] ``STOP_MARGIN`` × the narrower sole's width."""
        return STOP_MARGIN * min(sole.size[1] for sole in self.geometry.soles)

    def stop(self, now: float, until: float, followable: Callable[[], bool]) -> bool:
        """Stop at once at ``now`` [s] (module docstring; the command becomes zero), planned up to
        ``until`` [s], if ``followable()`` then says the preview controller follows the new ZMP
        reference; else leave the plan and the command as they were and return False."""
        if self.stopping:  # already stopping at once: nothing to change
            return True
        phases, command = list(self.phases), self.command
        self.command = np.zeros(3)
        self._stop(now)
        self._arrays()
        self.extend(until)
        self.stopping = followable()
        if not self.stopping:
            self.phases, self.command = phases, command
            self._arrays()
        return self.stopping

    def _stop(self, now: float) -> None:
        """Re-plan at ``now`` [s] for a zero command (module docstring); :meth:`extend` then
        appends the transfer back between the soles."""
        index = self._index(now)
        phase = self.phases[index]
        if phase.step is not None:
            swing = phase.step
            planned = phase.after or self.phases[index + 1].after  # where the swing's unit ends
            early = now - swing.lift <= REDIRECT_LIMIT * (swing.land - swing.lift)
            if early and not self._aligned(planned):
                self._redirect(index, planned, now)
                return
            index += 0 if phase.after else 1  # it lands as planned, with its transfer
        del self.phases[index + 1 :]
        last = self.phases[index]
        state = last.after
        if state.stopped:  # standing, or already going back between the soles
            return
        if self._aligned(state):  # the ZMP stays on the last sole a swing's time, as the walk had it
            end = last.end + self.config.single_support
            self.phases.append(Phase(last.end, end, "double", state.zmp, state.zmp, after=state))
            return
        # the closing step lands within one step period of now, on a tick and STOP_SLACK ticks early
        periods = math.floor((now + self.config.step_period) / self.config.dt + 1e-6) - STOP_SLACK
        land_by = periods * self.config.dt
        self._append_step(state, last.end, state.swing, min(last.end + self.config.single_support, land_by))

    def _redirect(self, index: int, planned: _State, now: float) -> None:
        """Redirect the swing of phase ``index`` at ``now`` [s] to land beside the support sole, at
        its planned time; ``planned``: the state its unit was to end in. The transfer that follows
        moves the ZMP as the walk's would have (towards the centre of the swing sole's planned
        landing) for as long as it stays inside the soles side by side (:meth:`_within_stance`):
        the preview controller sees no change before then."""
        phase = self.phases[index]
        swing, support = phase.step, phase.support
        frame = self._frame_beside(getattr(planned, support), support)
        landing = self._beside(frame, swing.side)
        state = replace(planned, frame=frame, stopped=False, swing=support, **{swing.side: landing})
        fraction = self._within_stance(phase.zmp_end, planned.zmp, state)
        periods = round(fraction * self.config.double_support / self.config.dt)
        target = phase.zmp_end + periods * self.config.dt / self.config.double_support * (
            planned.zmp - phase.zmp_end
        )
        self.phases[index] = replace(phase, step=redirect(swing, landing, now))
        end = swing.land + periods * self.config.dt
        self.phases[index + 1 :] = [
            Phase(swing.land, end, "double", phase.zmp_end, target, after=replace(state, zmp=target))
        ]

    def _aligned(self, state: _State) -> bool:
        """Both soles of ``state`` in the nominal stance around its walk frame (side by side)."""
        return all(
            np.allclose(getattr(state, side), self._beside(state.frame, side), atol=1e-9) for side in SIDES
        )

    def _within_stance(self, start: np.ndarray, end: np.ndarray, state: _State) -> float:
        """How far (0..1) along the segment from ``start`` (inside) to ``end`` (2,) [m] stays
        ``STOP_MARGIN`` × the sole width inside the convex hull of ``state``'s soles."""
        corners = [
            sole.corners_in_world(sole_matrix(pose[0], pose[1], 0.0, pose[2]))
            for sole, pose in zip(self.geometry.soles, (state.left, state.right))
        ]
        hull = ConvexHull(np.concatenate(corners))
        normals, offsets = hull.equations[:, :2], hull.equations[:, 2]  # unit normals, outwards
        margin = self.stop_tolerance
        outwards, room = normals @ (end - start), -margin - (normals @ start + offsets)
        return max(min([1.0] + [r / o for r, o in zip(room, outwards) if o > 1e-12]), 0.0)

    def extend(self, until: float) -> None:
        """Append phases until the plan covers ``until`` [s]."""
        changed = False
        while self.phases[-1].end < until:
            self._append(self.phases[-1].after, self.phases[-1].end)
            changed = True
        if changed:
            self._arrays()

    def phase_at(self, time: float) -> Phase:
        """The phase under way at ``time`` [s]."""
        return self.phases[self._index(time)]

    def zmp_reference(self, times: np.ndarray) -> np.ndarray:
        """(len(times), 2) ZMP reference [m] at ``times`` [s] (within the planned timeline)."""
        index = np.minimum(np.searchsorted(self._ends, times, side="right"), len(self._ends) - 1)
        tau = np.clip((times - self._starts[index]) * self._rates[index], 0.0, 1.0)[:, None]
        return self._zmp0[index] + tau * self._zmp_change[index]

    def move_landing(self, time: float, landing: np.ndarray) -> Footstep | None:
        """The swing under way at ``time`` [s] lands at the planar pose ``landing`` (x, y, yaw)
        instead (a step adjusted by the stabiliser); the walk frame moves with it and every later
        phase is dropped, to be planned again by :meth:`extend`. Returns the changed swing, or
        None when no foot swings at ``time``."""
        index = self._index(time)
        phase = self.phases[index]
        if phase.step is None or index + 1 >= len(self.phases):
            return None
        step = replace(phase.step, end=np.asarray(landing, dtype=float).copy())
        transfer = self.phases[index + 1]
        if transfer.after.stopped:  # a capture step: it ends standing in the stance it lands in
            after = self._standing(replace(transfer.after, **{step.side: step.end}))
            transfer = replace(transfer, zmp_start=after.zmp)
        else:
            frame = transfer.after.frame.copy()
            frame[:2] += step.end[:2] - phase.step.end[:2]
            after = replace(
                transfer.after, frame=frame, zmp=self._center(step.side, step.end), **{step.side: step.end}
            )
        self.phases[index] = replace(phase, step=step)
        self.phases[index + 1] = replace(transfer, zmp_end=after.zmp, after=after)
        del self.phases[index + 2 :]
        self._arrays()
        return step

    def start_landed_zmp(self, time: float, zmp: np.ndarray) -> None:
        """The double support that ends a capture step, under way at ``time`` [s], starts then with
        its ZMP reference at ``zmp`` (2,) [m] and moves it to the soles' midpoint by its end (the
        plan takes the caught DCM where it stopped, :meth:`CaptureStepper.follow`, instead of
        jumping to the midpoint); later phases are dropped, to be planned again.

        Raises:
            ValueError: the phase under way at ``time`` is not the end of a capture step.
        """
        index = self._index(time)
        phase = self.phases[index]
        if phase.after is None or not phase.after.stopped or phase.support != "double" or np.isinf(phase.end):
            raise ValueError(
                f"start_landed_zmp at {time} s: needs the double support that ends a capture step "
                f"(the phase then is {phase.support}, from {phase.start} to {phase.end} s)"
            )
        self.phases[index] = replace(phase, start=time, zmp_start=np.asarray(zmp, dtype=float).copy())
        del self.phases[index + 1 :]
        self._arrays()

    def land_now(self, time: float, landing: np.ndarray) -> Footstep | None:
        """The swing under way at ``time`` [s] lands now, at the planar pose ``landing`` (x, y,
        yaw): a foot that touched down early (the stabiliser's early touch-down). Its transfer
        starts at ``time`` and lasts ``double_support``; every later phase is dropped, to be
        planned again by :meth:`extend`. Returns the changed swing, or None when no foot swings
        at ``time``."""
        index = self._index(time)
        phase = self.phases[index]
        if phase.step is None or index + 1 >= len(self.phases) or time <= phase.start:
            return None
        self.move_landing(time, landing)
        step = replace(self.phases[index].step, land=time)
        transfer = self.phases[index + 1]
        self.phases[index] = replace(phase, end=time, step=step)
        self.phases[index + 1] = replace(transfer, start=time, end=time + self.config.double_support)
        self._arrays()
        return step

    def step_now(
        self, time: float, side: str, landing: np.ndarray, swing: float, zmp: np.ndarray
    ) -> Footstep:
        """Standing at ``time`` [s], ``side`` lifts at once and lands at the planar pose ``landing``
        (x, y, yaw) ``swing`` [s] later, the ZMP reference held at ``zmp`` (2,) [m] on the other
        sole meanwhile; from touch-down the plan stands still in the stance it landed in, the ZMP
        reference between the soles (a capture step, :mod:`ik_solvers.whole_body.capture_step`:
        bringing the other sole beside the landed one lifted it with the body still over the
        landed sole's heel). :meth:`move_landing` keeps that while the swing's landing moves.

        Raises:
            ValueError: the plan is not standing still at ``time``, or ``swing`` is not > 0.
        """
        index = self._index(time)
        phase = self.phases[index]
        if not (np.isinf(phase.end) and phase.after.stopped and swing > 0.0):
            raise ValueError(
                f"step_now at {time} s with a {swing} s swing: needs a plan standing still then "
                f"(its phase ends at {phase.end} s) and a swing > 0"
            )
        state = phase.after
        landing = np.asarray(landing, dtype=float).copy()
        land = time + swing
        step = Footstep(side, getattr(state, side), landing, time, land)
        after = self._standing(replace(state, swing=_other(side), **{side: landing}))
        zmp = np.asarray(zmp, dtype=float)
        self.phases[index] = replace(phase, end=time)
        self.phases[index + 1 :] = [
            Phase(time, land, _other(side), zmp, zmp, step=step),
            Phase(land, land + self.config.double_support, "double", after.zmp, after.zmp, after=after),
        ]
        self._arrays()
        return step

    def _standing(self, state: _State) -> _State:
        """``state`` standing still where its soles are: the walk frame and the ZMP reference
        midway between them (a capture step's end: the robot stays in the stance it landed in)."""
        frame = 0.5 * (state.left + state.right)
        frame[2] = state.left[2] + 0.5 * wrap_angle(state.right[2] - state.left[2])
        return replace(state, frame=frame, zmp=self._midpoint(state.left, state.right), stopped=True)

    def footsteps(self) -> list[Footstep]:
        """Every swing planned so far (past ones included), in time order."""
        return [phase.step for phase in self.phases if phase.step is not None]

    def last_step(self, side: str, time: float) -> Footstep | None:
        """The latest swing of ``side`` lifted by ``time`` [s] (under way or landed), or None."""
        for index in range(self._index(time), -1, -1):
            step = self.phases[index].step
            if step is not None and step.side == side and step.lift <= time:
                return step
        return None

    def _index(self, time: float) -> int:
        return int(min(np.searchsorted(self._ends, time, side="right"), len(self.phases) - 1))

    def _arrays(self) -> None:
        self._starts = np.array([p.start for p in self.phases])
        self._ends = np.array([p.end for p in self.phases])
        self._zmp0 = np.array([p.zmp_start for p in self.phases])
        self._zmp_change = np.array([p.zmp_end for p in self.phases]) - self._zmp0
        durations = self._ends - self._starts
        finite = np.isfinite(durations) & (durations > 0)
        self._rates = np.where(finite, 1.0 / np.where(finite, durations, 1.0), 0.0)  # 0: standing

    def _center(self, side: str, pose: np.ndarray) -> np.ndarray:
        """World x, y [m] of the ZMP reference on a sole at its planar pose: its footprint's
        centre, ``zmp_inset_ratio`` of its width inside it towards the other sole."""
        geometry = self.geometry.soles[SIDES.index(side)]
        c, s = np.cos(pose[2]), np.sin(pose[2])
        inset = self.config.zmp_inset_ratio * geometry.size[1] * (-1.0 if side == "left" else 1.0)
        x, y = geometry.center[0], geometry.center[1] + inset
        return pose[:2] + np.array([c * x - s * y, s * x + c * y])

    def _midpoint(self, left: np.ndarray, right: np.ndarray) -> np.ndarray:
        return 0.5 * (self._center("left", left) + self._center("right", right))

    def _beside(self, frame: np.ndarray, side: str) -> np.ndarray:
        """Planar pose of ``side``'s sole in the nominal stance around ``frame``."""
        offset = 0.5 * self.geometry.foot_separation * (1.0 if side == "left" else -1.0)
        return np.array(
            [frame[0] - offset * np.sin(frame[2]), frame[1] + offset * np.cos(frame[2]), frame[2]]
        )

    def _frame_beside(self, pose: np.ndarray, side: str) -> np.ndarray:
        """The walk frame that has ``side``'s sole at ``pose`` in the nominal stance (the inverse of
        :meth:`_beside`)."""
        offset = 0.5 * self.geometry.foot_separation * (1.0 if side == "left" else -1.0)
        return np.array([pose[0] + offset * np.sin(pose[2]), pose[1] - offset * np.cos(pose[2]), pose[2]])

    def _append(self, state: _State, start: float) -> None:
        """The next unit of phases after ``state`` (module docstring)."""
        config = self.config
        moving = bool(np.any(self.command != 0.0))
        if not moving:
            if state.stopped:
                self.phases.append(Phase(start, np.inf, "double", state.zmp, state.zmp, after=state))
            elif self._aligned(state):
                middle = self._midpoint(state.left, state.right)
                done = replace(state, zmp=middle, stopped=True)
                self.phases.append(
                    Phase(start, start + config.start_transfer, "double", state.zmp, middle, after=done)
                )
            else:  # the sole that did not move last is behind: bring it beside the other
                self._append_step(state, start, state.swing)
            return
        if state.stopped:
            side = self._leading()
            support = _other(side)
            target = self._center(support, getattr(state, support))
            started = replace(state, zmp=target, stopped=False, swing=side)
            self.phases.append(
                Phase(start, start + config.start_transfer, "double", state.zmp, target, after=started)
            )
            return
        self._append_step(state, start, state.swing)

    def _append_step(self, state: _State, start: float, side: str, land: float | None = None) -> None:
        """A swing of ``side`` (single support until ``land`` [s], default ``single_support``
        after ``start``) and the transfer onto it (double support)."""
        config, period = self.config, self.config.step_period
        sign = 1.0 if side == "left" else -1.0
        forward, lateral, turn = self.command * period
        lateral = 2.0 * lateral if lateral * sign > 0 else 0.0
        turn = 2.0 * turn if turn * sign > 0 else 0.0
        x, y, yaw = state.frame
        c, s = np.cos(yaw), np.sin(yaw)
        frame = np.array(
            [x + c * forward - s * lateral, y + s * forward + c * lateral, wrap_angle(yaw + turn)]
        )
        landing = self._beside(frame, side)
        land = start + config.single_support if land is None else land
        held = self._center(_other(side), getattr(state, _other(side)))
        step = Footstep(side, getattr(state, side), landing, start, land)
        after = replace(
            state, frame=frame, zmp=self._center(side, landing), swing=_other(side), **{side: landing}
        )
        self.phases.append(Phase(start, land, _other(side), held, held, step=step))
        self.phases.append(Phase(land, land + config.double_support, "double", held, after.zmp, after=after))

    def _leading(self) -> str:
        """First swing from standing: the foot on the side of the lateral or turning motion."""
        lateral, turn = self.command[1], self.command[2]
        if lateral != 0.0:
            return "left" if lateral > 0 else "right"
        return "left" if turn > 0 else "right"


def _other(side: str) -> str:
    return "right" if side == "left" else "left"
