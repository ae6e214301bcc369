"""Robot descriptions as makers publish them: URDF or xacro, comments, any quoting, ``package://``
and ``file://`` URIs (no ROS needed; the ament index is used when it is installed).

>>> from ik_solvers.description import load_description
>>> description = load_description("op3_description/urdf/robotis_op3.urdf.xacro")
>>> description.xml            # URDF text, xacro expanded
>>> description.resolve("package://op3_description/meshes/body.stl")   # → Path
"""

from ik_solvers.description.errors import DescriptionError
from ik_solvers.description.load import RobotDescription, description_from_string, load_description
from ik_solvers.description.packages import find_package, resolve_uri
from ik_solvers.description.xacro_expand import expand_xacro, parse_xacro_arguments
from ik_solvers.description.xml_tree import parse_xml, robot_element, root_link

__all__ = [
    "DescriptionError",
    "RobotDescription",
    "description_from_string",
    "expand_xacro",
    "find_package",
    "load_description",
    "parse_xacro_arguments",
    "parse_xml",
    "resolve_uri",
    "robot_element",
    "root_link",
]
