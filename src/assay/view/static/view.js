// assay view: the little the pages need a script for. Everything works without it
// except live updates: progress of runs in flight, and reviews computed in the background.
"use strict";

(function () {
  const POLL_MS = 2000;

  // Runs in flight: ask /api/progress for done/total; reload a run's page when it ends.
  function followProgress() {
    const cells = Array.from(document.querySelectorAll("[data-progress-run]"));
    if (!cells.length) return;
    const ids = Array.from(new Set(cells.map((c) => c.dataset.progressRun)));
    const query = ids.map((id) => "run=" + encodeURIComponent(id)).join("&");
    const tick = async () => {
      let body;
      try {
        const response = await fetch("/api/progress?" + query, { cache: "no-store" });
        if (!response.ok) return;
        body = await response.json();
      } catch (e) {
        return setTimeout(tick, POLL_MS * 2);
      }
      let ended = false;
      for (const cell of cells) {
        const run = body[cell.dataset.progressRun];
        if (!run) continue;
        const progress = cell.querySelector(".progress");
        if (progress) progress.textContent = run.done + "/" + (run.total === null ? "?" : run.total);
        if (run.status !== "running" || run.stalled) {
          ended = true;
          cell.textContent = run.shown_status;
          cell.className = "status s-" + (run.stalled ? "stalled" : run.status);
          if (run.stalled) cell.title = run.stalled;
        }
      }
      if (ended && document.querySelector("[data-reload-when-done]")) {
        window.location.reload();
        return;
      }
      if (!ended || cells.some((c) => c.querySelector(".progress"))) setTimeout(tick, POLL_MS);
    };
    setTimeout(tick, POLL_MS);
  }

  // A section the server is still computing: ask again until it answers 200, then show it.
  // The HTML comes from this app, rendered with every stored text escaped.
  function fillLater() {
    for (const box of document.querySelectorAll("[data-fill-from]")) {
      let wait = 500;
      const tick = async () => {
        try {
          const response = await fetch(box.dataset.fillFrom, { cache: "no-store" });
          if (response.status === 200) {
            box.innerHTML = await response.text();
            box.removeAttribute("data-fill-from");
            return;
          }
          if (response.status !== 202) {
            box.textContent = "Could not load this section (HTTP " + response.status + "); reload the page to try again.";
            return;
          }
        } catch (e) {
          wait = Math.min(wait * 2, 10000);
        }
        wait = Math.min(wait * 1.5, 5000);
        setTimeout(tick, wait);
      };
      setTimeout(tick, wait);
    }
  }

  // Filter forms whose selects apply as soon as they change.
  function autoSubmit() {
    for (const form of document.querySelectorAll("form[data-autosubmit]")) {
      for (const select of form.querySelectorAll("select")) {
        select.addEventListener("change", () => form.submit());
      }
    }
  }

  document.addEventListener("DOMContentLoaded", () => {
    followProgress();
    fillLater();
    autoSubmit();
  });
})();
