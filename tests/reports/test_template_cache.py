"""Compiled report templates are kept between runs and never fail a render."""

from __future__ import annotations

from pathlib import Path

from jinja2 import DictLoader, Environment

from assay.reports.template_cache import TemplateCache, cache_folder

PAGE = "<p>{{ name }} has {{ items | length }} items</p>"


def render(folder: Path, source: str = PAGE) -> str:
    env = Environment(loader=DictLoader({"page.html": source}), autoescape=True,
                      bytecode_cache=TemplateCache(folder))
    return env.get_template("page.html").render(name="<b>", items=[1, 2])


def test_a_compiled_template_is_stored_and_read_back(tmp_path):
    folder = tmp_path / "templates"
    first = render(folder)
    stored = list(folder.iterdir())
    assert len(stored) == 1
    written = stored[0].stat().st_mtime_ns
    assert render(folder) == first == "<p>&lt;b&gt; has 2 items</p>"
    assert stored[0].stat().st_mtime_ns == written  # read, not compiled and written again


def test_an_edited_template_is_compiled_anew(tmp_path):
    render(tmp_path)
    assert render(tmp_path, "<i>{{ name }}</i>") == "<i>&lt;b&gt;</i>"


def test_a_damaged_cache_file_is_compiled_again(tmp_path):
    render(tmp_path)
    (stored,) = tmp_path.iterdir()
    stored.write_bytes(b"not a cache file at all")
    assert render(tmp_path) == "<p>&lt;b&gt; has 2 items</p>"


def test_an_unwritable_cache_folder_still_renders(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("a file where the folder should be")
    assert render(blocker / "templates") == "<p>&lt;b&gt; has 2 items</p>"


def test_the_cache_lives_in_the_users_cache_folder(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert cache_folder() == tmp_path / "assay" / "templates"


def test_a_template_compiled_without_the_finalize_step_is_compiled_again_with_it(tmp_path):
    """Regression: the cache was keyed by the template's source alone, so a page compiled by
    an environment without `finalize` was read back by one with it, and skipped it."""
    render(tmp_path)
    env = Environment(loader=DictLoader({"page.html": PAGE}), autoescape=True,
                      bytecode_cache=TemplateCache(tmp_path), finalize=lambda v: f"*{v}*")
    assert env.get_template("page.html").render(name="b", items=[1]) == "<p>*b* has *1* items</p>"
