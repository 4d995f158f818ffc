"""Child processes started as from a terminal, whatever state the test runner leaves, and
pressed Ctrl-C."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path


def as_at_a_terminal() -> None:
    """`preexec_fn` of a child that is sent Ctrl-C: SIGINT delivered and handled as at a
    terminal, though the test runner's process may have left it ignored or blocked (both are
    inherited by a child)."""
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def as_in_the_background() -> None:
    """`preexec_fn` of a child started as a script's `cmd &` starts it: SIGINT ignored, so
    only SIGTERM can stop it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def interrupt_when(command: list[str], ready: Callable[[], bool], *, cwd: Path,
                   env: dict[str, str] | None = None, wait: float = 60,
                   send: signal.Signals = signal.SIGINT, presses: int = 1,
                   started: Callable[[], None] = as_at_a_terminal) -> tuple[int, str]:
    """Start `command` as from a terminal (or as `started` prepares it), press Ctrl-C (or
    send `send`) once `ready()` holds (or after `wait` seconds), `presses` times half a
    second apart, and return its exit code and stderr; a child that outlives the test is
    killed."""
    process = subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, preexec_fn=started)
    try:
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline and not ready():
            time.sleep(0.05)
        for press in range(presses):
            if press:
                time.sleep(0.5)
            process.send_signal(send)
        _, stderr = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    return process.returncode, stderr


SIGNALLED_WHILE = """
import os, signal, sys
import {module} as module

calling = module.{function}


def signalled(*args, **kwargs):
    os.kill(os.getpid(), signal.{signal})  # arrives as the function starts
    return calling(*args, **kwargs)


module.{function} = signalled
sys.argv = {argv!r}
from assay.cli import main
main()
"""


def signalled_while(function: str, argv: list[str], send: str, *,
                    cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run `assay ARGV` (argv[0] is "assay") in a child that sends itself `send` ("SIGINT",
    "SIGTERM") as `function` ("package.module.name") starts: a signal at one exact moment."""
    module, name = function.rsplit(".", 1)
    script = SIGNALLED_WHILE.format(module=module, function=name, signal=send, argv=argv)
    return subprocess.run([sys.executable, "-c", script], cwd=cwd, capture_output=True,
                          check=False, text=True, timeout=120, preexec_fn=as_at_a_terminal)
