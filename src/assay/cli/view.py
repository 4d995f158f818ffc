"""`assay view`: browse the store in a local web app."""

from __future__ import annotations

import click

from assay.cli.common import store_option


@click.command("view")
@store_option
@click.option("--port", "-p", type=click.IntRange(0, 65535), default=8321, show_default=True,
              help="Port to listen on (0 picks a free one).")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to bind. Only this machine can connect unless you name another "
                   "(e.g. 0.0.0.0 for every interface).")
def command(store_url: str | None, port: int, host: str) -> None:
    """Browse runs, cases side by side, trials and comparisons in your browser.

    Read-only: the store is opened for reading and the app answers only GET
    requests addressed to HOST or localhost (bound to 0.0.0.0: also to this machine's
    name or an IP address). Ctrl-C stops it.
    """
    from assay.listening import address, bind
    from assay.store.failures import store_name
    from assay.view.server import open_for_viewing, serve

    store = open_for_viewing(store_url)
    try:
        sock = bind(host, port)
        click.echo(f"assay view: {address(sock)}  (store {store_name(store.url)}; Ctrl-C stops)", err=True)
        serve(store, sock, host=host)
    finally:
        store.close()
