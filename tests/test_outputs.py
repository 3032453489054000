"""skgate.outputs: a command's output folder checked before it works and
undone when it fails, without ever touching what existed before."""

from pathlib import Path

import pytest

from skgate.outputs import (
    files_in,
    missing_folders,
    outputs_problem,
    remove_made,
    undone_on_failure,
    writable_problem,
    written_since,
)


def test_remove_made_removes_only_folders_that_did_not_exist(tmp_path):
    """A folder that existed is never removed: remove_made takes
    missing_folders' answer only (a list naming an existing folder deleted
    it, with its files)."""
    kept = tmp_path / "kept"
    kept.mkdir()
    (kept / "a file").write_text("kept\n")
    with pytest.raises(TypeError, match="takes what missing_folders"):
        remove_made([kept])
    with pytest.raises(TypeError, match="takes what missing_folders"):
        remove_made(str(kept))
    assert (kept / "a file").read_text() == "kept\n"
    missing = missing_folders(str(tmp_path / "new" / "out"))  # a str, too
    assert [p.name for p in missing] == ["out", "new"]
    (tmp_path / "new" / "out").mkdir(parents=True)
    remove_made(missing)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kept"]


def test_the_paths_are_strs_or_paths_and_nothing_else(tmp_path):
    for call in (
        lambda: missing_folders(None),
        lambda: writable_problem(None),
        lambda: files_in(3),
        lambda: outputs_problem(None),
    ):
        with pytest.raises(TypeError, match="must be a folder's path"):
            call()
    with pytest.raises(TypeError, match="before must be what files_in"):
        written_since(tmp_path, None)
    with pytest.raises(TypeError, match="names must be a list of file names"):
        outputs_problem(tmp_path, names="COMPARE.md")
    assert writable_problem(str(tmp_path / "x")) is None
    assert not (tmp_path / "x").exists()


def test_a_failed_block_removes_what_it_made_and_keeps_the_rest(tmp_path):
    (tmp_path / "old").mkdir()
    out = Path(tmp_path / "old" / "new")
    with pytest.raises(ValueError), undone_on_failure(str(out)):
        out.mkdir()
        (out / "half.csv").write_text("a\n")
        raise ValueError("failed")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["old"]
    assert list((tmp_path / "old").iterdir()) == []
