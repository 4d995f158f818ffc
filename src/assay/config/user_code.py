"""Import user code named in a config: `module:function` or `path/to/file.py:function`."""

from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path
from typing import Any

from assay.errors import UserError


def import_object(reference: str, base_dir: Path, *, what: str = "function") -> Any:
    """Import `module:attr` (relative to `base_dir`) and return the attribute."""
    module_name, sep, attr = reference.partition(":")
    if not sep or not module_name or not attr:
        raise UserError(f"{what} '{reference}' must look like 'module:name' or 'file.py:name'")
    base = str(base_dir.resolve())
    if base not in sys.path:
        sys.path.insert(0, base)
    try:
        if module_name.endswith(".py"):
            module = _import_file(base_dir / module_name)
        else:
            module = importlib.import_module(module_name)
    except UserError:
        raise
    except Exception as exc:  # an import error in user code: say which and why
        raise UserError(f"cannot import {what} '{reference}': {type(exc).__name__}: {exc}") from None
    try:
        obj: Any = module
        for part in attr.split("."):
            obj = getattr(obj, part)
    except AttributeError:
        raise UserError(f"{what} '{reference}': module '{module_name}' has no '{attr}'") from None
    return obj


def _import_file(path: Path) -> Any:
    if not path.is_file():
        raise UserError(f"file not found: {path}")
    name = f"assay_user_{path.stem}_{abs(hash(str(path.resolve())))}"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise UserError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def reference_of(function: Any) -> str:
    """The `module:qualname` naming a function given in code; a reference string as it is."""
    if isinstance(function, str):
        return function
    named = function if hasattr(function, "__qualname__") else type(function)
    return f"{getattr(named, '__module__', None) or '?'}:{named.__qualname__}"
