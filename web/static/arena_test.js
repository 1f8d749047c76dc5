/* One test's live page: the first bot's W/D/L, its pentanomial pair counts, pair-score Elo with its
   95% interval, LOS, and for an SPRT its LLR against the bounds; the verdict once it ended.
   Redrawn from /api/arena/test/N every second while the test runs. */
(function () {
  "use strict";
  var state = JSON.parse(document.getElementById("fg-arena").textContent);
  var root = document.getElementById("arena-root");
  function esc(text) {
    return String(text === null || text === undefined ? "" : text).replace(/[&<>"']/g, function (c) {
      return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c];
    });
  }
  function signed(x) { return x === null || x === undefined ? "–" : (x >= 0 ? "+" : "") + x.toFixed(1); }

  function draw() {
    var t = state.test, f = state.figures, e = f.estimate;
    var kind = t.kind === "sprt" ? "SPRT: H0 elo ≤ " + t.elo0 + " against H1 elo ≥ " + t.elo1 + " (alpha " + t.alpha +
      ", beta " + t.beta + ")" : t.pairs + " twin pairs";
    var rows = [["status", t.status], ["pairs", f.pairs + (state.inflight ? " (" + state.inflight + " playing)" : "")],
                ["games", f.games], ["W / D / L of " + t.first, f.wdl.join(" / ")],
                ["pentanomial (0, ½, 1, 1½, 2 points a pair)", f.pentanomial.join(", ")]];
    if (e) {
      rows.push(["Elo (pair-score, 95%)", e.elo === null ? "no finite Elo: its 95% " + (e.bound || "") + " bound is " + signed(e.elo_bound) :
                 signed(e.elo) + " [" + signed(e.elo_ci95[0]) + ", " + signed(e.elo_ci95[1]) + "]"]);
      rows.push(["LOS", (100 * e.los).toFixed(1) + "%"]);
    }
    if (f.sprt) {
      rows.push(["LLR", f.sprt.llr.toFixed(2) + " in [" + f.sprt.lower.toFixed(2) + ", " + f.sprt.upper.toFixed(2) + "]"]);
    }
    rows.push(["games by worker", Object.keys(state.games_by_worker).map(function (w) {
      return w + ": " + state.games_by_worker[w];
    }).join(", ") || "–"]);
    root.innerHTML = "<h1>Test " + t.id + ": " + esc(t.first) + " vs " + esc(t.second) + "</h1><p>" + esc(kind) + " · " +
      esc(t.variant) + " · " + esc(t.tc) + " · priority " + t.priority + "</p>" +
      (t.verdict ? "<p class='verdict big' id=verdict>" + esc(t.verdict) + "</p>" : "") +
      "<table class='past figures'>" + rows.map(function (row) {
        return "<tr><th>" + esc(row[0]) + "</th><td>" + esc(row[1]) + "</td></tr>";
      }).join("") + "</table><p class=hint>" + esc(f.elo_scale) + "</p><h2>Latest games</h2><ul class=recent>" +
      state.games.map(function (g) {
        return "<li><a href='/arena/game/" + encodeURIComponent(g.id) + "'>" + esc(g.id) + "</a> " + esc(g.predator) +
          " vs " + esc(g.prey) + ": " + esc(g.winner) + " by " + esc(g.termination) + " <span class=hint>on " +
          esc(g.worker) + "</span></li>";
      }).join("") + "</ul><p><a href='/arena'>the arena</a></p>";
  }
  function refresh() {
    if (state.test.status !== "running") return;
    fetch("/api/arena/test/" + state.test.id).then(function (r) { return r.json(); }).then(function (answer) {
      state = answer; draw();
    });
  }
  draw();
  setInterval(refresh, 1000);
})();
