"""Where the biped leg's constants sit in its kernels' one float array ``k`` (:mod:`.leg`,
:mod:`.leg_gimbal`); :class:`~ik_solvers.solvers.geometric.leg.LegSolver` fills it once."""

from __future__ import annotations

import numpy as np

from ik_solvers.solvers.geometric.kernels import layout, two_link

N = 6
VECTORS = ("w1", "w2", "w3", "w6", "hip", "w6_tip", "p6_tip", "ankle_tip", "b1", "b2", "yaw_sine")
VECTORS += ("yaw_cosine", "foot_offset", "tip_offset", "tip_x", "tip_y", "tip_z")
SCALARS = ("lateral", "hip_sign", "roll_sign", "sin_yaw", "sin_across", "cos_yaw", "cos_across")
SCALARS += ("sign3", "sign4", "sign5", "upper_x", "upper_z", "link2_x", "link2_z", "ankle_height")
SCALARS += ("natural", "reach_min", "reach_max", "tolerance", "near_seed", "turn_cos", "turn_sin")
SCALARS += ("rest_yaw",)  # the rest configuration's hip yaw [rad]: the gimbal's preferred yaw unseeded
SCALARS += ("cos_kappa", "sin_kappa")  # of the two-link's kappa: the knee's angle from phi_b + kappa's
SCALARS += two_link.LAYOUT  # the knee and upper leg's two-link block (kernels.two_link)
JOINTS = ("lower", "upper", "middle", "continuous")
# where each constant starts in ``k``: 3-vectors, then scalars, then N entries per joint table
OFFSETS, SIZE = layout.offsets(VECTORS, SCALARS, JOINTS, N)
W1, W2, W3, W6, HIP, W6_TIP, P6_TIP, ANKLE_TIP, B1, B2, YAW_SINE = (OFFSETS[n] for n in VECTORS[:11])
YAW_COSINE, FOOT_OFFSET, TIP_OFFSET, TIP_X, TIP_Y, TIP_Z = (OFFSETS[n] for n in VECTORS[11:])
LATERAL_W, HIP_SIGN, ROLL_SIGN, SIN_YAW, SIN_ACROSS, COS_YAW, COS_ACROSS = (OFFSETS[n] for n in SCALARS[:7])
SIGN3, SIGN4, SIGN5, UPPER_X, UPPER_Z = (
    OFFSETS[n] for n in ("sign3", "sign4", "sign5", "upper_x", "upper_z")
)
LINK2_X, LINK2_Z, ANKLE_HEIGHT, NATURAL = (
    OFFSETS[n] for n in ("link2_x", "link2_z", "ankle_height", "natural")
)
REACH_MIN, REACH_MAX, TOLERANCE, NEAR_SEED = (
    OFFSETS[n] for n in ("reach_min", "reach_max", "tolerance", "near_seed")
)
TURN_COS, TURN_SIN, TWO_LINK = OFFSETS["turn_cos"], OFFSETS["turn_sin"], OFFSETS[two_link.LAYOUT[0]]
LINK1_X, LINK1_Z, KAPPA, REST_YAW = (OFFSETS[n] for n in ("link1_x", "link1_z", "kappa", "rest_yaw"))
COS_KAPPA, SIN_KAPPA = OFFSETS["cos_kappa"], OFFSETS["sin_kappa"]
LOWER, UPPER, MIDDLE, CONTINUOUS = (OFFSETS[n] for n in JOINTS)

# a hip pair's part (kernels.leg.hip_part): yaw, roll, foot roll, pitch sum, the ankle (x, z),
# the lateral miss, then SHARED (1.0 where it holds for both knee bends), then from TRIG the
# cosine and sine of its yaw, roll, foot roll and pitch sum; HIP_PART entries in all. A pair's row in the
# seeded search's scratch (KEPT entries) adds from STRETCH the two-link's bend-free part
# (kernels.two_link.stretch: the bend's angle, the distance, the angle's cosine and sine), which both knee bends share
SHARED, TRIG, HIP_PART = 7, 8, 16
STRETCH, KEPT = HIP_PART, HIP_PART + 4
# a branch's row in the seeded search's scratch: its q (N entries), then from KNEE_FK the KNEE
# values of kernels.leg.knee_fk (its raw pitch angles and their plane angles' cosines and sines)
KNEE_FK, KNEE = N, 7


def constants(values: dict) -> np.ndarray:
    """(SIZE,) the leg's constants laid out by :data:`OFFSETS` (``values``: name → float or floats)."""
    return layout.pack(OFFSETS, SIZE, values, "leg")
