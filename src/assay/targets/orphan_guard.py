"""Ends a command target's processes when assay itself is killed and cannot.

At each trial's end assay kills what the command started (`process_tree`). A
`kill -9` of assay ends nothing: a command stuck in a trial would run on for
ever, beside the one a `--resume` starts. So a command target starts one guard
process, in a session of its own (Ctrl-C does not reach it), whose stdin is a
pipe from assay. When the pipe closes, because the target closed or because
assay died, the guard kills every process whose `ASSAY_PROCESS_TOKEN` begins
with the target's prefix: each trial's tree gets a token made from it.

Run as `python -P -m assay.targets.orphan_guard PREFIX` (it starts in about a
tenth of a second, and the run does not wait for it).
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import sys

from assay.targets.process_tree import end_token_carriers, reaped

GUARD_COMMAND = (sys.executable, "-P", "-m", "assay.targets.orphan_guard")


class OrphanGuard:
    """The guard of one command target: hands out tokens, and is closed with the target."""

    def __init__(self, process: asyncio.subprocess.Process, prefix: str) -> None:
        self.process = process
        self.prefix = prefix

    @classmethod
    async def start(cls) -> OrphanGuard:
        prefix = secrets.token_hex(8)
        process = await asyncio.create_subprocess_exec(
            *GUARD_COMMAND, prefix, stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL,
            start_new_session=True)  # it has nothing to tell the user, even if it fails
        return cls(process, prefix)

    def token(self) -> str:
        """A token for one trial's process tree, which the guard will recognise."""
        return f"{self.prefix}-{secrets.token_hex(8)}"

    async def close(self) -> None:
        """Close the pipe: the guard ends what is left (nothing, after a clean run) and exits."""
        if self.process.stdin is not None:
            self.process.stdin.close()
        with contextlib.suppress(ProcessLookupError):
            await reaped(self.process)


def main(prefix: str) -> None:
    """Wait for assay's end (the pipe's EOF), then kill what carries its tokens."""
    with contextlib.suppress(KeyboardInterrupt, OSError):
        sys.stdin.buffer.read()
    end_token_carriers(f"{prefix}-")


if __name__ == "__main__":
    main(sys.argv[1])
