"""The mount plan binds mounts nested in bound trees (the GPU host's driver lives on one)."""

from __future__ import annotations

from pathlib import Path

from sandbox.plan import nested_mounts


def test_mounts_nested_inside_a_bound_tree_are_listed_parents_first(tmp_path: Path) -> None:
    mountinfo = tmp_path / "mountinfo"
    mountinfo.write_text(
        "25 1 8:1 / / rw - ext4 /dev/vda rw\n"
        "36 25 0:32 / /usr/local rw - overlay x ro\n"
        "37 36 0:33 / /usr/local/lib ro - overlay y ro\n"
        "38 25 0:34 / /proc rw - proc proc rw\n"
        "39 25 0:35 / /usr rw - ext4 a rw\n"
    )
    assert nested_mounts(["/usr", "/lib"], str(mountinfo)) == ["/usr/local", "/usr/local/lib"]


def test_a_missing_mountinfo_means_no_nested_mounts(tmp_path: Path) -> None:
    assert nested_mounts(["/usr"], str(tmp_path / "absent")) == []
