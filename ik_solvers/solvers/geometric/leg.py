"""Biped leg IK in closed form (``docs/algorithms.md``, the leg), for any sole pose, with every dimension from the URDF.

The leg: hip yaw (1) and hip roll (2) axes meeting at the hip centre H; three parallel pitch axes
(3 UpperLeg, 4 Knee, 5 Ankle); foot roll (6). Pitch rotations keep every plane normal to the pitch
axis, and yaw/roll turn about lines through H, so the whole leg below the roll joint stays in one
plane — the leg plane — whose unit normal y' (the moved pitch axis) satisfies, for every q,

    y' · x_f = 0       the foot roll axis x_f lies in the leg plane, and
    y' · (F - H) = W   the plane passes at the signed lateral offset W from H (the article's W),

with F a point of the foot roll axis. Both are known from the target alone. With d⊥ the part of
F - H normal to x_f (length rho) and n = d⊥ / rho, m = x_f × n:

    y' = (W / rho) n + sqrt(1 - W² / rho²) m        (the branch of the straight-standing leg)

For a sole parallel to the ground this is the article's quadratic in tan(theta_LegRoot) (the root
with ``ab - W sqrt(a² + b² - W²)``, and theta_LegRoot = theta_Foot); here it holds for any sole
roll, pitch and yaw, so heel/toe contact and general 6D poses are closed forms too. Then:

- hip yaw and roll turn the pitch axis onto y' (two-axis decomposition; the article: yaw = foot yaw
  minus body yaw when the sole is level);
- foot roll and the pitch sum (UpperLeg + Knee + Ankle) follow from the target orientation;
- UpperLeg and Knee are the planar two-link of :mod:`.two_link` in the leg plane (knee from the law of
  cosines, theta_k = pi - gamma; UpperLeg = alpha + beta); Ankle = pitch sum - UpperLeg - Knee
  (the article's theta_a = theta_k - theta_u for a level sole).

Signs come from the URDF axes; the knee bends the way its limits allow. No iteration: the result
is exact to rounding (about 1e-15 m). Out of reach (too far, too close for the knee limits, or the
foot roll axis closer to H than W) the nearest pose is returned with success False.
"""

from __future__ import annotations

import math

import numpy as np

from ik_solvers.chain import Chain
from ik_solvers.solvers.geometric.base import NOT_MET
from ik_solvers.solvers.geometric.branches import BranchSolver
from ik_solvers.solvers.geometric.kernels import leg as kernel
from ik_solvers.solvers.geometric.kernels import leg_batch, leg_layout, prepare_kernels
from ik_solvers.solvers.geometric.leg_gimbal import ALIGNED, gimbal_yaw
from ik_solvers.solvers.geometric.refine import MODEL_SLACK, model_deviation, refine
from ik_solvers.solvers.geometric.structure import AxisLines, leg_structure, meeting_point, require, sign
from ik_solvers.solvers.geometric.two_link import TwoLink
from ik_solvers.solvers.geometric.vectors import (
    COLUMNS,
    SCALAR,
    Ops,
    add,
    scale,
    sub,
    tmatvec,
)

FAR, CLOSE, LATERAL = 1, 2, 3
REACH_SLACK = 1e-12  # [m]
NEAR_SEED = 0.01  # [rad²] a solution on the seed's own branch this near the seed is taken as it is,
# unless the seed is near the border of two branches (the nearer one wins there)
HIP_BORDER = 0.05  # [1] × the leg's reach: a seed this near the hip planes' border tries both
KNEE_BORDER = 0.05  # [rad] a knee this near the stretch tries both bends
TURN_BORDER = 0.05  # [1] sine of the pitch axis' angle to the hip yaw axis below which both turns are tried
NO_SEEDS = np.zeros((1, 6))  # the batch kernel's seeds and clipped seeds unseeded: not read
PARALLEL_ROWS = 512  # a batch of this many rows or more runs on the cores (fewer: one thread)
# (hip plane, knee bend, hip turn): the default first, the hip's turned pair (yaw + pi) last
BRANCHES = tuple((hip, knee, turn) for turn in (1.0, -1.0) for knee in (1.0, -1.0) for hip in (1.0, -1.0))


def _tuple(vector: np.ndarray) -> tuple[float, float, float]:
    return tuple(float(x) for x in vector)


class LegSolver(BranchSolver):
    """Closed-form IK of a 6-DoF biped leg (see the module docstring); geometry read from the chain.

    Targets are sole (tip link) poses in the chain's base frame [m]. A sole pose has up to four
    solutions (two leg planes through the foot roll axis, two knee bends); the default is the
    straight-standing leg's plane with the knee bent the way its limits allow, the others are used
    where it fails. With a seed, the seed's own branch goes first and is kept when its solution is
    near the seed; else the successful solution nearest the seed wins. ``pole`` (knee hint)
    is accepted for interface compatibility and not used.

    Args:
        chain: a leg chain (base → sole). tolerance: [m], [rad] allowed FK error of a success.
        axis_lines: the chain's axis lines when :func:`leg_structure` already checked them.
    Raises:
        StructureMismatch: the chain is no such leg (the message says what it lacks).
    """

    def __init__(self, chain: Chain, tolerance: float = 1e-9, axis_lines: AxisLines | None = None) -> None:
        lines = leg_structure(chain) if axis_lines is None else axis_lines
        w, p, tip = lines.directions, lines.points, lines.tip
        rotation_m, origin_m = tip[:3, :3], tip[:3, 3]
        hip = meeting_point(p[0], w[0], p[1], w[1])
        offset = p[5] - hip
        normal = offset - np.dot(offset, w[5]) * w[5]
        require(
            np.linalg.norm(normal) > 1e-6, "biped leg", "the foot roll axis passes through the hip centre"
        )
        self.lateral = float(np.dot(w[2], offset))  # W [m]
        self.hip_sign = sign(np.dot(w[2], np.cross(w[5], normal)))
        e12 = np.cross(w[0], w[1])
        self.roll_sign = sign(np.dot(w[2], e12))
        self._w1, self._w2, self._w3, self._w6, self._e12 = map(_tuple, (w[0], w[1], w[2], w[5], e12))
        self._hip = _tuple(hip)
        # roll = angle about w2 from w3 to along_yaw w1 + across e12 (sine terms, cosine terms);
        # yaw = angle about w1 from e12 to the pitch axis.
        self._roll_terms = (
            (float(np.dot(w[1], np.cross(w[2], w[0]))), float(np.dot(w[1], np.cross(w[2], e12)))),
            (float(np.dot(w[2], w[0])), float(np.dot(w[2], e12))),
        )
        self._yaw_sine, self._yaw_cosine = _tuple(-self.roll_sign * w[1]), _tuple(self.roll_sign * e12)
        # the seed's hip turn: roll_sign e12 · Rot(w2, roll) w3 = turn_cos cos(roll) + turn_sin sin(roll)
        self._turn_terms = (
            float(self.roll_sign * np.dot(e12, w[2])),
            float(self.roll_sign * np.dot(e12, np.cross(w[1], w[2]))),
        )
        self._pitch_signs = tuple(sign(np.dot(w[i], w[2])) for i in (2, 3, 4))
        basis = np.stack([w[5], np.cross(w[2], w[5]), w[2]])  # rows: plane x, plane z, pitch axis

        def plane(v):
            return tuple(float(x) for x in (basis @ v)[:2])

        self._upper_point = plane(p[2] - hip)
        self.two_link = TwoLink.build(
            plane(p[3] - p[2]),
            plane(p[4] - p[3]),
            self._pitch_signs[0],
            self._pitch_signs[1],
            float(chain.lower[3]),
            float(chain.upper[3]),
        )
        self._link2 = plane(p[4] - p[3])
        # Tip-frame constants for the closed form, basis constants for the forward check.
        to_tip = rotation_m.T
        self._w6_tip, self._p6_tip = _tuple(to_tip @ w[5]), _tuple(to_tip @ (p[5] - origin_m))
        self._ankle_tip = _tuple(to_tip @ (p[4] - p[5]))
        self._b1, self._b2 = _tuple(to_tip @ np.cross(w[5], w[2])), _tuple(to_tip @ w[2])
        self._ankle_height = float(np.dot(w[2], p[4] - hip))
        self._foot_offset, self._tip_offset = _tuple(basis @ (p[5] - p[4])), _tuple(basis @ (origin_m - p[5]))
        self._tip_rotation = tuple(_tuple(basis @ rotation_m[:, j]) for j in range(3))
        super().__init__(chain, "biped leg", self._reach_messages(), tolerance, BRANCHES, NEAR_SEED)
        prepare_kernels()
        self._constants = self._kernel_constants()
        self._work, self._works = np.empty(kernel.WORK), leg_batch.workspaces()
        # axes that only nearly meet (or are nearly orthogonal): answers refined to the chain's FK
        self.refined = model_deviation(chain, self._model_poses) > MODEL_SLACK

    def _kernel_constants(self) -> np.ndarray:
        """The leg's constants as the compiled solve reads them (:data:`kernels.leg_layout.OFFSETS`)."""
        two = self.two_link
        (sin_yaw, sin_across), (cos_yaw, cos_across) = self._roll_terms
        values = {
            "w1": self._w1,
            "w2": self._w2,
            "w3": self._w3,
            "w6": self._w6,
            "hip": self._hip,
            "w6_tip": self._w6_tip,
            "p6_tip": self._p6_tip,
            "ankle_tip": self._ankle_tip,
            "b1": self._b1,
            "b2": self._b2,
            "yaw_sine": self._yaw_sine,
            "yaw_cosine": self._yaw_cosine,
            "foot_offset": self._foot_offset,
            "tip_offset": self._tip_offset,
            "tip_x": self._tip_rotation[0],
            "tip_y": self._tip_rotation[1],
            "tip_z": self._tip_rotation[2],
            "lateral": self.lateral,
            "hip_sign": self.hip_sign,
            "roll_sign": self.roll_sign,
            "sin_yaw": sin_yaw,
            "sin_across": sin_across,
            "cos_yaw": cos_yaw,
            "cos_across": cos_across,
            "turn_cos": self._turn_terms[0],
            "turn_sin": self._turn_terms[1],
            "sign3": self._pitch_signs[0],
            "sign4": self._pitch_signs[1],
            "sign5": self._pitch_signs[2],
            "upper_x": self._upper_point[0],
            "upper_z": self._upper_point[1],
            "link1_x": two.link1[0],
            "link1_z": two.link1[1],
            "link2_x": self._link2[0],
            "link2_z": self._link2[1],
            "ankle_height": self._ankle_height,
            "ratio": two.ratio,
            "length1": two.length1,
            "length2": two.length2,
            "kappa": two.kappa,
            "sign_a": two.sign_a,
            "sign_b": two.sign_b,
            "lower_b": two.lower_b,
            "upper_b": two.upper_b,
            "natural": two.natural,
            "reach_min": two.reach_min,
            "reach_max": two.reach_max,
            "tolerance": self.tolerance,
            "near_seed": self.near_seed,
            "lower": self._lower,
            "upper": self._upper,
            "middle": self._middle,
            "continuous": self._continuous,
            "rest_yaw": float(self._rest_q[0]),
            "cos_kappa": math.cos(two.kappa),
            "sin_kappa": math.sin(two.kappa),
        }
        return leg_layout.constants(values)

    def _check_and_solve(self, entries: np.ndarray, seed: np.ndarray, seeded: bool, clipped: np.ndarray):
        """The input check and the solve in one compiled call (:func:`kernels.leg.check_solve`: one
        dispatch from Python, not two); refined, the check alone (:meth:`_solve_one` refines)."""
        if self.refined:
            return super()._check_and_solve(entries, seed, seeded, clipped)
        q = np.empty(6)
        code, reason, position_error, orientation_error, continuous = kernel.check_solve(
            self._constants,
            entries,
            seed,
            seeded,
            self._chain_lower,
            self._chain_upper,
            clipped,
            q,
            self._work,
        )
        return code, (q, reason, position_error, orientation_error, continuous)

    def _solve_one(self, entries: np.ndarray, seed: np.ndarray | None, pole: np.ndarray | None):
        """One checked target, compiled (:func:`kernels.leg.solve`); see BranchSolver._solve_scalar."""
        q = np.empty(6)
        seeded = seed is not None
        found = kernel.solve_entries(self._constants, entries, seed if seeded else q, seeded, q, self._work)
        if not self.refined:
            return (q, *found)
        q, *errors = (np.array([x]) for x in (q, *found[:3]))
        self._refine_rows(q, *errors, np.reshape(entries, (1, 4, 4)))
        return (q[0], int(errors[0][0]), float(errors[1][0]), float(errors[2][0]), found[3])

    def _solve_rows(self, targets: np.ndarray, seeds, poles, out) -> None:
        """Every target of (N, 16) row-major ``targets`` compiled, checked as it is solved
        (:func:`kernels.leg_batch.solve_rows`); from :data:`PARALLEL_ROWS` rows on, on the cores
        (the same answers). Poles are not used by the leg."""
        seeded = seeds is not None
        read, clipped = (seeds, np.empty_like(seeds)) if seeded else (NO_SEEDS, NO_SEEDS)
        arguments = (self._constants, targets, read, seeded, self._row_bounds, out, clipped)
        kernels = (leg_batch.solve_rows, leg_batch.solve_rows_dynamic)
        self._run_rows(kernels, arguments, (self._work, self._works), PARALLEL_ROWS, seeds, out[1])
        if self.refined:
            self._refine_rows(*out[:4], targets.reshape(-1, 4, 4))

    def _refine_rows(self, q, reason, position_error, orientation_error, targets) -> None:
        """Answers (N, 6) that met the structure model, refined in place to the chain's own FK
        (:func:`refine.refine`); their reasons and errors [m], [rad] (N,) from the chain's FK."""
        rows = np.flatnonzero((reason == 0) | (reason == NOT_MET))
        if rows.size:
            q[rows], position, orientation = refine(self.chain, q[rows], targets[rows])
            position_error[rows], orientation_error[rows] = position, orientation
            reason[rows] = np.where(self._missed(position, orientation), NOT_MET, 0)

    def _model_poses(self, q: np.ndarray) -> np.ndarray:
        """(N, 4, 4) tip poses of (N, 6) q by the leg-plane structure model (:meth:`_forward`)."""
        rotation, translation = self._forward(tuple(q.T), COLUMNS)
        poses = np.zeros((q.shape[0], 4, 4))
        poses[:, :3, :3] = np.stack([np.stack(column, axis=-1) for column in rotation], axis=-1)
        poses[:, :3, 3], poses[:, 3, 3] = np.stack(translation, axis=-1), 1.0
        return poses

    def _reach_messages(self) -> dict[int, str]:
        two = self.two_link
        return {
            FAR: f"out of reach: the ankle is farther than {two.reach_max:.4g} m (stretched leg) from the hip "
            "pitch axis; q is the stretched leg pointing at the target",
            CLOSE: f"out of reach: the ankle is closer than {two.reach_min:.4g} m to the hip pitch axis (knee "
            "limit); q folds the knee to its limit towards the target",
            LATERAL: f"out of reach: the foot roll axis passes closer to the hip centre than the lateral offset "
            f"W = {abs(self.lateral):.4g} m; q is the nearest pose with the leg plane through that axis",
        }

    def _closed_form(self, rotation, translation, branch, ops: Ops, seed=None):
        """Raw joint angles (6-tuple) and reach reason for sole poses given as floats or columns.

        ``branch`` = (hip, knee, turn): +1 the straight-standing leg's side / the knee's natural bend /
        the hip's default yaw-roll pair, -1 the other (the leg plane's second tangent through the foot
        roll axis / knee reversed / hip yaw turned by pi with the roll mirrored: the same pitch axis).
        At the hip gimbal (floats) the yaw is the feasible one nearest ``seed``'s (n floats), else
        the rest configuration's (:mod:`.leg_gimbal`); columns come from the compiled batch instead.
        """
        hip_branch, knee_branch, turn = branch
        foot_axis = ops.matvec(rotation, self._w6_tip)
        foot_point = add(ops.matvec(rotation, self._p6_tip), translation)
        offset = sub(foot_point, self._hip)
        normal = sub(offset, scale(foot_axis, ops.dot(offset, foot_axis)))
        rho = ops.sqrt(ops.dot(normal, normal))
        inverse = 1.0 / ops.maximum(rho, 1e-12)
        cosine = self.lateral * inverse
        lateral_miss = abs(cosine) > 1.0 + REACH_SLACK
        cosine = ops.minimum(ops.maximum(cosine, -1.0), 1.0)
        unit = scale(normal, inverse)
        pitch_axis = ops.combine(
            unit,
            cosine,
            ops.cross(foot_axis, unit),
            hip_branch * self.hip_sign * ops.sqrt(1.0 - cosine * cosine),
        )
        yaw, roll, spread = self._hip_angles(pitch_axis, turn, ops)
        v = tmatvec(rotation, pitch_axis, ops)
        foot = -ops.atan2(ops.dot(self._b1, v), ops.dot(self._b2, v))
        c6, s6 = ops.cos(foot), ops.sin(foot)
        ankle = add(foot_point, ops.rotate(foot_axis, c6, -s6, ops.matvec(rotation, self._ankle_tip)))
        relative = sub(ankle, self._hip)
        two = self.two_link
        bend = knee_branch * two.natural
        if ops is SCALAR and spread <= ALIGNED:  # the hip gimbal: the yaw is free (leg_gimbal.py)
            references = self._rest_references if seed is None else self._references(seed)
            preferred = self._rest_q[0] if seed is None else seed[0]
            yaw = gimbal_yaw(self, roll, pitch_axis, foot_axis, relative, bend, references, preferred)
        c1, s1, c2, s2 = ops.cos(yaw), ops.sin(yaw), ops.cos(roll), ops.sin(roll)
        plane_x = ops.rotate(self._w1, c1, s1, ops.rotate(self._w2, c2, s2, self._w6))
        plane_z = ops.cross(pitch_axis, plane_x)
        pitch_sum = ops.atan2(ops.dot(foot_axis, plane_z), ops.dot(foot_axis, plane_x))
        dx = ops.dot(relative, plane_x) - self._upper_point[0]
        dz = ops.dot(relative, plane_z) - self._upper_point[1]
        upper, knee, phi_upper, phi_knee, distance = two.solve(dx, dz, bend, ops)
        ankle_angle = self._pitch_signs[2] * (pitch_sum - phi_upper - phi_knee)
        reason = ops.where(distance < two.reach_min - REACH_SLACK, CLOSE, 0)
        reason = ops.where(distance > two.reach_max + REACH_SLACK, FAR, reason)
        reason = ops.where(lateral_miss, LATERAL, reason)
        return (yaw, roll, upper, knee, ankle_angle, foot), reason

    def _seed_branch(self, seed, ops: Ops):
        """(hip, knee) branch of the seed's own pose, from its pitch joints alone (floats or columns),
        and True where the seed is near the border of its hip or knee branch.

        Knee: the side of the stretch its bend is on. Hip: the sign of (F - H) · (y' × x_f) in the
        leg plane (F the foot roll axis point, x_f its direction), which tells the two tangent planes
        of the module docstring apart. Turn: the sign of the pitch axis' part across the yaw axis
        after the roll (relative to q = 0), which tells the two yaw-roll pairs apart. Near a border the branches' solutions meet and part like a
        square root, and the seed's own label may already be the other side's continuation (a path
        crossing the border), so every branch is tried there.
        """
        hip, knee = self._seed_sides(seed, ops)
        turn_cos, turn_sin = self._turn_terms
        turn = turn_cos * ops.cos(seed[1]) + turn_sin * ops.sin(seed[1])
        natural = self.two_link.natural
        branch = (
            ops.where(hip >= 0.0, self.hip_sign, -self.hip_sign),
            ops.where(knee >= 0.0, natural, -natural),
            ops.where(turn >= 0.0, 1.0, -1.0),
        )
        border = (abs(hip) < HIP_BORDER * self.two_link.reach_max) | (abs(knee) < math.sin(KNEE_BORDER))
        return branch, border | (abs(turn) < TURN_BORDER)

    def _rival(self, branch, first):
        """Only branches of the seed's own hip turn count for ``continuous``: the other turn's
        yaw is half a turn away, and the seed's own branch failing already tells of a jump."""
        return branch[2] == first[2]

    def _seed_sides(self, seed, ops: Ops):
        """Signed hip-plane side [m] ((F - H) · (y' × x_f)) and knee side (sin of the bend from the
        stretch) of the seed's pitch joints (floats or columns); see :meth:`_seed_branch`."""
        sign3, sign4, sign5 = self._pitch_signs
        two = self.two_link
        phi_upper, phi_knee = sign3 * seed[2], sign4 * seed[3]
        phi_thigh, phi = phi_upper + phi_knee, phi_upper + phi_knee + sign5 * seed[4]
        (ux, uz), (x1, z1), (x2, z2) = self._upper_point, two.link1, self._link2
        c3, s3, c34, s34 = ops.cos(phi_upper), ops.sin(phi_upper), ops.cos(phi_thigh), ops.sin(phi_thigh)
        ankle_x = ux + x1 * c3 - z1 * s3 + x2 * c34 - z2 * s34
        ankle_z = uz + x1 * s3 + z1 * c3 + x2 * s34 + z2 * c34
        side = ops.cos(phi) * ankle_z - ops.sin(phi) * ankle_x + self._foot_offset[1]
        return side, ops.sin(phi_knee + two.kappa)

    def _hip_angles(self, pitch_axis, turn, ops: Ops):
        """Yaw and roll [rad] that turn the q = 0 pitch axis onto ``pitch_axis``, and the length of the
        pitch axis' part across the yaw axis (0 at the gimbal); ``turn`` +1 the default pair, -1 the
        other (yaw + pi, the pitch axis' part across the yaw axis reversed)."""
        along_yaw = ops.dot(self._w1, pitch_axis)
        beside = sub(pitch_axis, scale(self._w1, along_yaw))  # not sqrt(1 - along²): exact at the gimbal
        spread = ops.sqrt(ops.dot(beside, beside))
        across = turn * self.roll_sign * spread
        (sin_yaw, sin_across), (cos_yaw, cos_across) = self._roll_terms
        roll = ops.atan2(along_yaw * sin_yaw + across * sin_across, along_yaw * cos_yaw + across * cos_across)
        yaw = ops.atan2(
            turn * ops.dot(pitch_axis, self._yaw_sine), turn * ops.dot(pitch_axis, self._yaw_cosine)
        )
        return yaw, roll, spread

    def _forward(self, q, ops: Ops):
        """Sole pose (rotation columns, translation) of q, by the leg-plane structure."""
        yaw, roll, upper, knee, ankle, foot = q
        c1, s1, c2, s2 = ops.cos(yaw), ops.sin(yaw), ops.cos(roll), ops.sin(roll)
        plane_x = ops.rotate(self._w1, c1, s1, ops.rotate(self._w2, c2, s2, self._w6))
        pitch_axis = ops.rotate(self._w1, c1, s1, ops.rotate(self._w2, c2, s2, self._w3))
        basis = (plane_x, ops.cross(pitch_axis, plane_x), pitch_axis)
        sign3, sign4, sign5 = self._pitch_signs
        phi_upper, phi_knee = sign3 * upper, sign4 * knee
        phi = phi_upper + phi_knee + sign5 * ankle
        c3, s3 = ops.cos(phi_upper), ops.sin(phi_upper)
        c34, s34 = ops.cos(phi_upper + phi_knee), ops.sin(phi_upper + phi_knee)
        (ux, uz), (x1, z1), (x2, z2) = self._upper_point, self.two_link.link1, self._link2
        thigh, shank = ops.turn(c3, s3, x1, z1), ops.turn(c34, s34, x2, z2)
        ankle_point = (ux + thigh[0] + shank[0], uz + thigh[1] + shank[1], self._ankle_height)
        cp, sp, c6, s6 = ops.cos(phi), ops.sin(phi), ops.cos(foot), ops.sin(foot)

        def pitch_then_roll(v):  # Rz(phi) Rx(foot) v in the leg-plane basis
            y, z = ops.turn(c6, s6, v[1], v[2])
            return (*ops.turn(cp, sp, v[0], y), z)

        foot_offset = self._foot_offset
        foot_offset = (*ops.turn(cp, sp, foot_offset[0], foot_offset[1]), foot_offset[2])
        tip_local = add(add(ankle_point, foot_offset), pitch_then_roll(self._tip_offset))
        translation = add(self._hip, ops.matvec(basis, tip_local))
        rotation = tuple(ops.matvec(basis, pitch_then_roll(column)) for column in self._tip_rotation)
        return rotation, translation
