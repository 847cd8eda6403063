"""wspbench/files.py: the one bounded read and the one atomic write that every command uses."""

from __future__ import annotations

import errno
import os

import pytest

from wspbench.files import InputFileError, InputTooLarge, read_bounded, write_atomic


def test_write_atomic_replaces_a_planted_link_not_its_target(tmp_path):
    target, link = tmp_path / "target", tmp_path / "reward.json"
    target.write_text("keep")
    link.symlink_to(target)
    write_atomic(link, b"new")
    assert target.read_text() == "keep" and not link.is_symlink() and link.read_bytes() == b"new"
    assert link.stat().st_mode & 0o777 == 0o666 & ~_umask()


def test_a_failed_write_keeps_the_old_file_and_leaves_no_temporary(tmp_path, monkeypatch):
    path = tmp_path / "manifest.json"
    path.write_text("old")

    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(OSError, match="No space left"):
        write_atomic(path, b"new")
    assert path.read_text() == "old" and sorted(p.name for p in tmp_path.iterdir()) == ["manifest.json"]


def test_a_folder_is_not_replaced(tmp_path):
    (tmp_path / "out").mkdir()
    with pytest.raises(OSError, match="not a regular file"):
        write_atomic(tmp_path / "out", b"x")
    assert (tmp_path / "out").is_dir()


def test_read_bounded_refuses_links_when_asked_and_large_files_unread(tmp_path):
    data, link = tmp_path / "answer.md", tmp_path / "link.md"
    data.write_bytes(b"x" * 11)
    link.symlink_to(data)
    assert read_bounded(link, 11) == b"x" * 11
    with pytest.raises(InputFileError, match="symbolic link"):
        read_bounded(link, 11, follow=False)
    with pytest.raises(InputTooLarge, match="more than 10 bytes"):
        read_bounded(data, 10)


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask
