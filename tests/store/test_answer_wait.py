"""A PostgreSQL store that stops answering is said to have, in time, and waited on no more."""

from __future__ import annotations

import asyncio
import signal
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from sqlalchemy import text

from assay.errors import StoreError
from assay.store import Store, answer_wait
from assay.workers import submit_serving
from tests.conftest import postgres_server_url
from tests.postgres import scratch_schema


def test_a_statement_the_server_does_not_answer_ends_and_later_ones_fail_at_once(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A PostgreSQL server stopped mid-run (kill -STOP) held `assay run`, its Ctrl-C and its
    exit for ever: a statement waited for its answer without end."""
    monkeypatch.setattr(answer_wait, "ANSWER_WAIT_SECONDS", 0.5)
    with scratch_schema(postgres_server_url()) as url:
        store = Store(url)
        try:
            started = time.monotonic()
            said = "stopped answering [(]no answer to a statement within 0.5s[)]"
            with pytest.raises(StoreError, match=said), store.engine.connect() as conn:
                conn.execute(text("SELECT pg_sleep(5)"))
            assert time.monotonic() - started < 3
            started = time.monotonic()
            with pytest.raises(StoreError, match="stopped answering"):
                store.list_runs()
            assert time.monotonic() - started < 0.5
        finally:
            store.close()


def test_statements_answered_in_time_are_read_as_before(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(answer_wait, "ANSWER_WAIT_SECONDS", 5.0)
    with scratch_schema(postgres_server_url()) as url:
        store = Store(url)
        try:
            with store.engine.connect() as conn:
                assert conn.execute(text("SELECT 1 FROM pg_sleep(0.2)")).scalar() == 1
            assert store.list_runs() == []
        finally:
            store.close()


def test_ctrl_c_ends_the_wait_for_a_server_that_does_not_answer(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C while the store did not answer was not seen: the statement held the event loop,
    where the runner's handler only cancels a task, and assay waited on."""
    monkeypatch.setattr(answer_wait, "STOPPED_WAIT_SECONDS", 0.3)
    with scratch_schema(postgres_server_url()) as url:
        store = Store(url)

        async def stopped_while_waiting() -> None:
            other = asyncio.create_task(asyncio.sleep(10))
            await asyncio.sleep(0)
            # as asyncio.Runner's Ctrl-C handler does, while the statement holds the loop
            signal.signal(signal.SIGALRM, lambda signum, frame: other.cancel())
            signal.setitimer(signal.ITIMER_REAL, 0.5)
            try:
                with store.engine.connect() as conn:
                    conn.execute(text("SELECT pg_sleep(5)"))
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
                signal.signal(signal.SIGALRM, signal.SIG_DFL)

        try:
            started = time.monotonic()
            with pytest.raises(StoreError, match="stopped answering [(]no answer to a "
                                                 "statement before assay was stopped[)]"):
                asyncio.run(stopped_while_waiting())
            assert time.monotonic() - started < 3
        finally:
            store.close()


def test_ctrl_c_ends_the_wait_of_a_statement_made_in_a_thread_working_for_the_run(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A batch of trials committed in a thread (a store across a network) waited out its two
    minutes after Ctrl-C, and the run's exit with it: the thread has no event loop of its
    own, so the one it works for is watched."""
    monkeypatch.setattr(answer_wait, "STOPPED_WAIT_SECONDS", 0.3)
    with scratch_schema(postgres_server_url()) as url:
        store = Store(url)

        def unanswered() -> None:
            with store.engine.connect() as conn:
                conn.execute(text("SELECT pg_sleep(5)"))

        async def run_stopping() -> None:
            """A run's main task: cancelled, it still waits for its last commit."""
            try:
                await asyncio.sleep(10)
            except asyncio.CancelledError:
                await asyncio.sleep(10)

        async def stopped_while_a_thread_waits() -> None:
            run = asyncio.create_task(run_stopping())
            with ThreadPoolExecutor(1) as thread:
                waiting = asyncio.wrap_future(submit_serving(thread, unanswered))
                await asyncio.sleep(0.3)
                run.cancel()  # as asyncio.Runner's Ctrl-C handler cancels its main task
                await waiting

        try:
            started = time.monotonic()
            with pytest.raises(StoreError, match="no answer to a statement before assay was "
                                                 "stopped"):
                asyncio.run(stopped_while_a_thread_waits())
            assert time.monotonic() - started < 3
        finally:
            store.close()


def test_a_read_only_store_gives_up_on_a_server_that_does_not_answer(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """`assay view` reads through a read-only engine, which waited for an answer without
    end: a page of a stopped server hung its request for ever."""
    monkeypatch.setattr(answer_wait, "ANSWER_WAIT_SECONDS", 0.5)
    with scratch_schema(postgres_server_url()) as url:
        Store(url).close()
        store = Store(url, read_only=True)
        try:
            started = time.monotonic()
            with pytest.raises(StoreError, match="stopped answering"), \
                    store.engine.connect() as conn:
                conn.execute(text("SELECT pg_sleep(5)"))
            assert time.monotonic() - started < 3
        finally:
            store.close()


def test_a_store_reads_again_once_its_server_answers_again(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """After one statement got no answer, the Store failed every later statement for as
    long as it lived: `assay view`'s pages, or a Store handed to each `assay.evaluate` of a
    notebook, failed on after the server answered again."""
    monkeypatch.setattr(answer_wait, "ANSWER_WAIT_SECONDS", 0.5)
    monkeypatch.setattr(answer_wait, "SILENCE_KEPT_SECONDS", 0.5)
    with scratch_schema(postgres_server_url()) as url:
        for read_only in (False, True):
            store = Store(url, read_only=read_only)
            try:
                with pytest.raises(StoreError, match="stopped answering"), \
                        store.engine.connect() as conn:
                    conn.execute(text("SELECT pg_sleep(5)"))
                with pytest.raises(StoreError, match="stopped answering"):
                    store.list_runs()  # at once, while the server may still be silent
                time.sleep(0.6)
                assert store.list_runs() == []
            finally:
                store.close()
