"""Smooth target trajectories for the demo: the legs squat and step in place, the arms trace circles.

Every target is a 4x4 pose of a chain's tip in the chain's base frame [m], with an optional pole
point (3,) [m] in the same frame. Sizes come from the chains (read from the URDF): the stance,
squat depth, step height and circle radius are fractions of the leg and arm lengths; the sole
keeps the orientation it has with straight legs (parallel to the floor).

The demo runs two phases of equal length ``phase`` [s]: in the first the legs squat twice while the
arms circle twice; in the second the legs step in place (body over the left foot, lift the right;
over the right, lift the left) while the arms circle twice again. Each phase ends holding still,
so a settled stretch (targets unchanged for a while) exists for steady-state tracking figures.
Between key frames values follow a cosine ease, so velocities are continuous and zero at keys.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import least_squares

from ik_solvers.chain import Chain
from ik_solvers.model import RobotModel

# Fractions of a phase at which the key values are reached.
SQUAT_KEYS = ((0.0, 0.0), (0.2, 1.0), (0.42, 0.0), (0.62, 1.0), (0.84, 0.0), (1.0, 0.0))
SHIFT_KEYS = (
    (0.0, 0.0),
    (0.12, 1.0),
    (0.36, 1.0),
    (0.48, 0.0),
    (0.6, -1.0),
    (0.84, -1.0),
    (0.92, 0.0),
    (1.0, 0.0),
)
LIFT_RIGHT_KEYS = ((0.0, 0.0), (0.14, 0.0), (0.24, 1.0), (0.34, 0.0), (1.0, 0.0))
LIFT_LEFT_KEYS = ((0.0, 0.0), (0.6, 0.0), (0.68, 1.0), (0.76, 0.0), (1.0, 0.0))
ELBOW = 3  # index of the elbow joint in an arm of a 3-joint shoulder
RADIUS_KEYS = ((0.0, 0.0), (0.1, 1.0), (0.8, 1.0), (0.88, 0.0), (1.0, 0.0))
TURN_KEYS = (
    (0.0, 0.0),
    (0.1, 0.0),
    (0.45, 1.0),
    (0.8, 2.0),
    (1.0, 2.0),
)  # circles traced


@dataclass(frozen=True)
class Sizes:
    """Demo motion sizes as fractions of limb lengths (leg: hip pitch → ankle; arm: shoulder → wrist)."""

    crouch: float = 0.1  # sole raised toward the hip in the stance, of leg length
    squat: float = 0.15  # further rise at the bottom of a squat, of leg length
    lift: float = 0.12  # swing sole rise while stepping, of leg length
    shift: float = 1.0  # body shift toward the support foot, of half the soles' lateral spacing
    radius: float = 0.2  # circle radius, of arm length
    reach: float = 0.75  # circle centre distance from the shoulder, of arm length
    elevation: float = -0.35  # circle centre direction below horizontal [rad] (negative: down)


def ease(times: np.ndarray, keys: tuple[tuple[float, float], ...], duration: float) -> np.ndarray:
    """Cosine-eased interpolation through key frames ``(fraction of duration, value)``.

    Args:
        times: (N,) [s] from the start of the phase; clamped to [0, duration].
        keys: increasing fractions in [0, 1] with their values.
        duration: [s] length of the phase.
    Returns:
        (N,) values; velocity is continuous and zero at every key frame.
    """
    fractions = np.array([k[0] for k in keys]) * duration
    values = np.array([k[1] for k in keys])
    t = np.clip(np.asarray(times, dtype=float), 0.0, duration)
    segment = np.clip(np.searchsorted(fractions, t, side="right") - 1, 0, len(keys) - 2)
    span = fractions[segment + 1] - fractions[segment]
    u = np.where(span > 0, (t - fractions[segment]) / np.where(span > 0, span, 1.0), 1.0)
    weight = 0.5 - 0.5 * np.cos(np.pi * u)
    return values[segment] + weight * (values[segment + 1] - values[segment])


def still(
    times: np.ndarray,
    keys: tuple[tuple[float, float], ...],
    duration: float,
    since: float,
) -> np.ndarray:
    """True where the eased value has been constant for at least ``since`` [s]."""
    fractions = np.array([k[0] for k in keys]) * duration
    values = np.array([k[1] for k in keys])
    t = np.clip(np.asarray(times, dtype=float), 0.0, duration)
    result = np.zeros(t.shape, dtype=bool)
    for i in range(len(keys) - 1):
        if values[i] == values[i + 1]:
            result |= (t >= fractions[i] + since) & (t <= fractions[i + 1])
    return result


def joint_origins(model: RobotModel, chain: Chain) -> np.ndarray:
    """(n, 3) position [m] of each movable joint of ``chain`` in its base frame, at q = 0."""
    origins = []
    for joint in chain.joints:
        sub = model.chain(chain.base_link, joint.child)
        origins.append(sub.fk(np.zeros(sub.n))[:3, 3])
    return np.array(origins)


def _pose(rotation: np.ndarray, positions: np.ndarray) -> np.ndarray:
    """(N, 4, 4) poses with a common (3, 3) rotation at (N, 3) positions."""
    poses = np.zeros((len(positions), 4, 4))
    poses[:, :3, :3], poses[:, :3, 3], poses[:, 3, 3] = rotation, positions, 1.0
    return poses


class LegTargets:
    """Sole targets of one leg: squat in phase 1, step in place in phase 2."""

    def __init__(self, chain: Chain, origins: np.ndarray, other: Chain, sizes: Sizes) -> None:
        """``origins``: (n, 3) joint positions [m] at q = 0 (:func:`joint_origins`)."""
        self.straight = chain.fk(np.zeros(chain.n))
        self.length = float(np.linalg.norm(origins[-2] - origins[2]))  # upper-leg pitch joint → ankle
        other_y = other.fk(np.zeros(other.n))[1, 3]
        self.side = 1.0 if self.straight[1, 3] > other_y else -1.0
        self.half_width = abs(self.straight[1, 3] - other_y) / 2.0  # body centre → sole, laterally
        self.sizes = sizes

    def poses(self, times: np.ndarray, phase: float) -> np.ndarray:
        """(N, 4, 4) sole poses in the chain base at ``times`` [s] from the demo start."""
        sizes, t = self.sizes, np.asarray(times, dtype=float)
        second = t - phase
        rise = self.length * (sizes.crouch + sizes.squat * ease(t, SQUAT_KEYS, phase))
        lift_keys = LIFT_LEFT_KEYS if self.side > 0 else LIFT_RIGHT_KEYS
        rise += self.length * sizes.lift * ease(second, lift_keys, phase) * (second >= 0)
        shift = -sizes.shift * self.half_width * ease(second, SHIFT_KEYS, phase) * (second >= 0)
        positions = np.repeat(self.straight[None, :3, 3], len(t), axis=0)
        positions[:, 1] += shift
        positions[:, 2] += rise
        return _pose(self.straight[:3, :3], positions)

    def lifted(self, times: np.ndarray, phase: float) -> np.ndarray:
        """True where this sole is lifted off the stance height (stepping)."""
        second = np.asarray(times, dtype=float) - phase
        keys = LIFT_LEFT_KEYS if self.side > 0 else LIFT_RIGHT_KEYS
        return (second >= 0) & (ease(second, keys, phase) > 1e-3)


class ArmTargets:
    """Wrist targets of one arm: a circle in a frontal plane in front of the shoulder, elbow pole below.

    The wrist keeps one orientation: the one it has when the circle's centre is reached with the
    shoulder pitch and the elbow alone (all other joints at zero), so that the whole circle is
    reachable with the wrist near the middle of its range.
    """

    def __init__(self, chain: Chain, origins: np.ndarray, sizes: Sizes) -> None:
        """``origins``: (n, 3) joint positions [m] at q = 0 (:func:`joint_origins`)."""
        shoulder, elbow = origins[0], origins[_elbow(chain)]
        wrist = chain.fk(np.zeros(chain.n))[:3, 3]
        self.length = float(np.linalg.norm(elbow - shoulder) + np.linalg.norm(wrist - elbow))
        direction = np.array([np.cos(sizes.elevation), 0.0, np.sin(sizes.elevation)])
        self.centre = shoulder + sizes.reach * self.length * direction
        self.radius = sizes.radius * self.length
        self.rotation = chain.fk(_pitch_posture(chain, self.centre))[:3, :3]
        outward = np.sign(shoulder[1]) or 1.0
        self.pole = shoulder + self.length * np.array([-0.1, 0.3 * outward, -1.0])

    def poses(self, times: np.ndarray, phase: float) -> np.ndarray:
        """(N, 4, 4) wrist poses in the chain base at ``times`` [s] from the demo start."""
        t = np.asarray(times, dtype=float)
        local = np.where(t >= phase, t - phase, t)
        radius = self.radius * ease(local, RADIUS_KEYS, phase)
        angle = 2.0 * np.pi * ease(local, TURN_KEYS, phase)
        positions = np.repeat(self.centre[None], len(t), axis=0)
        positions[:, 1] += radius * np.cos(angle)
        positions[:, 2] += radius * np.sin(angle)
        return _pose(self.rotation, positions)

    def poles(self, times: np.ndarray) -> np.ndarray:
        """(N, 3) elbow pole points [m] in the chain base: below and outside the shoulder."""
        return np.repeat(self.pole[None], len(np.asarray(times)), axis=0)


def _elbow(chain: Chain) -> int:
    """Index of the elbow joint: the fourth (after a 3-joint shoulder), or the last of a shorter arm."""
    return min(ELBOW, chain.n - 1)


def _pitch_posture(chain: Chain, point: np.ndarray) -> np.ndarray:
    """(n,) configuration reaching ``point`` [m] with the shoulder pitch (joint 0) and elbow
    (:func:`_elbow`).

    The other joints stay at zero (clipped into their limits); the two angles come from a bounded
    least-squares fit, which also settles the elbow branch by the elbow's limits.
    """
    base = chain.rest_configuration()
    moving = [0, _elbow(chain)]

    def residual(angles: np.ndarray) -> np.ndarray:
        q = base.copy()
        q[moving] = angles
        return chain.fk(q)[:3, 3] - point

    low, high = chain.lower[moving], chain.upper[moving]
    fit = least_squares(residual, (low + high) / 2.0, bounds=(low, high))
    q = base.copy()
    q[moving] = fit.x
    return q


class DemoTrajectories:
    """All four limbs' targets over the demo: two phases of ``phase`` [s] each.

    Args:
        model: the robot, to measure its limbs.
        legs: {chain name: Chain} of the two legs (base → sole).
        arms: {chain name: Chain} of the two arms (base → wrist).
        phase: [s] length of each phase; the solver switch happens at ``phase``.
    """

    def __init__(
        self,
        model: RobotModel,
        legs: dict[str, Chain],
        arms: dict[str, Chain],
        phase: float,
        sizes: Sizes | None = None,
    ) -> None:
        sizes = sizes or Sizes()
        (a, chain_a), (b, chain_b) = legs.items()
        self.legs = {
            a: LegTargets(chain_a, joint_origins(model, chain_a), chain_b, sizes),
            b: LegTargets(chain_b, joint_origins(model, chain_b), chain_a, sizes),
        }
        self.arms = {
            name: ArmTargets(chain, joint_origins(model, chain), sizes) for name, chain in arms.items()
        }
        self.phase = phase
        self.duration = 2.0 * phase

    def sample(self, times: np.ndarray) -> dict[str, tuple[np.ndarray, np.ndarray | None]]:
        """{chain: (poses (N, 4, 4), poles (N, 3) or None)} at ``times`` (N,) [s] from the start."""
        times = np.atleast_1d(np.asarray(times, dtype=float))
        targets: dict[str, tuple[np.ndarray, np.ndarray | None]] = {
            name: (leg.poses(times, self.phase), None) for name, leg in self.legs.items()
        }
        for name, arm in self.arms.items():
            targets[name] = (arm.poses(times, self.phase), arm.poles(times))
        return targets

    def settled(self, times: np.ndarray, since: float = 0.3) -> np.ndarray:
        """True where every target has been still for ``since`` [s] (the holds ending each phase)."""
        t = np.asarray(times, dtype=float)
        local = np.where(t >= self.phase, t - self.phase, t)
        second = t >= self.phase
        result = still(local, RADIUS_KEYS, self.phase, since) & still(local, TURN_KEYS, self.phase, since)
        result &= np.where(second, True, still(local, SQUAT_KEYS, self.phase, since))
        for keys in (SHIFT_KEYS, LIFT_LEFT_KEYS, LIFT_RIGHT_KEYS):
            result &= np.where(second, still(local, keys, self.phase, since), True)
        return result & (t >= 0) & (t <= self.duration)
