"""ZMP preview control of the cart-table model (Kajita et al., ICRA 2003).

The centre of mass moves on a plane at height z_c over the ground; per horizontal axis the state
is x = (c, ċ, c̈) [m, m/s, m/s²], the input the jerk u [m/s³], and the ZMP of the cart-table
(linear inverted pendulum) model is p = c − (z_c / g) c̈. Discretised with the period dt:

    x[k+1] = A x[k] + B u[k],   p[k] = C x[k],
    A = [[1, dt, dt²/2], [0, 1, dt], [0, 0, 1]],  B = [dt³/6, dt²/2, dt],  C = [1, 0, −z_c/g].

The controller minimises Σ Qe e[k]² + R Δu[k]² (e = p − p_ref) in the form with integral action of
Katayama et al. (1985) that Kajita et al. use: with the augmented state (Σ_{i≤k} (p[i] − p_ref[i]), Δx), the gains
come from the discrete algebraic Riccati equation (scipy), and

    u[k] = −G_i Σ_{i≤k} (p[i] − p_ref[i]) − G_x x[k] − Σ_{j=1..N} G_d[j] p_ref[k + j],

N = preview time / dt samples of the future ZMP reference (the reference beyond them taken as
the last one). Both axes share the gains.
"""

from __future__ import annotations

import numpy as np
from scipy.linalg import solve_discrete_are

GRAVITY = 9.81  # [m/s²]
TAIL_LIMIT = 50  # the preview gains' tail is summed over at most this many horizons


class PreviewController:
    """Cart-table preview controller on x and y at once.

    Args:
        dt: control period [s]. com_height: z_c, the CoM's height over the ground [m].
        preview_time: how far ahead the ZMP reference is read [s].
        error_weight: Qe on the integrated ZMP error. jerk_weight: R on the jerk.
    """

    def __init__(
        self,
        dt: float,
        com_height: float,
        preview_time: float = 1.6,
        error_weight: float = 1.0,
        jerk_weight: float = 1e-6,
    ) -> None:
        if not (dt > 0 and com_height > 0 and preview_time >= dt and error_weight > 0 and jerk_weight > 0):
            raise ValueError(
                f"preview control needs dt > 0 ({dt}), com_height > 0 ({com_height} m), preview_time >= dt "
                f"({preview_time} s) and positive weights ({error_weight}, {jerk_weight})"
            )
        self.dt, self.com_height = float(dt), float(com_height)
        self.horizon = round(preview_time / dt)
        self.a = np.array([[1.0, dt, dt * dt / 2], [0.0, 1.0, dt], [0.0, 0.0, 1.0]])
        self.b = np.array([dt**3 / 6, dt * dt / 2, dt])
        self.c = np.array([1.0, 0.0, -com_height / GRAVITY])
        self.gain_integral, self.gain_state, self.gain_preview = _gains(
            self.a, self.b, self.c, error_weight, jerk_weight, self.horizon
        )
        self.state = np.zeros((3, 2))  # rows c, ċ, c̈; columns x, y
        self.error_sum = np.zeros(2)

    def reset(self, com: np.ndarray) -> None:
        """CoM (2,) [m] at rest: zero velocity and acceleration, no integrated error."""
        self.state = np.zeros((3, 2))
        self.state[0] = com
        self.error_sum = np.zeros(2)

    @property
    def zmp(self) -> np.ndarray:
        """(2,) the cart-table model's ZMP [m] at the current state."""
        return self.c @ self.state

    def step(self, reference: np.ndarray) -> np.ndarray:
        """Advance one period.

        Args:
            reference: (horizon + 1, 2) ZMP reference [m] from now (row 0) to ``horizon`` periods ahead.
        Returns:
            (3, 2) the new state: CoM position, velocity, acceleration on x and y.
        """
        self.error_sum += self.zmp - reference[0]
        jerk = -self.gain_integral * self.error_sum - self.gain_state @ self.state
        jerk -= self.gain_preview @ reference[1 : self.horizon + 1]
        self.state = self.a @ self.state + np.outer(self.b, jerk)
        return self.state


def _gains(a, b, c, error_weight: float, jerk_weight: float, horizon: int):
    """G_i (scalar), G_x (3,), G_d (horizon,) of the module docstring (Katayama et al. 1985)."""
    a_aug = np.zeros((4, 4))
    a_aug[0, 0], a_aug[0, 1:], a_aug[1:, 1:] = 1.0, c @ a, a
    b_aug = np.concatenate([[c @ b], b])[:, None]
    q_aug = np.zeros((4, 4))
    q_aug[0, 0] = error_weight
    try:
        p = solve_discrete_are(a_aug, b_aug, q_aug, np.array([[jerk_weight]]))
    except (np.linalg.LinAlgError, ValueError) as error:
        raise ValueError(
            f"preview control: no gains for error weight {error_weight} and jerk weight {jerk_weight} "
            f"({error}); weights between 1e-9 and 1e9 have gains"
        ) from error
    scale = 1.0 / (jerk_weight + float(b_aug[:, 0] @ p @ b_aug[:, 0]))
    gain = scale * (b_aug.T @ p @ a_aug).ravel()
    closed = a_aug - b_aug @ gain[None, :]
    x = p[:, 0].copy()  # (closed ᵀ)^(j) P I, I = (1, 0, 0, 0)
    preview = np.empty(horizon)
    for j in range(horizon):  # G_d[j + 1] = −(R + BᵀPB)⁻¹ Bᵀ (closedᵀ)^j P I; G_d[1] = −G_i
        preview[j] = -scale * float(b_aug[:, 0] @ x)
        x = closed.T @ x
    # The reference beyond the horizon is taken as its last sample: the gains' tail is added to the
    # last one, so that a constant reference is exactly an equilibrium.
    for _ in range(TAIL_LIMIT * horizon):
        term = -scale * float(b_aug[:, 0] @ x)
        preview[-1] += term
        if abs(term) < 1e-15 * abs(preview[0]):
            break
        x = closed.T @ x
    return gain[0], gain[1:], preview
