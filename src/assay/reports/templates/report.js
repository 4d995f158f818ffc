(function () {
  "use strict";
  // The cases of report.html: unpacked from the block of gzipped JSON (base64) with the
  // browser's DecompressionStream, filtered, paged, drawn as text only (textContent, never
  // innerHTML), so nothing from a trial can become markup.
  var source = document.getElementById("trial-data");
  if (!source) return;
  unpack(source.textContent).then(function (text) { show(JSON.parse(text)); }, function (error) {
    var note = document.createElement("p");
    note.className = "callout bad";
    note.textContent = "This browser could not unpack the cases (" + error + "); every trial " +
      "is also in results.json.";
    document.getElementById("trials-section").appendChild(note);
  });

  function unpack(base64) {
    if (typeof DecompressionStream === "undefined") {
      return Promise.reject(new Error("it has no DecompressionStream"));
    }
    var binary = atob(base64.trim()), bytes = new Uint8Array(binary.length);
    for (var i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return new Response(stream).text();
  }

  function show(D) {
    var SCORERS = D.scorers, CONDITIONS = D.conditions, PAGE = 50;
    var EPOCHS = D.epochs || [];  // each stored epoch's label, "" when the run has one
    var MARK = { 1: ["pass", "✓"], 0: ["fail", "✗"] };
    var cases = D.cases.map(function (c) {
      return { id: c[0], input: c[1], expected: c[2], tags: c[3] || [], difficulty: c[4],
               trials: [], text: null };
    });
    D.trials.forEach(function (t) { cases[t[0]].trials.push(t); });
    cases.forEach(function (c) {
      c.status = c.trials.reduce(function (s, t) { return worse(s, t[3]); }, "p");
      c.flipped = flipped(c);
    });
    cases.sort(function (a, b) { return rank(a.status) - rank(b.status); });

    var q = byId("q"), fc = byId("fc"), fs = byId("fs"), ft = byId("ft"), ff = byId("ff");
    var body = byId("cases-body"), shown = byId("shown"), pageLabel = byId("page");
    var matches = [], page = 0, only = null;

    function byId(id) { return document.getElementById(id); }
    function rank(s) { return s === "e" ? 0 : s === "f" ? 1 : 2; }
    function worse(a, b) { return rank(b) < rank(a) ? b : a; }
    function h(tag, cls, text) {
      var e = document.createElement(tag);
      if (cls) e.className = cls;
      if (text !== undefined && text !== null) e.textContent = String(text);
      return e;
    }
    function add(parent) {
      for (var i = 1; i < arguments.length; i++) if (arguments[i]) parent.appendChild(arguments[i]);
      return parent;
    }
    function excerpt(s, n) {
      s = String(s || "").replace(/\s+/g, " ").trim();
      return s.length > n ? s.slice(0, n - 1) + "…" : s;
    }
    function num(x) { return x === null || x === undefined ? "-" : (+x).toLocaleString("en-US", { maximumFractionDigits: 3 }); }
    function plural(n, noun) { return num(n) + " " + noun + (n === 1 ? "" : "s"); }
    function cost(x) { return x === null || x === undefined ? "unknown" : "$" + (+x).toFixed(4); }

    // A case flipped when, for one scorer, it passes under one condition and fails under another
    // (a condition's verdict being the majority of its epochs).
    function flipped(c) {
      for (var s = 0; s < SCORERS.length; s++) {
        var seen = {};
        var votes = {};
        c.trials.forEach(function (t) {
          var score = t[8][s];
          if (!score || score[1] === null) return;
          var v = votes[t[1]] || (votes[t[1]] = [0, 0]);
          v[score[1]] += 1;
        });
        Object.keys(votes).forEach(function (k) {
          var v = votes[k];
          if (v[0] !== v[1]) seen[v[1] > v[0] ? "pass" : "fail"] = true;
        });
        if (seen.pass && seen.fail) return true;
      }
      return false;
    }

    function searchText(c) {
      if (c.text === null) {
        var parts = [c.id, c.input, c.expected, c.tags.join(" "), c.difficulty || ""];
        c.trials.forEach(function (t) {
          parts.push(CONDITIONS[t[1]], t[4], t[5] || "");
          t[8].forEach(function (s) { if (s) parts.push(s[2] || "", s[3] || ""); });
          t[9].forEach(function (tool) { parts.push(tool[0]); });
        });
        c.text = parts.join("\n").toLowerCase();
      }
      return c.text;
    }

    function trialMatches(t, cond, status) {
      if (cond !== "" && CONDITIONS[t[1]] !== cond) return false;
      if (status === "bad") return t[3] !== "p";
      return status === "" || t[3] === status;
    }

    function apply() {
      var text = q.value.trim().toLowerCase(), cond = fc.value, status = fs.value,
          tag = ft.value, onlyFlipped = ff && ff.checked;
      matches = cases.filter(function (c) {
        if (only !== null) return c.id === only;
        if (onlyFlipped && !c.flipped) return false;
        if (tag && c.tags.indexOf(tag) === -1) return false;
        if ((cond || status) && !c.trials.some(function (t) { return trialMatches(t, cond, status); }))
          return false;
        return !text || searchText(c).indexOf(text) !== -1;
      });
      page = 0;
      draw();
    }

    function draw() {
      var pages = Math.max(1, Math.ceil(matches.length / PAGE));
      page = Math.min(page, pages - 1);
      body.textContent = "";
      matches.slice(page * PAGE, (page + 1) * PAGE).forEach(function (c) { body.appendChild(caseRows(c)); });
      shown.textContent = matches.length.toLocaleString("en-US") + " of " + cases.length.toLocaleString("en-US");
      pageLabel.textContent = "page " + (page + 1) + " of " + pages;
      byId("prev").disabled = page === 0;
      byId("next").disabled = page >= pages - 1;
    }

    function head() {
      var row = add(h("tr"), h("th", "", "case"));
      CONDITIONS.forEach(function (name, i) {
        var th = h("th", "nw");
        add(th, h("span", "sw c" + (i % 6)), document.createTextNode(name));
        row.appendChild(th);
      });
      byId("cases-head").appendChild(row);
    }

    function marks(t) {
      var span = h("span", "marks");
      SCORERS.forEach(function (name, s) {
        var score = t[8][s], m;
        if (!score) m = ["none", "–", name + ": not scored"];
        else if (score[3]) m = ["err", "!", name + ": error"];
        else if (score[1] === null) m = ["value", num(score[0]), name + ": " + num(score[0])];
        else m = [MARK[score[1]][0], MARK[score[1]][1], name + ": " + (score[1] ? "passed" : "failed") + ", " + num(score[0])];
        var e = h("span", "m " + m[0], m[1]);
        e.title = m[2];
        span.appendChild(e);
      });
      if (t[5]) { var e = h("span", "m err", "!"); e.title = "target error"; span.appendChild(e); }
      return span;
    }

    function caseRows(c) {
      var group = h("tbody", "case " + c.status);
      group.dataset.case = c.id;
      var first = h("td", "case");
      add(first, h("code", "", c.id));
      if (c.flipped) add(first, document.createTextNode(" "), h("span", "pill warn", "flipped"));
      if (c.input) add(first, h("div", "muted small", excerpt(c.input, 160)));
      if (c.tags.length) add(first, h("div", "tags small", c.tags.join(" · ")));
      var row = add(h("tr", "summary"), first);
      CONDITIONS.forEach(function (_, ci) {
        var cell = h("td", "text");
        c.trials.forEach(function (t) {
          if (t[1] !== ci) return;
          var line = add(h("div", "trial " + t[3]), marks(t));
          if (EPOCHS[t[2]]) line.appendChild(h("span", "muted small", " " + EPOCHS[t[2]]));
          line.appendChild(h("div", t[5] ? "errtext" : "out", excerpt(t[5] || t[4], 200)));
          cell.appendChild(line);
        });
        if (!cell.childNodes.length) cell.appendChild(h("span", "muted", "-"));
        row.appendChild(cell);
      });
      var detailCell = h("td");
      detailCell.colSpan = CONDITIONS.length + 1;
      var details = add(h("details", "drill"), h("summary", "", "open " + c.id + ": full outputs, trajectories, judges"));
      details.addEventListener("toggle", function () {
        if (details.open && details.childNodes.length === 1) details.appendChild(caseDetail(c));
      });
      group.appendChild(row);
      group.appendChild(add(h("tr", "detail"), add(detailCell, details)));
      return group;
    }

    function block(label, text, cls) {
      if (text === null || text === undefined || text === "") return null;
      return add(h("div", "field"), h("div", "label", label), h("pre", cls || "", text));
    }

    function caseDetail(c) {
      var wrap = h("div", "case-detail");
      add(wrap, block("input", c.input), block("expected", c.expected));
      if (c.difficulty) wrap.appendChild(h("p", "muted small", "difficulty: " + c.difficulty));
      var grid = h("div", "sbs");
      grid.style.gridTemplateColumns = "repeat(" + CONDITIONS.length + ", minmax(280px, 1fr))";
      CONDITIONS.forEach(function (name, ci) {
        var col = add(h("div", "side"), add(h("h4"), h("span", "sw c" + (ci % 6)), document.createTextNode(name)));
        c.trials.forEach(function (t) { if (t[1] === ci) col.appendChild(trialDetail(t)); });
        grid.appendChild(col);
      });
      return add(wrap, grid);
    }

    function trialDetail(t) {
      var box = h("div", "trial-detail " + t[3]);
      var facts = [];
      if (EPOCHS[t[2]]) facts.push(EPOCHS[t[2]]);
      if (t[6] !== null) facts.push(num(t[6]) + " ms");
      if (t[7]) facts.push(num(t[7][0]) + " / " + num(t[7][1]) + " tokens", "cost " + cost(t[7][2]));
      if (facts.length) box.appendChild(h("div", "muted small", facts.join(" · ")));
      add(box, block("error", t[5], "errtext"), block("output", t[4]));
      t[8].forEach(function (score, s) { if (score) box.appendChild(scoreDetail(SCORERS[s], score)); });
      if (t[9].length || t[10].length) box.appendChild(trajectory(t));
      else if (t[12]) box.appendChild(h("div", "muted small", t[12]));
      return box;
    }

    function scoreDetail(name, score) {
      var d = score[4] || {};
      var verdict = score[3] ? "error" : score[1] === null ? num(score[0]) : (score[1] ? "✓ passed " : "✗ failed ") + num(score[0]);
      var box = add(h("div", "score"), add(h("div", "label"), h("b", "", name), document.createTextNode(" " + verdict)));
      if (d.unstable) box.firstChild.appendChild(h("span", "pill warn", "unstable verdict"));
      if (d.judge) box.appendChild(h("div", "muted small", "judge " + d.judge));
      add(box, block("error", score[3], "errtext"), block("reason", score[2]));
      if (d.label) box.appendChild(h("div", "small", "label: " + d.label));
      if (d.metrics) {
        var table = h("table", "metrics");
        Object.keys(d.metrics).forEach(function (m) {
          var row = add(h("tr"), h("td", "nw", m), h("td", "num", num(d.metrics[m])));
          row.appendChild(h("td", "", d.reasoning && d.reasoning[m] || ""));
          table.appendChild(row);
        });
        box.appendChild(table);
      }
      if (d.claims && d.claims.length) {
        var list = h("ul", "claims");
        d.claims.forEach(function (claim) { list.appendChild(h("li", "", claim)); });
        add(box, h("div", "label", "unverified claims (" + d.claims.length + ")"), list);
      }
      if (d.repeats && d.repeats.length) {
        var reps = add(h("details", "repeats"), h("summary", "", "every judgement (" + d.repeats.length + ")"));
        var ol = h("ol");
        d.repeats.forEach(function (r) {
          var parts = [r.error ? "error: " + r.error : (r.passed ? "✓" : "✗")];
          if (r.value !== undefined) parts.push(num(r.value));
          if (r.label) parts.push(r.label);
          if (r.metrics) parts.push(Object.keys(r.metrics).map(function (m) { return m + " " + num(r.metrics[m]); }).join(", "));
          if (r.reason) parts.push(r.reason);
          ol.appendChild(h("li", "", parts.join(" · ")));
        });
        box.appendChild(add(reps, ol));
      }
      return box;
    }

    function toolCall(tool) {
      var item = h("li", "tool" + (tool[3] ? " failed" : ""));
      var head = [tool[0]];
      if (tool[4] !== null) head.push(num(tool[4]) + " ms");
      add(item, h("code", "", head.join(" · ")), block("arguments", tool[1]),
          block("result", tool[2]), block("error", tool[3], "errtext"));
      return item;
    }

    function trajectory(t) {
      var steps = t[10], tools = t[9], attempts = t[11], next = 0;
      var counts = (steps.length ? plural(steps.length, "turn") + ", " : "") + plural(tools.length, "tool call");
      var summary = attempts
        ? "trajectory of the last of " + attempts + " attempts, the one scored: " + counts +
          " (the tokens and cost count every attempt)"
        : "trajectory: " + counts;
      var details = add(h("details", "trajectory"),
                        h("summary", "", t[12] ? summary + "; " + t[12] : summary));
      var list = h("ol", "steps");
      steps.forEach(function (step) {
        var facts = ["turn " + step[0]];
        if (step[3] !== null) facts.push(num(step[3]) + " ms");
        if (step[4] !== null && step[4] !== undefined) facts.push(num(step[4]) + " / " + num(step[5]) + " tokens");
        if (step[6]) facts.push("cached");
        if (step[7]) facts.push("stop: " + step[7]);
        var item = add(h("li", "step"), h("div", "muted small", facts.join(" · ")), block("said", step[1]));
        var calls = h("ul", "tools");
        for (var k = 0; k < step[2] && next < tools.length; k++) calls.appendChild(toolCall(tools[next++]));
        if (calls.childNodes.length) item.appendChild(calls);
        list.appendChild(item);
      });
      if (next < tools.length) {
        var rest = h("ul", "tools");
        for (; next < tools.length; next++) rest.appendChild(toolCall(tools[next]));
        list.appendChild(add(h("li", "step"), h("div", "muted small", "tool calls"), rest));
      }
      return add(details, list);
    }

    var tags = {};
    cases.forEach(function (c) { c.tags.forEach(function (t) { tags[t] = true; }); });
    Object.keys(tags).sort().forEach(function (t) { var o = h("option", "", t); o.value = t; ft.appendChild(o); });
    if (!Object.keys(tags).length) ft.hidden = true;
    head();
    function changed() { only = null; apply(); }
    [q, fc, fs, ft].forEach(function (e) { e.addEventListener("input", changed); });
    if (ff) ff.addEventListener("change", changed);
    byId("prev").addEventListener("click", function () { page -= 1; draw(); });
    byId("next").addEventListener("click", function () { page += 1; draw(); });
    // #q=TEXT searches; #case=ID shows that one case, opened.
    var hash = location.hash;
    if (hash.indexOf("#q=") === 0) q.value = decodeURIComponent(hash.slice(3));
    if (hash.indexOf("#case=") === 0) only = decodeURIComponent(hash.slice(6));
    apply();
    if (only !== null) {
      var opened = body.querySelector("details.drill");
      if (opened) opened.open = true;
    }
  }
})();
