"""Files a user names are checked before they are opened: a FIFO, a device, a directory, a
name too long or an unreadable file is a clear UserError, never a hang or a traceback."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from assay.errors import UserError
from assay.input_files import is_regular_file, require_regular_file


def test_a_regular_file_passes(tmp_path: Path) -> None:
    path = tmp_path / "cases.jsonl"
    path.write_text("{}\n")
    require_regular_file(path, "dataset")
    assert is_regular_file(path)


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom", "/dev/null"])
def test_a_device_is_refused_before_it_is_read(device: str) -> None:
    with pytest.raises(UserError, match=f"dataset {device} is not a regular file"):
        require_regular_file(Path(device), "dataset")
    assert not is_regular_file(Path(device))


def test_a_fifo_a_directory_and_a_missing_file_each_say_what_they_are(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe")
    with pytest.raises(UserError, match="pipe is not a regular file"):
        require_regular_file(tmp_path / "pipe", "labels file")
    with pytest.raises(UserError, match="is a directory, not a file"):
        require_regular_file(tmp_path, "labels file")
    with pytest.raises(UserError, match="labels file not found"):
        require_regular_file(tmp_path / "nope.jsonl", "labels file")


def test_a_name_too_long_or_with_a_nul_byte_is_a_user_error_not_an_os_error(
        tmp_path: Path) -> None:
    with pytest.raises(UserError, match="File name too long"):
        require_regular_file(tmp_path / ("x" * 300), "dataset")
    with pytest.raises(UserError, match="NUL byte"):
        require_regular_file(Path("a\0b"), "dataset")
    assert not is_regular_file(tmp_path / ("x" * 300))
    assert not is_regular_file(Path("a\0b"))


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any file")
def test_an_unreadable_file_is_refused_with_its_cause(tmp_path: Path) -> None:
    path = tmp_path / "cases.jsonl"
    path.write_text("{}\n")
    path.chmod(0)
    with pytest.raises(UserError, match="cannot read dataset .*permission denied"):
        require_regular_file(path, "dataset")


def test_bytes_are_read_as_utf8_text_or_said_to_be_utf16_or_to_hold_a_byte_that_is_not() -> None:
    from assay.input_files import UTF16_TEXT, NotUtf8Text, utf8_text

    assert utf8_text("\ufeffcafé\n".encode()) == "café\n"  # a BOM is allowed
    with pytest.raises(NotUtf8Text) as utf16:
        utf8_text("text".encode("utf-16"))
    assert (utf16.value.line, utf16.value.byte, str(utf16.value)) == (None, None, UTF16_TEXT)
    with pytest.raises(NotUtf8Text) as latin1:
        utf8_text(b"one\ntwo caf\xe9\n")
    assert (latin1.value.line, latin1.value.byte, str(latin1.value)) == (
        2, 0xE9, "byte 0xe9 is not UTF-8")
