"""Every request passes the guard: only GET and HEAD, only a Host the app is bound to (which
defeats DNS rebinding), and every response carries a Content Security Policy."""

from __future__ import annotations

import httpx
import pytest

from assay.store import Store
from assay.testing.viewer import ViewerThread
from assay.view.guard import host_name
from tests.view.stores import Browsable


def test_pages_answer_with_a_csp_that_allows_only_the_apps_own_scripts(viewer: str) -> None:
    response = httpx.get(viewer)
    assert response.status_code == 200
    policy = response.headers["content-security-policy"]
    assert "script-src 'self'" in policy and "default-src 'none'" in policy
    assert "unsafe-inline" not in policy
    assert response.headers["x-content-type-options"] == "nosniff"
    assert response.headers["x-frame-options"] == "DENY"


@pytest.mark.parametrize("host", ["evil.example", "evil.example:8321", "127.0.0.1.evil.example",
                                  ""])
def test_a_host_header_naming_another_site_is_refused(viewer: str, host: str) -> None:
    """A page on evil.example whose name was re-pointed at 127.0.0.1 gets nothing."""
    response = httpx.get(viewer, headers={"Host": host})
    assert response.status_code == 421
    assert "run-b" not in response.text


@pytest.mark.parametrize("host", ["localhost", "127.0.0.1:1234", "LOCALHOST:80"])
def test_local_host_names_are_served(viewer: str, host: str) -> None:
    assert httpx.get(viewer, headers={"Host": host}).status_code == 200


def test_bound_to_every_address_it_answers_another_machine_asking_by_this_ones_address(
        viewed_store: Store) -> None:
    """Regression: `assay view --host 0.0.0.0`, which `--help` offers so that other machines
    can connect, answered a colleague's `http://192.0.2.7:8321/` with 421 'unknown host':
    only localhost and the host's name were served. An address names no hostile site, so
    it is served; a name still must be this machine's."""
    with ViewerThread(viewed_store, host="0.0.0.0") as url:
        for address in ("192.0.2.7", "192.0.2.7:8321", "[2001:db8::7]:8321"):
            assert httpx.get(url, headers={"Host": address}).status_code == 200, address
        refused = httpx.get(url, headers={"Host": "evil.example"})
        assert refused.status_code == 421
        assert "and any address only" in refused.text


@pytest.mark.parametrize("host", ["0.0.0.0", "::", ""])
def test_bound_to_every_address_the_host_names_are_names_and_the_guard_is_told(
        host: str) -> None:
    """The guard learnt it was bound to every address by finding '0.0.0.0' among the host
    names, slipped in for that (bound to '', the page refusing a name listed '0.0.0.0' as a
    name it answers to); it is now told."""
    from starlette.applications import Starlette
    from starlette.testclient import TestClient

    from assay.view.guard import ANY_ADDRESS, Guard, allowed_hosts

    names = allowed_hosts(host)
    assert "0.0.0.0" not in names or host == "0.0.0.0"
    app = Guard(Starlette(), names, any_address=host in ANY_ADDRESS)
    client = TestClient(app)
    assert client.get("/", headers={"Host": "192.0.2.7"}).status_code == 404  # past the guard
    refused = client.get("/", headers={"Host": "evil.example"})
    assert refused.status_code == 421 and "and any address only" in refused.text


def test_bound_to_one_address_another_address_is_refused(viewer: str) -> None:
    assert httpx.get(viewer, headers={"Host": "192.0.2.7"}).status_code == 421


@pytest.mark.parametrize("method", ["POST", "PUT", "DELETE", "PATCH"])
def test_the_app_refuses_every_method_that_could_change_something(
        viewer: str, browsable: Browsable, method: str) -> None:
    response = httpx.request(method, f"{viewer}runs/{browsable.run_b}")
    assert response.status_code == 405
    assert response.headers["allow"] == "GET, HEAD"


@pytest.mark.parametrize(("header", "name"), [
    ("127.0.0.1:8321", "127.0.0.1"), ("[::1]:8321", "::1"), ("[::1]", "::1"),
    ("LocalHost", "localhost"), ("::1", "::1"), ("example.org", "example.org"),
])
def test_host_name_drops_the_port(header: str, name: str) -> None:
    assert host_name(header) == name


@pytest.mark.parametrize(("host", "served"), [("127.0.0.1", False), ("::", True), ("", True)])
def test_the_app_answers_to_any_address_exactly_when_the_host_it_is_given_binds_every_one(
        viewed_store: Store, host: str, served: bool) -> None:
    from starlette.testclient import TestClient

    from assay.view.app import create_app

    with TestClient(create_app(viewed_store, host=host), base_url="http://192.0.2.7") as client:
        assert client.get("/").status_code == (200 if served else 421)
