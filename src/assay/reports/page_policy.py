"""The Content Security Policy each self-contained page carries, in a `<meta>` tag.

report.html and the calibration page show text that models, targets and
datasets wrote. Jinja2 escapes it in the markup and the page's script draws
the trials as text only; the policy is the second wall behind that: only the
page's own script runs (named by its SHA-256, so no script injected beside it
does), nothing is loaded from anywhere, and no form or `<base>` can send the
reader elsewhere. Inline styles stay allowed: the meters are drawn with them.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Iterable


def script_hash(script: str) -> str:
    """The CSP source that allows exactly `script`, the text inside one `<script>` tag."""
    digest = hashlib.sha256(script.encode("utf-8")).digest()
    return f"'sha256-{base64.b64encode(digest).decode('ascii')}'"


def content_security_policy(scripts: Iterable[str] = ()) -> str:
    """The policy of a page whose only scripts are `scripts` (none: no script runs)."""
    allowed = " ".join(script_hash(script) for script in scripts) or "'none'"
    return (f"default-src 'none'; script-src {allowed}; style-src 'unsafe-inline'; "
            "img-src data:; base-uri 'none'; form-action 'none'")
