"""What the ik_node does between messages, without ROS: solve, keep goals, shape commands.

Per chain (a :class:`Limb`): the configured solver kind, the latest goal (the last successful
solution) and the last command, which approaches the goal no faster than the velocity limit
allows. A failed solve leaves goal and command untouched (the servos hold), and so does a
solution that jumps along a moving target (:meth:`Commander.jump_refusal`) unless branch switches
are allowed; a far target is a new goal. The
:class:`Commander` holds the limbs, the measured joint state and the robot's frames, and turns
targets in any link frame into solves in each chain's base frame.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from ik_solvers.chain import Chain
from ik_solvers.control.command_filter import CommandFilter
from ik_solvers.control.goal_change import NEW_GOAL, SMALL, judge
from ik_solvers.control.statistics import ChainStats, JointStateStats, shortened
from ik_solvers.frames import FrameTree
from ik_solvers.model import RobotModel
from ik_solvers.solvers import IKError, IKResult, Solver, UnsupportedChainError, make_solver, warm_up
from ik_solvers.solvers.registry import solver_kind

BOUNDED = ("revolute", "prismatic")  # joint types with position limits (continuous ones wrap)
OUTSIDE_TOLERANCE = 1e-3  # [rad or m] a measurement this far beyond a limit is reported
MAX_NAME_LENGTH = 256  # [characters] longer than any link name: refused before it is looked up


class RequestError(ValueError):
    """A request names something the node does not have; the message lists what it has."""


@dataclass
class Limb:
    """One commanded chain and its state."""

    name: str
    chain: Chain
    solver_kind: str
    solver: Solver
    filter: CommandFilter
    goal: np.ndarray | None = None  # (n,) last successful solution [rad or m]
    command: np.ndarray | None = None  # (n,) last published command
    pole: np.ndarray | None = None  # (3,) pole target in the chain's base frame [m]
    stats: ChainStats = field(default_factory=ChainStats)


class Commander:
    """The limbs of a robot model, their solvers, and the robot's measured joint state."""

    def __init__(
        self,
        model: RobotModel,
        chains: Mapping[str, tuple[str, str, str]],
        options: Mapping[str, Mapping[str, object]],
    ) -> None:
        """Args: chains: name → (base_link, tip_link, solver kind); options: solver kind → its
        make_solver options (kinds not named get none).

        A chain configured "geometric" that fits no closed form gets "auto" instead (the
        Jacobian solver); :attr:`fallbacks` holds one line per such chain for the log.

        Raises:
            ModelError: a link is unknown or the links do not form a chain.
            IKError: a solver kind is unknown or its options are refused.
        """
        warm_up()  # every kind now, not at the first run-time switch to it
        self.frames = FrameTree(model)
        self.options = {kind: dict(values) for kind, values in options.items()}
        self.measured: dict[str, float] = {}  # the model's joints only [rad or m]
        self.joint_states = JointStateStats()
        self._limits = {j.name: (j.lower, j.upper) for j in model.joints.values() if j.type in BOUNDED}
        self._outside: dict[str, str] = {}  # joint → description, while measured outside its limits
        self.message_time: float | None = None  # [s] when the last command message went out
        self.max_joint_jump = 0.5  # [rad or m] see jump_refusal
        self.allow_branch_switch = False
        self.limbs: dict[str, Limb] = {}
        self.fallbacks: list[str] = []
        for name, (base, tip, kind) in chains.items():
            chain = model.chain(base, tip)
            limits = CommandFilter(chain.lower, chain.upper, chain.velocity_limits, chain.continuous)
            try:
                solver = self.make_solver(kind, chain)
            except UnsupportedChainError:
                if kind != "geometric":
                    raise
                kind, solver = "auto", self.make_solver("auto", chain)
                self.fallbacks.append(
                    f"{name}: no closed form fits its {chain.n} joints, solver 'geometric' falls back to "
                    f"'auto' ({type(solver).__name__}{', position only' if chain.n < 6 else ''})"
                )
            self.limbs[name] = Limb(name, chain, kind, solver, limits)

    def make_solver(self, kind: str, chain: Chain, timeout: float = 0.0) -> Solver:
        """A solver of ``kind`` for ``chain`` with the kind's options; ``timeout`` [s] > 0
        replaces the configured time budget of kinds that take one."""
        options = dict(self.options.get(solver_kind(kind).options_of or kind, {}))
        if timeout > 0.0 and solver_kind(kind).takes_timeout:
            options["timeout"] = timeout
        return make_solver(kind, chain, **options)

    def limb(self, name: str) -> Limb:
        """The limb called ``name``; RequestError naming the valid chains otherwise."""
        limb = self.limbs.get(name)
        if limb is None:
            raise RequestError(f"unknown chain '{name}'; valid chains: {', '.join(self.limbs)}")
        return limb

    def reconfigure(self, kinds: Mapping[str, str], options: Mapping[str, Mapping[str, object]]) -> None:
        """Switch chains to other solver kinds and/or change kinds' options, all or nothing.

        Args:
            kinds: chain name → new solver kind. options: solver kind → the options that change.
        Raises:
            RequestError, IKError, TypeError: a value is refused; nothing was changed.
        """
        previous = self.options
        self.options = {
            kind: {**previous.get(kind, {}), **options.get(kind, {})} for kind in {*previous, *options}
        }
        try:
            built = {}
            for name, limb in self.limbs.items():
                kind = kinds.get(name, limb.solver_kind)
                if name in kinds or options.get(solver_kind(kind).options_of or kind):
                    built[name] = (kind, self.make_solver(kind, limb.chain))
            for name in kinds:
                self.limb(name)
        except Exception:
            self.options = previous
            raise
        for name, (kind, solver) in built.items():
            self.limbs[name].solver_kind, self.limbs[name].solver = kind, solver

    def positions(self) -> dict[str, float]:
        """Current joint state by name: the measured state, else the last commands."""
        state: dict[str, float] = {}
        for limb in self.limbs.values():
            if limb.command is not None:
                state.update(zip(limb.chain.joint_names, limb.command))
        state.update(self.measured)
        return state

    def to_base(self, limb: Limb, pose: np.ndarray, frame: str) -> np.ndarray:
        """(4, 4) ``pose`` given in link ``frame`` ('' = chain base) → the chain's base frame.

        Raises:
            RequestError: ``frame`` is longer than any link name (quoted cut short).
            UnknownFrameError: ``frame`` is no link of the model.
        """
        if not frame or frame == limb.chain.base_link:
            return pose
        if len(frame) > MAX_NAME_LENGTH:
            raise RequestError(
                f"frame_id {shortened(frame, 40)!r} has {len(frame)} characters; link names here "
                f"have at most {MAX_NAME_LENGTH}"
            )
        return self.frames.transform(pose, frame, limb.chain.base_link, self.positions())

    def point_to_base(self, limb: Limb, point: np.ndarray, frame: str) -> np.ndarray:
        """(3,) ``point`` [m] in link ``frame`` ('' = chain base) → the chain's base frame."""
        pose = np.eye(4)
        pose[:3, 3] = point
        return self.to_base(limb, pose, frame)[:3, 3]

    def seed(self, limb: Limb) -> np.ndarray | None:
        """The seed of a streamed target's solve: the limb's goal (its last accepted solution)
        once it has one, else :meth:`current_state`.

        The goal, not the measured state: solutions are judged against the goal
        (:meth:`jump_refusal`), and a measured state off it (an arm lagging, sagging or blocked
        in the simulator) seeds a redundant arm's Jacobian solve onto other null-space
        postures: on a THORMANG3-like 7-joint arm, measured = goal + 0.3 rad noise gave steps
        up to 0.42 rad and held jumps along a 6 mm-step circle, the goal as seed 0.023 rad.
        """
        return limb.goal if limb.goal is not None else self.current_state(limb)

    def current_state(self, limb: Limb) -> np.ndarray | None:
        """The measured positions of the chain's joints when all are known, else the last goal
        (None when neither is): the services' seed when a request gives none."""
        names = limb.chain.joint_names
        if all(name in self.measured for name in names):
            return np.array([self.measured[name] for name in names])
        return limb.goal

    def solve(
        self,
        limb: Limb,
        target: np.ndarray,
        pole: np.ndarray | None,
        seed: np.ndarray | None,
        solver=None,
    ) -> IKResult:
        """Solve for ``target`` (4, 4, chain base frame) and count it in the limb's stats.

        Raises:
            IKError: the solver refused the target, seed or pole (counted as a refusal).
        """
        solver = limb.solver if solver is None else solver
        start = time.perf_counter()
        try:
            result = solver.solve(target, seed=seed, pole=pole)
        except IKError as error:
            limb.stats.record_refusal(str(error))
            raise
        ok = result.success and limb.filter.admits(result.q)
        limb.stats.record_solve(ok, time.perf_counter() - start, result.message or "solver failed")
        return result if ok == result.success else _failed(result, "solver returned q outside the limits")

    def jump_refusal(self, limb: Limb, q: np.ndarray, target: np.ndarray) -> str:
        """Why solution ``q`` (n,) of ``target`` (4, 4, chain base frame) must not be commanded, or
        "" when it may; a solution far from the limb's goal is counted in its stats either way.

        A jump along a moving target (:func:`~ik_solvers.control.goal_change.judge`: a joint moves
        more than ``max_joint_jump`` from the goal, and far more than the target's change needs) is
        held unless ``allow_branch_switch`` is set; a far target is a new goal, approached at the
        velocity limit. A limb without a goal yet approaches its first target from wherever it is.
        """
        change = judge(limb.chain, limb.goal, q, target, self.max_joint_jump)
        if change.kind == SMALL:
            return ""
        if change.kind == NEW_GOAL:
            limb.stats.record_far_solution(f"new goal: {change.message}")
            return ""
        if self.allow_branch_switch:
            limb.stats.record_far_solution(f"jump commanded (allow_branch_switch): {change.message}")
            return ""
        refusal = f"{change.message} (set allow_branch_switch to command such solutions)"
        limb.stats.record_jump(refusal)
        return refusal

    def measure(self, positions: Mapping[str, float], unknown: int = 0, non_finite: int = 0) -> list[str]:
        """Take measured positions of the model's joints (from one /joint_states message).

        Args:
            positions: joint name → position [rad or m], the model's joints only.
            unknown, non_finite: entries of the message left out (counted in :attr:`joint_states`).
        Returns:
            descriptions of the joints newly measured outside their limits (by more than
            OUTSIDE_TOLERANCE); all such joints are listed in ``joint_states.outside_limits``.
        """
        self.measured.update(positions)
        self.joint_states.record(unknown, non_finite)
        changed, newly = False, []
        for name, value in positions.items():
            limits = self._limits.get(name)
            if limits is None:
                continue
            if limits[0] - OUTSIDE_TOLERANCE <= value <= limits[1] + OUTSIDE_TOLERANCE:
                changed |= self._outside.pop(name, None) is not None
                continue
            if name not in self._outside:
                newly.append(name)
            self._outside[name] = f"{name} = {value:.4g} outside [{limits[0]:g}, {limits[1]:g}]"
            changed = True
        if changed:
            self.joint_states.outside_limits = "; ".join(self._outside.values())
        return [self._outside[name] for name in newly]

    def advance(self, limbs: list[Limb], now: float, fraction: float, max_dt: float) -> list[Limb]:
        """Step the limbs' commands toward their goals at time ``now`` [s]; the limbs that moved.

        Every command message carries all commanded joints, so each step is timed from the
        previous message (the last call that moved a limb), at most ``max_dt`` [s]: between two
        consecutive messages no joint moves more than ``fraction`` × its velocity limit × the
        time between them. A limb's first command starts from the measured state — beyond the
        limits too, approaching them at that pace — or from the goal itself when nothing was
        measured (nothing better is known).
        """
        dt = max_dt if self.message_time is None else min(now - self.message_time, max_dt)
        moved = [limb for limb in limbs if self._step(limb, fraction, dt)]
        if moved:
            self.message_time = now
        return moved

    def _step(self, limb: Limb, fraction: float, dt: float) -> bool:
        if limb.goal is None:
            return False
        current = limb.command
        if current is None:
            current = self.measured_or(limb, limb.goal)
        elif limb.filter.reached(current, limb.goal):
            return False
        limb.command = limb.filter.step(current, limb.goal, fraction, dt)
        return True

    def measured_or(self, limb: Limb, fallback: np.ndarray) -> np.ndarray:
        """(n,) measured positions of the limb's joints, ``fallback`` where one is not measured."""
        names = limb.chain.joint_names
        return np.array([self.measured.get(name, fallback[i]) for i, name in enumerate(names)])


def _failed(result: IKResult, message: str) -> IKResult:
    return IKResult(
        False,
        result.q,
        result.position_error,
        result.orientation_error,
        result.iterations,
        message,
        result.continuous,
    )
