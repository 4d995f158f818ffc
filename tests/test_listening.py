"""The listening socket a server is started on: bound first, so a taken port is one line."""

from __future__ import annotations

import socket

import pytest

from assay.errors import UserError
from assay.listening import address, bind


def test_port_0_picks_a_free_port_and_the_address_names_it() -> None:
    sock = bind("127.0.0.1", 0)
    try:
        port = sock.getsockname()[1]
        assert port > 0
        assert address(sock) == f"http://127.0.0.1:{port}/"
        socket.create_connection(("127.0.0.1", port), timeout=2).close()  # already listening
    finally:
        sock.close()


def test_a_port_another_server_listens_on_is_a_user_error_naming_it() -> None:
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        with pytest.raises(UserError, match=f"cannot listen on 127.0.0.1:{port}"):
            bind("127.0.0.1", port)


def test_an_ipv6_address_is_written_in_brackets() -> None:
    try:
        sock = bind("::1", 0)
    except UserError:
        pytest.skip("this machine has no IPv6 loopback")
    try:
        assert address(sock) == f"http://[::1]:{sock.getsockname()[1]}/"
    finally:
        sock.close()
