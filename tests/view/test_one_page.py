"""A page of a run still being written reads the store in one moment: its counts agree."""

from __future__ import annotations

import re
from itertools import count
from pathlib import Path

from starlette.testclient import TestClient

from assay.store import Store
from tests.store.written_between_reads import between_reads
from tests.view.stores import build, trial


def test_a_running_runs_page_counts_its_trials_at_one_moment(tmp_path: Path) -> None:
    """The page said '5/40 trials' above a condition holding 4: each query saw another
    moment of the run being written."""
    from assay.view.app import create_app
    from assay.view.server import open_for_viewing

    browsable = build(str(tmp_path / "assay.db"))
    viewed, writer = open_for_viewing(browsable.url), Store(browsable.url)
    added = count(100)
    with between_reads(writer, lambda: writer.write_trials(
            browsable.running, [trial(next(added), "baseline", passed=True)])), \
            TestClient(create_app(viewed), base_url="http://localhost") as client:
        page = client.get(f"/runs/{browsable.running}").text
    viewed.close()
    writer.close()
    done = int(re.search(r"(\d+)/40", page).group(1))  # type: ignore[union-attr]
    assert re.findall(r'<tr><td>baseline</td><td class="num">(\d+)</td>', page) == [str(done)]
