"""Servo models for the simulator: which servo drives each joint, and how a real one behaves.

No ROS here. A servo model (``config/servos/servo_models.yaml``: Rhoban's identified BAM
parameters, model m1) is a DC motor behind a firmware P controller (Duclusaud, Passault, Padois
and Ly, "Extended Friction Models for the Physics Simulation of Servo Actuators", ICRA 2025):

- the firmware sets the PWM duty ``d = clip(error_gain * p_gain * e, -max_duty, max_duty)`` from
  the position error ``e`` [rad]; the motor gives ``tau = kt / R * (d * V - kt * omega)``:
  a stiffness ``error_gain * p_gain * V * kt / R`` [N m/rad] up to the stall torque
  ``max_duty * V * kt / R`` [N m], and the back-EMF damping ``kt^2 / R`` [N m s/rad];
- friction: Coulomb (``friction`` [N m]) and viscous (``viscous_friction`` [N m s/rad]);
- the rotor's reflected inertia ``armature`` [kg m^2];
- ``backlash`` [rad]: the gears' total play, a dead band of the position error (the encoder reads
  the output shaft, so the servo does not push until the error exceeds half the play).

In MuJoCo: a position actuator with that stiffness and no damping of its own, force-limited to
the stall torque; the back-EMF and viscous friction as joint damping, Coulomb friction as the
joint's ``frictionloss``, the armature as joint armature. ``ideal`` keeps the simulator's former
servo (stiff, critically damped, limited to the URDF effort; see
:class:`~ik_solvers.sim.mujoco_robot.ServoConfig`).

Selection (sim_node's ``servo_model``): ``ideal``, a model name for every joint, or the path of
a YAML file naming a ``default`` and per-joint models (``config/servos/humanoid_servo_models.yaml``)::

    default: {model: mx106, p_gain: 128}
    joints:
      l_elbow: mx64
      l_wrist_roll: {model: xl330, backlash: 0.03}

``p_gain`` sets the firmware's position gain register (the model's default otherwise), ``backlash``
[rad] a worn or a better gearbox's play.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import yaml

from ik_solvers.resources import package_share_path

IDEAL = "ideal"
MODELS_FILE = ("config", "servos", "servo_models.yaml")


@dataclass(frozen=True)
class ServoModel:
    """One servo type's parameters (see the module docstring; units SI).

    Attributes:
        name: e.g. ``mx106``.
        supply_voltage: [V]. p_gain: firmware position gain register. error_gain: duty per
        (p_gain x rad). max_duty: largest PWM duty (0..1). torque_constant: kt [N m/A].
        resistance: R [ohm]. armature: [kg m^2]. friction: Coulomb [N m].
        viscous_friction: [N m s/rad]. backlash: total play [rad].
    """

    name: str
    supply_voltage: float
    p_gain: float
    error_gain: float
    max_duty: float
    torque_constant: float
    resistance: float
    armature: float
    friction: float
    viscous_friction: float
    backlash: float

    @property
    def stiffness(self) -> float:
        """[N m/rad] torque per radian of position error below saturation."""
        return self.error_gain * self.p_gain * self.supply_voltage * self.torque_constant / self.resistance

    @property
    def stall_torque(self) -> float:
        """[N m] the largest torque (full duty at rest)."""
        return self.max_duty * self.supply_voltage * self.torque_constant / self.resistance

    @property
    def damping(self) -> float:
        """[N m s/rad] back-EMF (kt^2 / R) and viscous friction."""
        return self.torque_constant**2 / self.resistance + self.viscous_friction


def known_models(path: Path | None = None) -> dict[str, ServoModel]:
    """Every servo model of ``path`` (default: the packaged ``servo_models.yaml``) by name."""
    document = yaml.safe_load(Path(path or package_share_path(*MODELS_FILE)).read_text())
    return {name: ServoModel(name=name, **values) for name, values in document["models"].items()}


def joint_servo_models(selection: str, joints: Sequence[str]) -> dict[str, ServoModel | None]:
    """Each joint's servo model (None: ``ideal``) from a ``servo_model`` selection.

    Args:
        selection: ``ideal``, a model name, or the path of a YAML file (module docstring).
        joints: the robot's actuated joints.

    Raises:
        ValueError: an unknown model or joint, a malformed file (the message says what is accepted).
    """
    models = known_models()
    if selection == IDEAL or selection in models:
        return {joint: _model(selection, models, "servo_model") for joint in joints}
    path = Path(selection)
    if not path.is_file():
        raise ValueError(
            f"servo_model '{selection}' is neither '{IDEAL}', a servo model ({', '.join(models)}) "
            "nor an existing YAML file naming them per joint"
        )
    document = yaml.safe_load(path.read_text()) or {}
    if not isinstance(document, dict) or not set(document) <= {"default", "joints"}:
        raise ValueError(f"{path}: a mapping with 'default' and 'joints' is required")
    per_joint = document.get("joints") or {}
    unknown = sorted(set(per_joint) - set(joints))
    if unknown:
        raise ValueError(f"{path}: joints {unknown} are not actuated joints of this robot: {list(joints)}")
    default = document.get("default", IDEAL)
    return {joint: _model(per_joint.get(joint, default), models, f"{path}: {joint}") for joint in joints}


OVERRIDES = {
    "p_gain": (0.0, 1e4),
    "backlash": (0.0, 0.5),
}  # per-robot settings: (low, high), low excluded for p_gain


def _model(entry: object, models: dict[str, ServoModel], where: str) -> ServoModel | None:
    """The model an entry names: ``NAME`` or ``{model: NAME, p_gain: G, backlash: B}``; None for ``ideal``."""
    entry = entry if isinstance(entry, dict) else {"model": entry}
    extra = set(entry) - {"model", *OVERRIDES}
    if extra:
        raise ValueError(
            f"{where}: unknown keys {sorted(extra)}; 'model', 'p_gain' and 'backlash' are accepted"
        )
    name = entry.get("model")
    if name == IDEAL:
        return None
    if name not in models:
        raise ValueError(f"{where}: unknown servo model {name!r}; known: {IDEAL}, {', '.join(models)}")
    changes = {}
    for key, (low, high) in OVERRIDES.items():
        value = entry.get(key)
        if value is None:
            continue
        number = isinstance(value, (int, float)) and not isinstance(value, bool)
        if not (number and math.isfinite(value) and low <= value < high and (key != "p_gain" or value > 0)):
            raise ValueError(
                f"{where}: {key} {value!r} refused; a number in {_range(key, low, high)} is required"
            )
        changes[key] = float(value)
    return replace(models[name], **changes)


def _range(key: str, low: float, high: float) -> str:
    return f"({low:g}, {high:g})" if key == "p_gain" else f"[{low:g}, {high:g}) [rad]"
