"""MCP servers shared by a run: start once, call from many trials, survive a crash."""

from __future__ import annotations

import asyncio
import contextlib
import http.server
import json
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from assay.context.mcp_servers import McpServers
from assay.context.toolbox import ServerCrashed, Toolbox
from assay.errors import RunFailed, UserError

from .helpers import SERVERS, make_servers, python_server, time_server


def run(coro):
    return asyncio.run(coro)


def test_reference_time_server_over_stdio_lists_and_answers(tmp_path: Path) -> None:
    async def scenario():
        servers = make_servers(tmp_path, time=time_server())
        try:
            [time] = await servers.start(["time"])
            toolbox = Toolbox([time])
            names = sorted(spec.name for spec in toolbox.specs)
            result = await toolbox.call("convert_time", {
                "source_timezone": "UTC", "time": "12:00", "target_timezone": "Asia/Tokyo"})
            return names, toolbox.specs, result
        finally:
            await servers.aclose()

    names, specs, result = run(scenario())
    assert names == ["convert_time", "get_current_time"]
    convert = next(spec for spec in specs if spec.name == "convert_time")
    assert set(convert.input_schema["required"]) == {"source_timezone", "time", "target_timezone"}
    assert not result.is_error
    assert result.server == "time" and result.tool == "convert_time"
    answer = json.loads(result.text)
    assert answer["target"]["timezone"] == "Asia/Tokyo"
    assert answer["target"]["datetime"][11:16] == "21:00"  # Tokyo is UTC+9, no DST


def test_a_tool_error_comes_back_as_an_error_result_not_an_exception(tmp_path: Path) -> None:
    async def scenario():
        servers = make_servers(tmp_path, time=time_server())
        try:
            toolbox = Toolbox(await servers.start(["time"]))
            return await toolbox.call("get_current_time", {"timezone": "Mars/Olympus_Mons"})
        finally:
            await servers.aclose()

    result = run(scenario())
    assert result.is_error
    assert "Mars/Olympus_Mons" in result.text


def test_server_that_dies_on_its_third_call_fails_that_call_and_is_restarted(
        tmp_path: Path) -> None:
    async def scenario():
        servers = make_servers(tmp_path, flaky=python_server("crashing_server.py"))
        try:
            [flaky] = await servers.start(["flaky"])
            toolbox = Toolbox([flaky])
            outcomes = []
            for key in ["alpha", "omega", "alpha", "alpha", "omega"]:
                try:
                    outcomes.append((await toolbox.call("lookup", {"key": key})).text)
                except ServerCrashed as exc:
                    outcomes.append(f"crashed: {exc}")
            return outcomes, flaky.restarts
        finally:
            await servers.aclose()

    outcomes, restarts = run(scenario())
    assert outcomes[:2] == ["first letter", "last letter"]
    assert outcomes[2].startswith("crashed: MCP server 'flaky' died during 'lookup'")
    assert "crashing on call 3" in outcomes[2]  # the server's stderr explains the crash
    assert outcomes[3:] == ["first letter", "last letter"]  # a fresh process serves the rest
    assert restarts == 1


def test_a_server_that_dies_with_its_restarts_spent_is_down_and_stops_the_run(
        tmp_path: Path) -> None:
    async def scenario():
        config = python_server("crashing_server.py", "--crash-on", "1", max_restarts=1)
        servers = make_servers(tmp_path, flaky=config)
        try:
            toolbox = Toolbox(await servers.start(["flaky"]))
            crashes = []
            for _ in range(2):
                with pytest.raises(ServerCrashed) as caught:
                    await toolbox.call("lookup", {"key": "alpha"})
                crashes.append(str(caught.value))
            with pytest.raises(RunFailed) as down:
                await toolbox.call("lookup", {"key": "alpha"})
            return crashes, str(down.value)
        finally:
            await servers.aclose()

    (first, second), down = run(scenario())
    assert "crashing on call 1" in first
    assert "crashing on call 1" in second  # after the one allowed restart
    # Before, every later call was one more trial recorded as an error, and the run exited 0.
    assert down.startswith("MCP server 'flaky' is down: it died again after 1 restart "
                           "(max_restarts: 1), so the run stops")
    assert "crashing on call 1" in down  # its stderr says why


def test_a_server_that_cannot_be_restarted_is_down_and_stops_the_run(tmp_path: Path) -> None:
    async def scenario():
        config = python_server("crashing_server.py", "--crash-on", "1", "--start-once",
                               str(tmp_path / "lock"))
        servers = make_servers(tmp_path, flaky=config)
        try:
            toolbox = Toolbox(await servers.start(["flaky"]))
            with pytest.raises(ServerCrashed):
                await toolbox.call("lookup", {"key": "alpha"})
            with pytest.raises(RunFailed) as down:
                await toolbox.call("lookup", {"key": "alpha"})
            return str(down.value)
        finally:
            await servers.aclose()

    down = run(scenario())
    assert down.startswith("MCP server 'flaky' is down: it died during the run and could not "
                           "be restarted")
    assert "held by another process" in down


def test_a_banner_on_stdout_is_kept_with_the_servers_stderr(tmp_path: Path) -> None:
    """A line a server prints on stdout before speaking MCP is no protocol: the SDK's
    complaint about it explains a later failure, beside the server's stderr. (That it is
    no traceback on the terminal: tests/e2e/test_noisy_mcp_server_run.py.)"""
    import sys

    from assay.context.mcp_config import McpServerConfig

    server = f"{sys.executable} {SERVERS / 'crashing_server.py'} --crash-on 2"
    banner = McpServerConfig(command="sh",
                             args=["-c", f"echo Starting lookup v1.2; exec {server}"])

    async def scenario():
        servers = make_servers(tmp_path, noisy=banner)
        try:
            toolbox = Toolbox(await servers.start(["noisy"]))
            answer = await toolbox.call("lookup", {"key": "alpha"})
            with pytest.raises(ServerCrashed) as crashed:
                await toolbox.call("lookup", {"key": "alpha"})
            return answer, str(crashed.value)
        finally:
            await servers.aclose()

    answer, crashed = run(scenario())
    assert answer.text == "first letter" and not answer.is_error
    assert "Failed to parse JSONRPC message from server: " in crashed  # with the server's words
    assert "Starting lookup v1.2" in crashed


def test_server_that_never_starts_stops_the_run_with_its_stderr(tmp_path: Path) -> None:
    servers = make_servers(tmp_path, graph=python_server("never_starts.py"))
    with pytest.raises(RunFailed) as caught:
        run(_start_and_close(servers, ["graph"]))
    message = str(caught.value)
    assert message.startswith("MCP server 'graph' failed to start")
    assert "GRAPH_URL is not set" in message
    assert RunFailed.exit_code == 3


def test_missing_command_is_a_clear_start_failure(tmp_path: Path) -> None:
    from assay.context.mcp_config import McpServerConfig

    servers = make_servers(tmp_path, graph=McpServerConfig(command="no-such-mcp-server-xyz"))
    with pytest.raises(RunFailed, match="command not found: no-such-mcp-server-xyz"):
        run(_start_and_close(servers, ["graph"]))


def test_a_server_that_hangs_at_start_times_out(tmp_path: Path) -> None:
    import sys

    from assay.context.mcp_config import McpServerConfig

    hang = McpServerConfig(command=sys.executable, args=["-c", "import time; time.sleep(60)"],
                           startup_timeout=0.5)
    servers = make_servers(tmp_path, slow=hang)
    with pytest.raises(RunFailed, match="did not start within 0.5s"):
        run(_start_and_close(servers, ["slow"]))


def test_unknown_server_name_is_a_user_error(tmp_path: Path) -> None:
    servers = make_servers(tmp_path, time=time_server())
    with pytest.raises(UserError, match="unknown MCP server 'graph' \\(declared: time\\)"):
        servers.validate_names(["time", "graph"])


def test_concurrent_trials_share_one_server_process(tmp_path: Path) -> None:
    async def scenario():
        servers = make_servers(tmp_path, time=time_server())
        try:
            await asyncio.gather(servers.start(["time"]), servers.start(["time"]))
            toolbox = Toolbox(await servers.start(["time"]))
            calls = [toolbox.call("convert_time", {"source_timezone": "UTC", "time": f"{h:02d}:00",
                                                   "target_timezone": "Europe/Berlin"})
                     for h in range(24)]
            results = await asyncio.gather(*calls)
            return results, servers.server("time")
        finally:
            await servers.aclose()

    results, server = run(scenario())
    assert server.restarts == 0
    hours = [json.loads(r.text)["source"]["datetime"][11:13] for r in results]
    assert hours == [f"{h:02d}" for h in range(24)]  # every answer matches its own request


def test_colliding_tool_names_are_prefixed_with_their_server(tmp_path: Path) -> None:
    async def scenario():
        servers = make_servers(tmp_path, left=python_server("crashing_server.py", "--crash-on", "99"),
                               right=python_server("crashing_server.py", "--crash-on", "99"))
        try:
            toolbox = Toolbox(await servers.start(["left", "right"]))
            result = await toolbox.call("right__lookup", {"key": "omega"})
            return sorted(s.name for s in toolbox.specs), toolbox.renamed, result
        finally:
            await servers.aclose()

    names, renamed, result = run(scenario())
    assert names == ["left__lookup", "right__lookup"]
    assert renamed == {"left__lookup": "lookup", "right__lookup": "lookup"}
    assert (result.server, result.text) == ("right", "last letter")


async def _start_and_close(servers: McpServers, names: list[str]) -> None:
    try:
        await servers.start(names)
    finally:
        await servers.aclose()


def _failing_server(code: str, **fields: object) -> object:
    import sys

    from assay.context.mcp_config import McpServerConfig

    return McpServerConfig(command=sys.executable, args=["-c", code], startup_timeout=20,
                           **fields)


def test_a_secret_in_env_is_masked_in_the_stderr_of_a_failed_start(tmp_path: Path) -> None:
    """Regression: the stderr printed on a failed start showed the secret passed in `env`."""
    server = _failing_server("import os, sys; sys.stderr.write('token is ' + "
                             "os.environ['GRAPH_TOKEN']); sys.exit(1)",
                             env={"GRAPH_TOKEN": "s3cr3t-graph-token-42"})
    with pytest.raises(RunFailed) as caught:
        run(_start_and_close(make_servers(tmp_path, graph=server), ["graph"]))
    assert "token is ***" in str(caught.value)
    assert "s3cr3t-graph-token-42" not in str(caught.value)


def test_a_stdio_server_inherits_the_environment_unless_asked_for_a_clean_one(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Regression: servers started with the SDK's reduced environment lost SSL_CERT_FILE and
    the proxy variables, and failed behind a custom certificate authority."""
    monkeypatch.setenv("SSL_CERT_FILE", "/etc/company-ca.pem")
    code = ("import os, sys; sys.stderr.write('cert=' + os.environ.get('SSL_CERT_FILE', "
            "'none') + ' extra=' + os.environ.get('EXTRA', 'none')); sys.exit(1)")
    for clean, seen in ((False, "cert=/etc/company-ca.pem extra=yes"),
                        (True, "cert=none extra=yes")):
        server = _failing_server(code, env={"EXTRA": "yes"}, clean_env=clean)
        with pytest.raises(RunFailed) as caught:
            run(_start_and_close(make_servers(tmp_path, graph=server), ["graph"]))
        assert seen in str(caught.value)


@contextlib.contextmanager
def _web_server(answer: Callable[[http.server.BaseHTTPRequestHandler], None]) -> Iterator[str]:
    """A local HTTP server whose every request `answer` answers: its base URL."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            answer(self)

        do_GET = do_POST

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()


def test_a_wrong_http_url_names_the_url_it_tried(tmp_path: Path) -> None:
    # issue case: a wrong MCP HTTP URL said "MCPError: Not Found" and nothing else
    from assay.context.mcp_config import McpServerConfig

    with _web_server(lambda request: request.send_error(404)) as base:
        url = f"{base}/wrong/mcp"
        servers = make_servers(tmp_path, web=McpServerConfig(type="http", url=url,
                                                             startup_timeout=10))
        with pytest.raises(RunFailed) as caught:
            run(_start_and_close(servers, ["web"]))
    assert str(caught.value).startswith("MCP server 'web' failed to start")
    assert f"(at {url})" in str(caught.value)


def _echo_authorization(request: http.server.BaseHTTPRequestHandler) -> None:
    """A reply that is no MCP message: JSON quoting the request's Authorization header."""
    body = json.dumps({"you sent": request.headers.get("authorization")}).encode()
    request.send_response(200)
    request.send_header("content-type", "application/json")
    request.send_header("content-length", str(len(body)))
    request.end_headers()
    request.wfile.write(body)


def test_a_key_an_http_server_echoes_is_masked_in_what_the_sdk_logs_of_its_reply(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    # issue case: an HTTP server answering `{"you sent": "Bearer <key>"}` had the MCP SDK
    # log "Error parsing JSON response" with the reply quoted in its traceback, and the key
    # was printed whole on assay's terminal (the error itself was masked); every handler
    # of the record (here pytest's) now gets it masked
    from assay.context.mcp_config import McpServerConfig

    with _web_server(_echo_authorization) as base:
        servers = make_servers(tmp_path, web=McpServerConfig(
            type="http", url=f"{base}/mcp", startup_timeout=10,
            headers={"Authorization": "Bearer hdr-test-SECRET5555",
                     "X-Team": "team-test-SECRET6666"}))
        with pytest.raises(RunFailed) as caught:
            run(_start_and_close(servers, ["web"]))
    printed = caplog.text
    assert "Error parsing JSON response" in printed  # the SDK did say what it refused
    assert "{'you sent': '***'}" in printed
    for secret in ("hdr-test-SECRET5555", "team-test-SECRET6666"):
        assert secret not in printed and secret not in str(caught.value)
