"""The viewer used as a person uses it, in headless Chromium: clicking from the run list to a
run, to its cases side by side, to an agent trial's trajectory, and to two runs compared,
with no console errors; and XSS payloads planted in every stored text staying text.

One browser serves the whole module (see `conftest.browser`).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlencode

import pytest

from tests.view.stores import (
    AGENT,
    BASELINE,
    CONDITIONS,
    FLIPPED,
    JUDGE,
    PAYLOADS,
    XSS,
    Browsable,
    case_id,
)

if TYPE_CHECKING:
    from playwright.sync_api import Browser, BrowserContext, ConsoleMessage, Page

REVIEW_TIMEOUT_MS = 30_000
"""How long a page may take to fill in a review computed in the background (a loaded CI)."""
INJECTED = "window.__xss"
"""The global every payload sets if it runs."""


class Problems(list[str]):
    """Console errors and uncaught exceptions a page reported."""

    def watch(self, page: Page) -> Page:
        def on_console(message: ConsoleMessage) -> None:
            if message.type == "error":
                self.append(f"console: {message.text} at {page.url}")

        page.on("console", on_console)
        page.on("pageerror", lambda error: self.append(f"exception: {error} at {page.url}"))
        return page


@pytest.fixture
def context(browser: Browser) -> Iterator[BrowserContext]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    yield context
    context.close()


@pytest.fixture
def unguarded(browser: Browser) -> Iterator[BrowserContext]:
    """A context that ignores the app's Content Security Policy, so what keeps a payload
    from running is the escaping alone."""
    context = browser.new_context(bypass_csp=True)
    yield context
    context.close()


def test_clicking_from_run_list_to_comparison_shows_each_page_without_console_errors(
        context: BrowserContext, viewer: str, browsable: Browsable) -> None:
    from playwright.sync_api import expect

    problems = Problems()
    page = problems.watch(context.new_page())

    page.goto(viewer)
    expect(page.locator("h1")).to_have_text("Runs")
    expect(page.locator("table.runs tbody tr")).to_have_count(4)
    page.locator("a.run-link", has_text=browsable.run_b).click()

    expect(page.locator("span.run-id")).to_have_text(browsable.run_b)
    verdict = page.locator("#verdict")
    expect(verdict).to_be_visible(timeout=REVIEW_TIMEOUT_MS)
    expect(verdict).to_contain_text(BASELINE)
    expect(page.locator("table.scores")).to_contain_text(AGENT)
    page.locator("nav.case-links a", has_text="flipped").click()

    expect(page.locator("h1")).to_have_text("Cases side by side")
    rows = page.locator("tr.case-row")
    expect(rows).to_have_count(len(FLIPPED))
    assert sorted(rows.evaluate_all("rows => rows.map(r => r.dataset.case)")) == sorted(FLIPPED)
    expect(page.locator("table.side-by-side thead th")).to_have_text(["case", *CONDITIONS])
    flipped = page.locator("tr.case-row", has=page.locator(".case-id", has_text="case-1"))
    expect(flipped.locator(".mark.pass")).not_to_have_count(0)
    expect(flipped.locator(".mark.fail")).not_to_have_count(0)
    flipped.locator("td.cell").nth(1).locator("a.open-trial").click()

    expect(page.locator("h1 .condition")).to_have_text(AGENT)
    steps = page.locator(".trajectory li.step")
    expect(steps).to_have_count(2)
    expect(steps.nth(0).locator(".tool-name")).to_have_text(["lookup", "fetch"])
    expect(steps.nth(0).locator(".tool-call.failed .text.error")).to_contain_text("not found")
    expect(steps.nth(0).locator(".tool-call .text.result")).to_contain_text("found")
    judge = page.locator("article.score", has=page.locator("h3", has_text=JUDGE))
    expect(judge.locator("table.metrics")).to_contain_text("Grounded")
    expect(judge.locator("ul.claims").first).to_contain_text("It ships in 2 days")
    judge.locator("details.repeats summary").click()
    expect(judge.locator("li.repeat")).to_have_count(3)

    page.locator("a.brand").click()
    page.locator(f"input[name=a][value='{browsable.run_a}']").check()
    page.locator(f"input[name=b][value='{browsable.run_b}']").check()
    page.locator("button.compare-button").click()

    expect(page.locator("h1")).to_contain_text(f"A {browsable.run_a} → B {browsable.run_b}")
    expect(page.locator("#verdict")).to_be_visible(timeout=REVIEW_TIMEOUT_MS)
    expect(page.locator("figure.chart")).not_to_have_count(0)
    page.locator("nav.case-links a", has_text="newly failing").click()

    expect(page.locator("table.side-by-side thead th")).to_have_text(
        ["case", *(f"{run} · {name}" for name in CONDITIONS for run in ("A", "B"))])
    assert sorted(page.locator("tr.case-row").evaluate_all(
        "rows => rows.map(r => r.dataset.case)")) == sorted(FLIPPED)
    assert problems == []


def test_run_page_opens_with_its_verdict_on_a_narrow_screen(
        browser: Browser, viewer: str, browsable: Browsable) -> None:
    from playwright.sync_api import expect

    context = browser.new_context(viewport={"width": 400, "height": 700})
    try:
        page = context.new_page()
        page.goto(f"{viewer}runs/{browsable.run_b}")
        verdict = page.locator("#verdict")
        expect(verdict).to_be_visible(timeout=REVIEW_TIMEOUT_MS)
        assert verdict.bounding_box()["y"] < 700  # type: ignore[index]
    finally:
        context.close()


def every_page(browsable: Browsable) -> list[str]:
    """A path of every page kind, reaching every planted text."""
    run_b, run_a = f"runs/{browsable.run_b}", browsable.run_a
    trials = [f"{run_b}/trial?" + urlencode({"case": case_id(i), "condition": condition,
                                             "epoch": 0})
              for i in range(6) for condition in CONDITIONS]
    cases = [f"{run_b}/cases?show={show}"
             for show in ("all", "flipped", "regressed", "errored", "unstable")]
    pair = urlencode({"a": run_a, "b": browsable.run_b})
    return ["", f"runs/{run_a}", run_b, f"{run_b}/review", *cases,
            f"{run_b}/cases?" + urlencode({"tag": PAYLOADS[2]}),
            f"{run_b}/cases?" + urlencode({"q": "case-5"}), *trials,
            f"compare?{pair}", f"compare/review?{pair}", f"compare/cases?{pair}",
            "history?" + urlencode({"experiment": browsable.experiment}),
            f"runs/{browsable.traces}", f"runs/{browsable.running}",
            f"{run_b}/trial?" + urlencode({"case": PAYLOADS[0], "condition": PAYLOADS[1]})]


def test_payloads_in_every_stored_text_stay_text_even_without_the_csp(
        unguarded: BrowserContext, viewer: str, browsable: Browsable) -> None:
    page = unguarded.new_page()
    for path in every_page(browsable):
        page.goto(viewer + path)
        page.wait_for_load_state("load")
        if page.locator("[data-fill-from]").count():
            page.wait_for_selector("[data-fill-from]", state="detached",
                                   timeout=REVIEW_TIMEOUT_MS)
        page.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
        assert page.evaluate(f"typeof {INJECTED}") == "undefined", path
        assert page.locator("[onerror], [onload], iframe, object, embed").count() == 0, path
        scripts = page.locator("script").evaluate_all("s => s.map(e => e.getAttribute('src'))")
        assert set(scripts) <= {"/static/view.js"}, path
        hrefs = page.locator("a[href]").evaluate_all(
            "a => a.map(e => new URL(e.getAttribute('href'), location.href).href)")
        assert not [h for h in hrefs if not h.startswith(viewer)], path
    shown = page.locator("main").inner_text()  # the last page: a 404 naming the payload
    assert PAYLOADS[0] in shown


def test_payloads_left_unescaped_would_set_the_global(unguarded: BrowserContext) -> None:
    """The check above can fail: each payload, put into a page raw, runs."""
    page = unguarded.new_page()
    for payload in PAYLOADS:
        page.set_content(f'<div title="x">{payload}</div><a id="go" href="{payload}">go</a>')
        if payload.startswith("javascript:"):
            page.click("#go")
        page.wait_for_function(f"typeof {INJECTED} !== 'undefined'", timeout=5_000)
        page.evaluate(f"delete {INJECTED}")
    assert XSS.startswith(INJECTED)


def test_without_chromium_the_browser_tests_fail_under_ci_and_skip_elsewhere(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from tests.view.conftest import chromium_path

    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("ASSAY_TEST_CHROMIUM", raising=False)
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="CI=true"):
        chromium_path()
    monkeypatch.delenv("CI")
    with pytest.raises(pytest.skip.Exception, match="no Chromium"):
        chromium_path()
