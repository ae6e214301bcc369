"""Detection of a simulation that has gone unstable, with the reason, instead of a silent collapse.

MuJoCo answers a non-finite or huge acceleration by printing a warning and resetting the state
to the model's rest pose: the robot then silently falls from its initial height. The monitor
turns that into :class:`UnstableSimulation` naming what went wrong:

- MuJoCo's bad-acceleration warning counter grew (``mjWARN_BADQACC``: NaN, inf or > 1e10),
- the state is not finite,
- the kinetic energy of the robot's bodies exceeds that of the whole robot moving at
  ``SPEED_LIMIT`` [m/s]: no servo of a walking robot puts that much energy in; an integrator that
  does is blowing up. The joints' armature is left out of that energy: it is the servos' rotor
  inertia the simulator adds for stability (:mod:`ik_solvers.sim.servo_tuning`), and for servos
  of placeholder strength (the OP3's 1000 N m, before the effort ceiling of servo_tuning: 0.8 kg m²
  per joint) it held more energy than the robot itself when the arms merely swung at 6 rad/s
  (158 J against 157 J for the 3.1 kg robot).
"""

from __future__ import annotations

import mujoco
import numpy as np

SPEED_LIMIT = 10.0  # [m/s] whole-robot speed whose kinetic energy marks a blow-up


class UnstableSimulation(RuntimeError):
    """The physics diverged; the message says how and what to change."""


class StabilityMonitor:
    """Checks a model's state after steps; raises :class:`UnstableSimulation`."""

    def __init__(self, model: mujoco.MjModel, data: mujoco.MjData) -> None:
        self.model, self.data = model, data
        mass = float(np.sum(model.body_mass))
        self.energy_limit = 0.5 * mass * SPEED_LIMIT**2  # [J]
        self.bad_accelerations = 0
        self._momentum = np.zeros(model.nv)

    def _bad_acceleration_count(self) -> int:
        return int(self.data.warning[mujoco.mjtWarning.mjWARN_BADQACC].number)

    def kinetic_energy(self) -> float:
        """[J] 0.5 v^T M v of the current state, the armature's 0.5 Σ a_i v_i² taken out."""
        mujoco.mj_mulM(self.model, self.data, self._momentum, self.data.qvel)
        velocity = self.data.qvel
        return 0.5 * float(velocity @ self._momentum - self.model.dof_armature @ velocity**2)

    def reset(self) -> None:
        """Forget warnings raised before the state was reset."""
        self.bad_accelerations = self._bad_acceleration_count()

    def check(self, since: float, hint: str) -> None:
        """Raise :class:`UnstableSimulation` if the run diverged since simulated time ``since`` [s]
        (MuJoCo's reset puts the clock back); ``hint`` says what to change."""
        reason = None
        if self._bad_acceleration_count() > self.bad_accelerations:
            reason = "MuJoCo found non-finite or huge accelerations and reset the state"
        elif not (np.isfinite(self.data.qpos).all() and np.isfinite(self.data.qvel).all()):
            reason = "the state is not finite"
        else:
            energy = self.kinetic_energy()
            if energy > self.energy_limit:
                reason = (
                    f"kinetic energy {energy:.0f} J exceeds {self.energy_limit:.0f} J "
                    f"(the whole robot at {SPEED_LIMIT:g} m/s)"
                )
        if reason is not None:
            raise UnstableSimulation(f"simulation unstable after t = {since:.3f} s: {reason}; {hint}")
