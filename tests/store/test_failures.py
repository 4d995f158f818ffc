"""A store that cannot be used is one clear line and exit 3 (2 for a folder given as the
store): full, read-only, not a database, unreachable. Never SQL, a traceback or a case's data."""

from __future__ import annotations

import json
import os
import resource
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import event
from sqlalchemy.engine import make_url

from assay.case import Case
from assay.errors import StoreError
from assay.output import Output
from assay.store import Store
from assay.store import store as store_module
from assay.store.failures import store_failure
from assay.trial import TrialResult
from tests.cli.evalproject import assay as assay_in_process
from tests.conftest import postgres_server_url

SECRET_CASE_TEXT = "confidential-case-text"

AGENT = "def answer(case):\n    return case.input * 20\n"
CONFIG = """name: faults
dataset: {path: cases.jsonl}
target: {type: python, function: "agent:answer"}
scorers: [{type: exact_match}]
run: {batch_size: 50}
"""


def project(tmp_path: Path, cases: int = 20) -> Path:
    (tmp_path / "agent.py").write_text(AGENT)
    (tmp_path / "assay.yaml").write_text(CONFIG)
    (tmp_path / "cases.jsonl").write_text("".join(
        json.dumps({"id": f"c{i}", "input": f"{SECRET_CASE_TEXT} {i} " + "x" * 200,
                    "expected": "a"}) + "\n" for i in range(cases)))
    return tmp_path


def assay(cwd: Path, *args: str, **popen: object) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "ASSAY_STORE"}
    return subprocess.run([sys.executable, "-m", "assay", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120, **popen)  # type: ignore[call-overload]


def assert_one_clear_line(result: subprocess.CompletedProcess[str], code: int,
                          words: str) -> None:
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert result.returncode == code, result.stderr
    assert len(lines) == 1, result.stderr
    assert words in lines[0], lines[0]
    for leak in ("Traceback", "[SQL", "INSERT", "SELECT", "parameters", SECRET_CASE_TEXT):
        assert leak not in result.stderr, result.stderr


def test_a_folder_as_the_store_is_named_as_such(tmp_path: Path) -> None:
    (tmp_path / "store").mkdir()
    result = assay(project(tmp_path), "run", "assay.yaml", "--store", "store", "--no-progress")
    assert_one_clear_line(result, 2, "the store store is a folder; name a file in it")


@pytest.mark.parametrize("store, blocking", [("notes.txt/assay.db", "notes.txt"),
                                             ("notes.txt/runs/assay.db", "notes.txt"),
                                             ("/dev/null/assay.db", "/dev/null")])
def test_a_store_under_a_file_names_the_file_that_is_not_a_folder(
        tmp_path: Path, store: str, blocking: str) -> None:
    """Before, `--store /dev/full/x.db` said 'cannot create the folder of the store
    /dev/full/x.db: File exists', exit 3 ('Not a directory' a level deeper)."""
    (tmp_path / "notes.txt").write_text("a file\n")
    result = assay(project(tmp_path), "run", "assay.yaml", "--store", store, "--no-progress")
    assert_one_clear_line(result, 2, f"the store {store} cannot be made: {blocking} is not a "
                                     "folder")


@pytest.mark.parametrize("command", [["run", "assay.yaml", "--no-progress"], ["runs"]])
def test_a_pipe_as_the_store_is_named_as_such(tmp_path: Path, command: list[str]) -> None:
    """`run` said 'could not be written: a disk I/O error (a full disk, ...)', exit 3, and
    `runs` 'no store at store.db'."""
    os.mkfifo(tmp_path / "store.db")
    result = assay(project(tmp_path), *command, "--store", "store.db")
    assert_one_clear_line(result, 2, "the store store.db is not a file (a pipe, a socket")


def test_a_file_that_is_not_a_database_is_named_as_such(tmp_path: Path) -> None:
    (tmp_path / "junk.db").write_bytes(os.urandom(8192))
    result = assay(project(tmp_path), "run", "assay.yaml", "--store", "junk.db", "--no-progress")
    assert_one_clear_line(result, 3, "junk.db is not a readable SQLite database")


def test_a_read_only_store_is_named_as_such(tmp_path: Path) -> None:
    Store(str(tmp_path / "ro.db")).close()
    url = f"sqlite:///file:{tmp_path / 'ro.db'}?mode=ro&uri=true"  # what a read-only mount gives
    result = assay(project(tmp_path), "run", "assay.yaml", "--store", url, "--no-progress")
    assert_one_clear_line(result, 3, "is read-only: assay cannot write to it")


@pytest.mark.parametrize("command", [["runs"], ["history"], ["report", "latest"],
                                     ["compare"], ["export", "latest"], ["rejudge", "latest"],
                                     ["calibrate", "--list"]])
def test_a_command_that_only_reads_runs_names_a_missing_store_and_creates_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str], command: list[str]) -> None:
    """Each of these reads runs a store already holds: a store that is not there is a
    mistyped path or the wrong folder, never a new empty store to make."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("ASSAY_STORE", raising=False)
    for store in ([], ["--store", "runs/typo.db"]):
        code, printed = assay_in_process(capsys, *command, *store)
        where = "runs/typo.db" if store else ".assay/assay.db"
        assert code == 2, printed
        assert printed.startswith(f"error: no store at {where}: run an eval first, or name "
                                  "the store"), printed
        assert list(tmp_path.iterdir()) == []


def test_a_sqlite_store_another_process_keeps_locked_is_waited_on_then_named_as_locked(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Another process writing to the store (a transaction left open) holds `assay run`
    `LOCK_WAIT_SECONDS` (30 s), then the run stops with one line saying so, exit 3."""
    monkeypatch.chdir(project(tmp_path))
    monkeypatch.setattr(store_module, "LOCK_WAIT_SECONDS", 1)
    Store("s.db").close()
    other = sqlite3.connect("s.db", isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")  # what a writer holds until it commits
        code, printed = assay_in_process(capsys, "run", "assay.yaml", "--store", "s.db",
                                         "--no-progress")
    finally:
        other.close()
    assert code == 3, printed
    [line] = printed.strip().splitlines()
    assert line.startswith("error: the store s.db stayed locked by another process past the "
                           "wait"), line
    assert SECRET_CASE_TEXT not in printed


def test_a_store_that_runs_out_of_room_mid_run_says_how_to_resume_and_the_run_resumes_once_freed(
        tmp_path: Path) -> None:
    """The message named the store and the cause, but not the run it stopped nor the command
    that resumes it, which Ctrl-C and an error budget do."""
    def limit_file_size() -> None:  # the store's file may not grow past 2 MB
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (2 * 2**20, 2 * 2**20))

    result = assay(project(tmp_path, cases=2000), "run", "assay.yaml", "--no-progress",
                   preexec_fn=limit_file_size)
    store = Store(str(tmp_path / ".assay" / "assay.db"))
    [run] = store.list_runs("faults")
    kept = store.count_trials(run.id)[0]
    store.close()
    assert 0 < kept < 2000  # the batches stored before the disk filled are kept
    error, hint = result.stderr.strip().split("\n")
    assert_one_clear_line(subprocess.CompletedProcess(result.args, result.returncode,
                                                      result.stdout, error),
                          3, "could not be written")
    assert hint == (f"  run {run.id} keeps the trials stored before; once the store works "
                    f"again, resume with: assay run assay.yaml --resume {run.id}")

    resumed = assay(tmp_path, "run", "assay.yaml", "--no-progress", "--resume")
    assert resumed.returncode == 0, resumed.stderr  # room again: it goes on where it stopped
    store = Store(str(tmp_path / ".assay" / "assay.db"))
    assert [r.id for r in store.list_runs("faults")] == [run.id]
    assert store.count_trials(run.id)[0] == 2000
    store.close()


def test_a_full_disk_is_named_as_such(tmp_path: Path) -> None:
    store = Store(str(tmp_path / "full.db"))

    @event.listens_for(store.engine, "connect")
    def cap_size(dbapi_conn, _record):  # type: ignore[no-untyped-def]
        dbapi_conn.execute("PRAGMA max_page_count = 40")  # SQLite's own "disk is full"

    store.engine.dispose()
    store.create_run(id="r1", experiment="e")
    trials = [TrialResult(Case(id=f"c{i}", input=SECRET_CASE_TEXT * 50), "a", 0,
                          Output(text="x" * 4000)) for i in range(200)]
    with pytest.raises(StoreError) as raised:
        store.write_trials("r1", trials)
    message = str(raised.value)
    assert "is full: its disk has no room left" in message and "\n" not in message
    assert SECRET_CASE_TEXT not in message
    store.close()


@pytest.mark.parametrize("host", ["127.0.0.1:9", "no-such-host.invalid:5432"],
                         ids=["closed-port", "unresolved-name"])
def test_an_unreachable_postgresql_is_named_without_its_password(tmp_path: Path,
                                                                 host: str) -> None:
    """A host name that does not resolve read 'the store ... failed: failed to resolve
    host', as if the store were damaged: it is unreachable like a closed port."""
    pytest.importorskip("psycopg")
    url = f"postgresql+psycopg://assay:hunter2-password@{host}/assay"
    result = assay(project(tmp_path), "runs", "--store", url)
    assert_one_clear_line(result, 3, "cannot be reached")
    assert "hunter2-password" not in result.stderr


def test_a_wrong_password_is_named_as_a_refused_login_not_an_unreachable_server() -> None:
    """'cannot be reached' sent the user to look for a server that was up and answering."""
    psycopg = pytest.importorskip("psycopg")
    refused = psycopg.OperationalError(
        'connection failed: connection to server at "127.0.0.1", port 5432 failed: FATAL:  '
        'password authentication failed for user "assay"')
    failure = store_failure(refused, "postgresql+psycopg://assay:hunter2-password@db/evals")
    assert "refused the login: check the user and the password in the URL" in str(failure)
    assert "cannot be reached" not in str(failure)
    assert "hunter2-password" not in str(failure)


def test_a_database_the_server_does_not_have_is_named_with_how_to_create_it(
        tmp_path: Path) -> None:
    pytest.importorskip("psycopg")
    url = make_url(postgres_server_url()).set(database="no_such_assay_db")
    result = assay(project(tmp_path), "runs", "--store", url.render_as_string(False))
    assert_one_clear_line(result, 3, "names a database the server does not have: create it "
                                     "(createdb no_such_assay_db) or name one that exists")


def test_a_user_the_server_does_not_have_is_named_as_a_refused_login(tmp_path: Path) -> None:
    pytest.importorskip("psycopg")
    url = make_url(postgres_server_url()).set(username="no_such_assay_user", password=None)
    result = assay(project(tmp_path), "runs", "--store", url.render_as_string(False))
    assert result.returncode == 3, result.stderr
    assert "refused the login" in result.stderr, result.stderr
    assert "cannot be reached" not in result.stderr


def test_a_damaged_store_met_by_a_cache_lookup_is_named_as_such(tmp_path: Path) -> None:
    """The response cache is read through the driver, past SQLAlchemy's error handling:
    its errors are the store's one clear line all the same."""
    store = Store(str(tmp_path / "store.db"))
    with store.engine.begin() as conn:
        conn.exec_driver_sql("DROP TABLE response_cache")
        conn.exec_driver_sql("CREATE TABLE response_cache (other TEXT)")
    with pytest.raises(StoreError) as raised:
        store.cache_get("k" * 64)
    assert str(raised.value).startswith(f"the store {tmp_path / 'store.db'} failed: no such column")
    store.close()



LOST_MID_INSERT = """
import sys
from assay.errors import StoreError
from assay.records import CachedReply
from assay.store import Store
from assay.store.failures import store_failure

store = Store(sys.argv[1])
try:
    store.cache_put({f"k{i}": CachedReply({"text": "x"}) for i in range(2000)})
except StoreError as exc:
    print(exc)
"""


def test_postgresql_lost_in_the_middle_of_an_insert_logs_nothing_besides_the_store_error(
        tmp_path: Path) -> None:
    """psycopg logged 'error ignored terminating <psycopg.Pipeline [BAD] at 0x...>: the
    connection is lost' to stderr, above the store's own line, when the server went away in
    the middle of a batch's insert (as `assay run` did when PostgreSQL stopped)."""
    from tests.postgres import scratch_schema

    with scratch_schema(postgres_server_url()) as url:
        store = Store(url)
        with store.engine.begin() as conn:  # the server drops the connection mid-insert
            conn.exec_driver_sql(
                "CREATE FUNCTION drop_me() RETURNS trigger AS $$ BEGIN "
                "PERFORM pg_terminate_backend(pg_backend_pid()); RETURN NEW; END $$ "
                "LANGUAGE plpgsql")
            conn.exec_driver_sql("CREATE TRIGGER drop_me BEFORE INSERT ON response_cache "
                                 "FOR EACH ROW EXECUTE FUNCTION drop_me()")
        store.close()
        result = subprocess.run([sys.executable, "-c", LOST_MID_INSERT, url],
                                capture_output=True, text=True, timeout=60)
    assert "cannot be reached" in result.stdout, result.stdout + result.stderr
    assert result.stderr == ""


def test_a_store_write_stopped_by_ctrl_c_is_an_interrupt_not_a_store_failure(
        tmp_path: Path) -> None:
    """Ctrl-C while SQLite wrote ended `assay run` with 'the store ... failed:
    KeyboardInterrupt', exit 3."""
    store = Store(str(tmp_path / "s.db"))

    def ctrl_c(*_: object) -> None:
        raise KeyboardInterrupt

    event.listen(store.engine, "before_cursor_execute", ctrl_c)
    try:
        with pytest.raises(KeyboardInterrupt):
            store.list_runs()
    finally:
        event.remove(store.engine, "before_cursor_execute", ctrl_c)
        store.close()
