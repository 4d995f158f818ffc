"""`assay view` from the command line: it serves the store on 127.0.0.1 unless told otherwise,
and a store that is not there is a clear error, not a new empty store."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from sqlalchemy.engine import make_url

from tests.cli.conftest import Cli
from tests.conftest import postgres_server_url
from tests.postgres import scratch_schema
from tests.view.stores import build

START_TIMEOUT_S = 60


def test_view_serves_the_store_on_the_loopback_address_by_default(tmp_path: Path) -> None:
    browsable = build(str(tmp_path / "assay.db"))
    process = subprocess.Popen(
        [sys.executable, "-m", "assay", "view", "--port", "0"], cwd=tmp_path,
        stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True,
        env={**os.environ, "ASSAY_STORE": browsable.url})
    try:
        assert process.stderr is not None
        deadline, line = time.monotonic() + START_TIMEOUT_S, ""
        while "assay view:" not in line and time.monotonic() < deadline:
            line = process.stderr.readline()
        found = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        assert found, line
        url = found.group(0)
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            try:
                response = httpx.get(url + f"runs/{browsable.run_b}", timeout=30)
                break
            except httpx.ConnectError:
                assert time.monotonic() < deadline, "the viewer did not answer"
                time.sleep(0.1)
        assert response.status_code == 200
        assert "cases side by side" in response.text.lower()
    finally:
        process.terminate()
        process.wait(timeout=30)
        if process.stderr is not None:
            process.stderr.close()


def test_view_names_a_postgresql_store_without_its_password(tmp_path: Path) -> None:
    """It printed 'assay view: http://... (store postgresql+psycopg://assay:PASSWORD@...)'."""
    pytest.importorskip("psycopg")
    server = make_url(postgres_server_url())
    if server.password is None:  # a server that trusts its clients ignores it
        server = server.set(password="hunter2-password")
    with scratch_schema(server.render_as_string(hide_password=False)) as url:
        process = subprocess.Popen(
            [sys.executable, "-m", "assay", "view", "--port", "0", "--store", url],
            cwd=tmp_path, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
        try:
            assert process.stderr is not None
            deadline, line = time.monotonic() + START_TIMEOUT_S, ""
            while "assay view:" not in line and time.monotonic() < deadline:
                line = process.stderr.readline()
                assert line or process.poll() is None, "assay view ended"
        finally:
            process.terminate()
            process.wait(timeout=30)
            if process.stderr is not None:
                process.stderr.close()
    assert "(store postgresql+psycopg://" in line and "***@" in line, line
    assert str(server.password) not in line


def test_view_of_a_missing_store_says_so_and_creates_nothing(cli: Cli) -> None:
    result = cli("view", "--store", str(cli.cwd / "none" / "assay.db"), "--port", "0")
    assert result.returncode == 2
    assert "no store at" in result.stderr and "Traceback" not in result.stderr
    assert not (cli.cwd / "none").exists()



def test_view_of_an_empty_file_says_it_is_no_store_and_writes_nothing_in_it(cli: Cli) -> None:
    """Regression: it wrote the store's tables into the zero-byte file and served it."""
    empty = cli.cwd / "empty.db"
    empty.touch()
    result = cli("view", "--store", str(empty), "--port", "0")
    assert result.returncode == 2
    assert "is an empty file, not a store" in result.stderr and "Traceback" not in result.stderr
    assert empty.stat().st_size == 0

def test_view_help_names_the_default_address_and_that_it_is_read_only(cli: Cli) -> None:
    result = cli("view", "--help")
    assert result.returncode == 0
    assert "127.0.0.1" in result.stdout and "Read-only" in result.stdout
