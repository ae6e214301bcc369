"""Writes this folder's meshes with trimesh (run: python make_meshes.py): boxes in metres, each
centred on its link's collision origin, in the formats makers ship."""

from pathlib import Path

import trimesh

HERE = Path(__file__).parent


def main() -> None:
    """foot.stl (binary STL), shin_ascii.stl (ASCII STL), thigh.dae (COLLADA), torso.obj (OBJ)."""
    trimesh.creation.box((0.16, 0.08, 0.02)).export(HERE / "foot.stl")
    (HERE / "shin_ascii.stl").write_text(
        trimesh.creation.box((0.04, 0.04, 0.2)).export(file_type="stl_ascii")
    )
    trimesh.creation.box((0.05, 0.05, 0.2)).export(HERE / "thigh.dae")
    (HERE / "torso.obj").write_text(trimesh.creation.box((0.1, 0.2, 0.12)).export(file_type="obj"))


if __name__ == "__main__":
    main()
