"""User code named in a config (`module:function`, `path/to/file.py:function`): import and call it.

User code may raise what Python reserves for leaving the interpreter:
`sys.exit()` (SystemExit), KeyboardInterrupt, GeneratorExit, `os._exit()` while
a run holds `process_exit.exits_guarded`, or any other BaseException that is
not an Exception (`class Abort(BaseException)`). Left alone, these pass
through asyncio and the CLI as assay's own exit, so a target that calls
`sys.exit(0)` for one case would end the whole run with exit code 0, and one
raising its own BaseException would lose the batch in flight.
`import_object`, `guarded` and `await_guarded` are the one boundary where they
become ordinary errors: an import problem (exit 2) or that trial's error. Two
pass: asyncio's CancelledError, which is how a deadline (`run.timeout`) or
Ctrl-C stops a trial, and Ctrl-C's own KeyboardInterrupt, raised in user code run
on the event loop or imported there (`ctrl_c` tells it from one the user code raised
itself, which fails its call as any other exit does).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import importlib
import importlib.machinery
import importlib.util
import inspect
import os
import signal
import sys
import threading
import traceback
from collections.abc import Awaitable, Callable, Coroutine, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

from assay.errors import AssayError, RunFailed, UserError
from assay.input_files import is_regular_file
from assay.user_code.blocked_loop import blocked_loop_stopped
from assay.user_code.ctrl_c import CtrlC, counting, ctrl_c_watched
from assay.user_code.process_exit import ProcessExitCalled, running_user_code

if TYPE_CHECKING:
    from assay.case import Case
    from assay.condition import Condition


class UserCodeExit(Exception):
    """User code raised a BaseException that is not an Exception (SystemExit,
    KeyboardInterrupt, GeneratorExit, its own): that call failed."""


def describe_exit(exc: BaseException) -> str:
    """`called sys.exit(0)` / `raised KeyboardInterrupt`: what the user code did."""
    if isinstance(exc, SystemExit):
        return f"called sys.exit({exc.code!r})" if exc.code is not None else "called sys.exit()"
    if isinstance(exc, ProcessExitCalled):
        return str(exc)
    message = _readable_text(exc)
    return f"raised {type(exc).__name__}" + (f": {message[:300]}" if message else "")


def _readable_text(exc: BaseException) -> str:
    """`str(exc)`, or "" when the exception's own `__str__` raises (user code's exception
    must not end the run while it is being described)."""
    try:
        return str(exc)
    except Exception:  # noqa: BLE001 - whatever it raises, the text is unreadable
        return ""



def describe_failure(exc: BaseException) -> str:
    """`ValueError: text`, or the type and where it was raised when it says nothing: how a
    trial records what user code (or a target) raised."""
    name = type(exc).__name__
    try:
        text = str(exc).strip()
    except Exception as unreadable:  # noqa: BLE001 - its own __str__ failed
        return (f"{name} (its text could not be read: {type(unreadable).__name__}: "
                f"{_readable_text(unreadable)})")
    if isinstance(exc, UserCodeExit):
        return text
    if isinstance(exc, SystemExit):
        return f"{name}: sys.exit({exc.code!r}) was called"
    if not text:
        frame = traceback.extract_tb(exc.__traceback__)[-1:] if exc.__traceback__ else []
        where = f" at {frame[0].filename}:{frame[0].lineno}" if frame else ""
        return f"{name}{where}"
    return f"{name}: {text}"

P = ParamSpec("P")
R = TypeVar("R")


def guarded(function: Callable[P, R], named: Any = None, *,
            ctrl_c_reaches: bool = True) -> Callable[P, R]:
    """`function`, with the interpreter's exits turned into `UserCodeExit` where it runs
    (in a worker thread too, so they never travel through the event loop). The error names
    `named` (the user's function, when `function` wraps it). Ctrl-C pressed while it runs
    stops the run, and the trial it stopped is not stored, so a resume runs it again.
    `ctrl_c_reaches=False` where the terminal's Ctrl-C never arrives (a worker process in a
    session of its own): every KeyboardInterrupt there is the user code's own."""
    label = reference_of(named if named is not None else function)

    def call(*args: P.args, **kwargs: P.kwargs) -> R:
        with ctrl_c_watched(reaches=ctrl_c_reaches) as ctrl_c:
            try:
                with running_user_code():
                    return function(*args, **kwargs)
            except Exception:
                raise
            except BaseException as exc:
                if ctrl_c.raised(exc):
                    raise
                raise UserCodeExit(f"{label} {describe_exit(exc)}") from None

    return call


async def await_guarded(awaitable: Awaitable[R], function: Any, *,
                        ctrl_c_reaches: bool = True) -> R:
    """Await user code's coroutine; its exits become `UserCodeExit` naming `function`
    (`ctrl_c_reaches` as for `guarded`)."""
    with ctrl_c_watched(reaches=ctrl_c_reaches) as ctrl_c:
        try:
            with running_user_code():
                return await awaitable
        except (Exception, asyncio.CancelledError):
            raise
        except BaseException as exc:
            if ctrl_c.raised(exc):
                raise
            raise UserCodeExit(f"{reference_of(function)} {describe_exit(exc)}") from None


def run_loop(main: Coroutine[Any, Any, R]) -> R:
    """`asyncio.run(main)` for a run that calls user code.

    A `sys.exit()` in an asyncio task that user code started and never awaited is no
    call's: asyncio lets SystemExit out of every task and out of the event loop, so it
    would end assay with the code the user's code asked for, 0 for a run that did not
    finish. It fails the run instead (exit 3), which `--resume` continues. A `sys.exit()`
    made by the SIGINT or SIGTERM handler of a program calling `assay.evaluate` is that
    program's way to stop, and passes unchanged (`CtrlC.raised`).

    A Ctrl-C while user code holds the loop (a `time.sleep` in an `async def`) raises
    KeyboardInterrupt inside the run's task, a second press at once, the first when the
    loop has not answered it within a second (`blocked_loop`): it stops the run as Ctrl-C
    does, and the task is not reported again when collected."""
    watch = ctrl_c_watched()
    with asyncio.Runner() as runner:
        try:
            return runner.run(_ctrl_c_watched_throughout(main, watch))
        except KeyboardInterrupt:
            runner.get_loop().set_exception_handler(_said_already)
            raise
        except SystemExit as exc:
            runner.get_loop().set_exception_handler(_said_already)
            if watch.raised(exc):  # the program's own SIGTERM handler asked to exit
                raise
            raise RunFailed(f"user code {describe_exit(exc)} in an asyncio task it started "
                            "and did not await (a target's or scorer's); it stopped the run "
                            "before the run finished") from None


async def _ctrl_c_watched_throughout(main: Coroutine[Any, Any, R], watch: CtrlC) -> R:
    """`main`, with Ctrl-C watched for the whole loop (from inside the runner, whose own
    SIGINT handler it then counts): each call into user code only notes the count. A
    Ctrl-C the loop cannot answer because user code holds it stops that code
    (`blocked_loop`)."""
    with watch, blocked_loop_stopped(asyncio.get_running_loop()):
        return await main


def _said_already(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
    """The task's SystemExit (the run's failure) or KeyboardInterrupt ('interrupted'), said
    once: asyncio would print it again, as a traceback, when the task is collected ('Task
    exception was never retrieved'). So is one of assay's own errors the run met while it
    stopped (a store that did not answer its last commit): asyncio printed its traceback
    ('unhandled exception during asyncio.run() shutdown') above the line assay says."""
    if not isinstance(context.get("exception"), SystemExit | KeyboardInterrupt | AssayError):
        loop.default_exception_handler(context)


def bind_case_call(function: Callable[..., Any], condition: Condition,
                   args: dict[str, Any]) -> Callable[[Case], Any]:
    """Fix the condition and args once, so each call is just `f(case)`; a UserError naming
    the signature if the function cannot take them."""
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        return lambda case: function(case, **args)
    parameters = signature.parameters
    wants_condition = "condition" in parameters or any(
        p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values())
    try:
        if wants_condition:
            signature.bind(None, condition=condition, **args)
        else:
            signature.bind(None, **args)
    except TypeError as exc:
        raise UserError(f"python target {function.__qualname__}{signature} cannot take "
                        f"(case{', condition' if wants_condition else ''}"
                        f"{', ' + ', '.join(args) if args else ''}): {exc}") from None
    if wants_condition:
        return lambda case: function(case, condition=condition, **args)
    return lambda case: function(case, **args)


def import_object(reference: str, base_dir: Path, *, what: str = "function",
                  ctrl_c_reaches: bool = True) -> Any:
    """Import `module:attr` (relative to `base_dir`) and return the attribute.
    `ctrl_c_reaches=False` in a worker process, where a KeyboardInterrupt can only be the
    module's own (see `guarded`)."""
    module_name, sep, attr = reference.partition(":")
    if not sep or not module_name or not attr:
        raise UserError(f"{what} '{reference}' must look like 'module:name' or 'file.py:name'")
    base = str(base_dir.resolve())
    with ctrl_c_watched(reaches=ctrl_c_reaches) as ctrl_c:
        try:
            with ctrl_c_raising() if ctrl_c_reaches else contextlib.nullcontext():
                if module_name.endswith(".py"):
                    if base not in sys.path:
                        sys.path.insert(0, base)
                    module = _import_file(base_dir / module_name, module_name)
                else:
                    module = _import_module(module_name, base)
        except UserError:
            raise
        except Exception as exc:  # noqa: BLE001 - user code's import error: say which and why
            raise UserError(f"cannot import {what} '{reference}': {type(exc).__name__}: "
                            f"{exc}{_where_raised(exc, base_dir)}") from None
        except BaseException as exc:  # `sys.exit()` while importing is the module's failure
            if ctrl_c.raised(exc):
                raise
            raise UserError(f"cannot import {what} '{reference}': the module "
                            f"{describe_exit(exc)} while being imported") from None
    try:
        obj: Any = module
        for part in attr.split("."):
            obj = getattr(obj, part)
    except AttributeError:
        raise UserError(f"{what} '{reference}': module '{module_name}' has no '{attr}'") from None
    return obj


@contextlib.contextmanager
def ctrl_c_raising() -> Iterator[None]:
    """Ctrl-C (and SIGTERM, which takes its path) raises KeyboardInterrupt at once while
    user code is imported. On the event loop, asyncio's first Ctrl-C only cancels the main
    task, which a module importing for minutes (`import torch`) or for ever never lets run:
    the press went unheeded, and a second one was said as the module's own failure."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    before = signal.getsignal(signal.SIGINT)
    if before is signal.SIG_IGN or before is None:  # ignored by whoever started assay
        yield
        return
    signal.signal(signal.SIGINT, counting(signal.default_int_handler))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, before)


def _import_module(name: str, base: str) -> Any:
    """`importlib.import_module(name)` as a process started in `base` would see it: `base`
    first on the path, and a module of that name imported earlier from elsewhere (another
    project's `agent.py`, by an earlier config in this process: a pytest session, a
    notebook) imported again from `base`, not handed back from the import cache. Before,
    the second project's eval ran the first project's code, unsaid."""
    if sys.path[:1] != [base]:
        with contextlib.suppress(ValueError):
            sys.path.remove(base)
        sys.path.insert(0, base)
    top = name.partition(".")[0]
    cached = sys.modules.get(top)
    if cached is not None:
        local = importlib.machinery.PathFinder.find_spec(top, [base])
        here = getattr(cached, "__file__", None)
        if (local is not None and local.origin and (
                here is None or os.path.realpath(here) != os.path.realpath(local.origin))):
            for loaded in [m for m in sys.modules if m == top or m.startswith(top + ".")]:
                del sys.modules[loaded]
    return importlib.import_module(name)


def _where_raised(exc: Exception, base_dir: Path) -> str:
    """` (agent.py, line 4)`: the line of the user's own code the import failed at (the last
    one under `base_dir` and outside installed packages, as a library it called may have
    raised); "" when the error says it already (a SyntaxError) or no such line is known."""
    if isinstance(exc, SyntaxError):
        return ""
    base = base_dir.resolve()
    for frame in reversed(traceback.extract_tb(exc.__traceback__)):
        path = Path(frame.filename)
        if (path.is_absolute() and path.is_relative_to(base)
                and not {"site-packages", "dist-packages"} & set(path.parts)):
            return f" ({path.relative_to(base)}, line {frame.lineno})"
    return ""


_FILE_MODULES: dict[str, str] = {}
"""The module name a file was imported under -> the file as the config names it."""


def _import_file(path: Path, shown: str) -> Any:
    if not is_regular_file(path):
        raise UserError(f"file not found: {path}")
    name = f"assay_user_{path.stem}_{abs(hash(str(path.resolve())))}"
    _FILE_MODULES.setdefault(name, shown)
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise UserError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]  # a failed import is not cached half-done
        raise
    return module


def unwrapped(function: Any) -> Any:
    """The function a `functools.partial` calls: what names it (`functools:partial` named
    none, and every partial scorer was `partial`)."""
    while isinstance(function, functools.partial):
        function = function.func
    return function


def reference_of(function: Any) -> str:
    """The `module:qualname` naming a function given in code (`file.py:qualname` for one
    imported from a file, not the module name it was imported under); a reference string as
    it is."""
    if isinstance(function, str):
        return function
    function = unwrapped(function)
    named = function if hasattr(function, "__qualname__") else type(function)
    module = getattr(named, "__module__", None) or "?"
    return f"{_FILE_MODULES.get(module, module)}:{named.__qualname__}"
