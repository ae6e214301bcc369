"""A test-side client of a running node's parameter services (real DDS): set and read parameters."""

from __future__ import annotations

from rcl_interfaces.msg import SetParametersResult
from rcl_interfaces.srv import GetParameters, SetParameters
from rclpy.parameter import Parameter, parameter_value_to_python
from ros_helpers import call_service, spin_until


class ParameterClient:
    """Sets and reads the parameters of node ``target`` (its full name, e.g. ``/walk_node``)."""

    def __init__(self, node, executor, target: str) -> None:
        self.executor = executor
        self.set_client = node.create_client(SetParameters, f"{target}/set_parameters")
        self.get_client = node.create_client(GetParameters, f"{target}/get_parameters")

    def wait_ready(self) -> bool:
        """Spin until both services answer."""
        return spin_until(
            self.executor, lambda: self.set_client.service_is_ready() and self.get_client.service_is_ready()
        )

    def set(self, **values) -> list[SetParametersResult]:
        """Set parameters (dots written as '__' in keyword names), each on its own; the results."""
        request = SetParameters.Request(
            parameters=[
                Parameter(name.replace("__", "."), value=v).to_parameter_msg() for name, v in values.items()
            ]
        )
        return list(self._call(self.set_client, request).results)

    def get(self, name: str) -> object:
        """The value of parameter ``name`` as a Python value (its type as the node stores it)."""
        response = self._call(self.get_client, GetParameters.Request(names=[name]))
        return parameter_value_to_python(response.values[0])

    def _call(self, client, request):
        response = call_service(self.executor, client, request)
        assert response is not None, f"no answer from {client.srv_name}"
        return response
