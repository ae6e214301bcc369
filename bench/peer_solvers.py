"""The analytic and TRAC-IK peers of bench/peers_bench.py (bench/requirements.txt), each behind
one call: ``solve(target, seed) -> q or None`` on the whole chain.

EAIK and ik-geo take a 6R chain as joint axes H and offsets P in the base frame at q = 0 (the
product-of-exponentials form of IK-Geo); a 7-DoF chain is handed over with one joint locked
(:func:`hp_form`). Of their solutions the in-limit one nearest the seed is taken (:func:`pick`).
This module only defines them; run bench/peers_bench.py.
"""

from __future__ import annotations

import numpy as np

LIMIT_TOL = 1e-7  # [rad] how far past a joint limit an answer may be (KDL keeps limits as float32)

# ik-geo's 6R families, tried in this order (forward and reversed chain) until one recovers the
# known answers of a few targets
IK_GEO_FAMILIES = (
    "spherical_two_intersecting",
    "spherical_two_parallel",
    "spherical",
    "three_parallel_two_intersecting",
)
IK_GEO_FAMILIES += ("three_parallel", "two_parallel", "two_intersecting")


def hp_form(chain, q0: np.ndarray, keep: list[int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Joint axes H (6, 3) and offsets P (7, 3) in the base frame at q0 (the unkept joint locked at
    its q0 value, the kept ones measured from q0 = 0), and the tip's rotation at q0 (FK = HP · R)."""
    frames = chain.joint_frames(q0)
    axes = np.einsum("nij,nj->ni", frames[:, :3, :3], chain.axes)[keep]
    origins = frames[keep, :3, 3]
    tip = chain.fk(q0)
    offsets = np.vstack([origins[:1], np.diff(origins, axis=0), tip[None, :3, 3] - origins[-1:]])
    return axes, offsets, tip[:3, :3]


def pick(solutions: np.ndarray, seed: np.ndarray | None, lower, upper) -> np.ndarray | None:
    """The in-limit row of ``solutions`` nearest ``seed`` (the first in-limit one without a seed)."""
    if not len(solutions):
        return None
    inside = np.all((solutions >= lower - LIMIT_TOL) & (solutions <= upper + LIMIT_TOL), axis=1)
    if not inside.any():
        return None
    rows = solutions[inside]
    if seed is None:
        return rows[0]
    return rows[np.argmin(np.sum((rows - seed) ** 2, axis=1))]


class Analytic:
    """A 6R analytic peer on the chain (one joint locked on 7-DoF chains): ``solve`` returns the
    chosen answer as the whole chain's q, ``call`` the bare library call, ``batch`` or None."""

    def __init__(self, chain, lock: int | None, lock_value: float) -> None:
        self.chain, self.lock = chain, lock
        self.keep = [i for i in range(chain.n) if i != lock]
        q0 = np.zeros(chain.n)
        if lock is not None:
            q0[lock] = lock_value
        self.q0 = q0
        self.H, self.P, self.tip_rotation = hp_form(chain, q0, self.keep)
        self.lower, self.upper = chain.lower[self.keep], chain.upper[self.keep]
        self.batch = None

    def full(self, q6: np.ndarray | None) -> np.ndarray | None:
        if q6 is None:
            return None
        q = self.q0.copy()
        q[self.keep] = q6
        return q

    def solve(self, target, seed):
        solutions = self.solutions(self.call(target))
        return self.full(pick(solutions, None if seed is None else seed[self.keep], self.lower, self.upper))


class Eaik(Analytic):
    def __init__(self, chain, lock, lock_value) -> None:
        from eaik.IK_HP import HPRobot

        super().__init__(chain, lock, lock_value)
        self.robot = HPRobot(self.H, self.P)
        if not self.robot.hasKnownDecomposition():
            raise RuntimeError("EAIK knows no decomposition for this chain")
        self.family = self.robot.getKinematicFamily()
        fix = np.eye(4)
        fix[:3, :3] = self.tip_rotation.T
        self.fix = fix
        self.batch = lambda targets: self.robot.IK_batched(targets @ fix, num_worker_threads=2)

    def call(self, target):
        return self.robot.IK(target @ self.fix)

    @staticmethod
    def solutions(found) -> np.ndarray:
        return np.asarray(found.Q)


class IkGeo(Analytic):
    def __init__(self, chain, lock, lock_value, targets, answers) -> None:
        import ik_geo

        super().__init__(chain, lock, lock_value)
        self.tip = np.eye(4)
        self.tip[:3, :3] = self.tip_rotation
        for family in IK_GEO_FAMILIES:
            for reverse in (False, True):
                H, P = (self.H[::-1], -self.P[::-1]) if reverse else (self.H, self.P)
                self.robot, self.reverse = getattr(ik_geo.Robot, family)(H.tolist(), P.tolist()), reverse
                if self._recovers(targets, answers):
                    self.family = family + (" (reversed chain)" if reverse else "")
                    return
        raise RuntimeError("no ik-geo 6R family recovers this chain's answers")

    def _recovers(self, targets, answers) -> bool:
        for target, answer in zip(targets, answers):
            found = self.solutions(self.call(target))
            gap = (found - answer[self.keep] + np.pi) % (2 * np.pi) - np.pi if len(found) else np.ones((1, 1))
            if np.abs(gap).max(axis=1).min() > 1e-6:
                return False
        return True

    def call(self, target):
        # ik-geo reads (and FK writes) the rotation transposed; HP has no tip rotation
        if self.reverse:  # inverse pose: joints in reverse order, angles negated
            pose = self.tip @ np.linalg.inv(target)
        else:
            pose = target @ np.vstack([np.c_[self.tip_rotation.T, np.zeros(3)], [0, 0, 0, 1]])
        return self.robot.get_ik(np.ascontiguousarray(pose[:3, :3].T), pose[:3, 3])

    def solutions(self, found) -> np.ndarray:
        rows = np.array([row for row, _ in found]).reshape(-1, 6)
        return -rows[:, ::-1] if self.reverse else rows


def trac_ik(chain, urdf: str):
    import pytracik
    from scipy.spatial.transform import Rotation

    solver = pytracik.TRAC_IK("link0", "tip", urdf, 0.01, 1e-6, pytracik.SolveType.Speed)
    middle = 0.5 * (chain.lower + chain.upper)

    def solve(target, seed):
        x, y, z, w = Rotation.from_matrix(target[:3, :3]).as_quat()
        found = pytracik.ik(solver, middle if seed is None else seed, *target[:3, 3], x, y, z, w)
        return found[1:] if len(found) == chain.n + 1 and found[0] >= 0 else None

    return solve
