/* The arena's page: each variant's leaderboard, the test queue (with a form to queue one), the
   workers and the arena's log; redrawn from /api/arena every two seconds. A person challenges a
   ladder bot from its row: an ordinary game of this server, which the ladder never counts. */
(function () {
  "use strict";
  var state = JSON.parse(document.getElementById("fg-arena").textContent);
  var root = document.getElementById("arena-root");
  function esc(text) {
    return String(text === null || text === undefined ? "" : text).replace(/[&<>"']/g, function (c) {
      return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c];
    });
  }
  function say(id, text) { var element = document.getElementById(id); element.textContent = text; element.hidden = false; }
  function signed(x) { return x === null || x === undefined ? "–" : (x >= 0 ? "+" : "") + Math.round(x); }
  function percent(x) { return x === null || x === undefined ? "–" : (100 * x).toFixed(1) + "%"; }

  function ladderHtml(ladder) {
    var rows = ladder.rows.map(function (row, index) {
      var elo = row.elo === null ? "–" : signed(row.elo) + " ± " + Math.round(row.ci95);
      return "<tr class=bot data-bot='" + esc(row.name) + "'><td>" + (index + 1) + "</td><td>" + esc(row.name) +
        (row.rung ? " <span class=hint>rung</span>" : "") + "<br><span class=hint>" + esc(row.spec) + "</span></td>" +
        "<td class=elo>" + esc(elo) + "</td><td>" + row.games + "</td><td>" + percent(row.accuracy) + "</td><td>" +
        row.crashes + "</td><td>" + row.time_losses + "</td><td><button class='plain challenge' data-bot='" +
        esc(row.name) + "' data-variant='" + esc(ladder.variant) + "'>challenge</button></td></tr>";
    }).join("");
    var advantage = ladder.predator_advantage ? "predator advantage " + signed(ladder.predator_advantage.elo) +
      " ± " + Math.round(ladder.predator_advantage.ci95) + " Elo · " : "";
    return "<section class=ladder data-variant='" + esc(ladder.variant) + "'><h2>" + esc(ladder.variant) +
      " ladder</h2><table class='past leaderboard'><tr><th>#</th><th>bot</th><th>Elo ± 95%</th><th>games</th>" +
      "<th>accuracy</th><th>crashes</th><th>time losses</th><th></th></tr>" + rows + "</table><p class=hint>" +
      advantage + esc(ladder.interval) + (ladder.problem ? " · " + esc(ladder.problem) : "") +
      " · accuracy: judged moves that kept the solved value (– where no table knows the positions)</p></section>";
  }

  function testsHtml(tests) {
    var rows = tests.map(function (t) {
      var kind = t.kind === "sprt" ? "SPRT [" + t.elo0 + ", " + t.elo1 + "]" : t.pairs + " pairs";
      return "<tr class=test data-test='" + t.id + "'><td><a href='" + esc(t.link) + "'>test " + t.id + "</a></td><td>" +
        esc(t.first) + " vs " + esc(t.second) + "</td><td>" + esc(kind) + "</td><td>" + t.priority + "</td><td>" +
        esc(t.status) + "</td><td>" + esc(t.verdict) + "</td></tr>";
    }).join("");
    return "<section><h2>Tests</h2><table class='past tests'><tr><th>test</th><th>bots</th><th>kind</th>" +
      "<th>priority</th><th>status</th><th>verdict</th></tr>" + rows + "</table></section>";
  }

  function workersHtml(workers) {
    return "<section><h2>Workers</h2><table class='past workers'><tr><th>worker</th><th>kind</th><th>status</th>" +
      "<th>why</th></tr>" + workers.map(function (w) {
        return "<tr class=worker data-worker='" + esc(w.id) + "' data-status='" + esc(w.status) + "'><td>" + esc(w.id) +
          "</td><td>" + esc(w.kind) + "</td><td>" + esc(w.status) + "</td><td>" + esc(w.reason) + "</td></tr>";
      }).join("") + "</table></section>";
  }

  function recentHtml(games) {
    return "<section><h2>Latest games</h2><ul class=recent>" + games.map(function (g) {
      return "<li><a href='/arena/game/" + encodeURIComponent(g.id) + "'>" + esc(g.id) + "</a> " + esc(g.predator) +
        " vs " + esc(g.prey) + ": " + esc(g.winner) + " by " + esc(g.termination) + " <span class=hint>on " +
        esc(g.worker) + (g.test ? ", test " + g.test : ", ladder") + "</span></li>";
    }).join("") + "</ul></section>";
  }

  var formHtml = "<section><h2>Queue a test</h2><form id=new-test class=filters>" +
    "<label>First <select id=t-first></select></label><label>Second <select id=t-second></select></label>" +
    "<label>Kind <select id=t-kind><option value=sprt>SPRT</option><option value=pairs>fixed pairs</option></select></label>" +
    "<label>elo0 <input id=t-elo0 size=4 value=0></label><label>elo1 <input id=t-elo1 size=4 value=10></label>" +
    "<label>pairs <input id=t-pairs size=4 value=20></label><label>priority <input id=t-priority size=3 value=1></label>" +
    "<button type=submit class=plain>queue</button></form><p id=t-problem class=problem hidden></p>" +
    "<p class=hint>SPRT bounds are pair-score Elo: the first bot's mean score over twin pairs.</p>" +
    "<h2>Play a ladder bot</h2><p><label>Your name <input id=person size=14 placeholder=guest></label> · " +
    "a game against a bot counts only in your own history: <a id=history-link href='#'>your arena games</a></p>" +
    "<ul id=history></ul><p id=c-problem class=problem hidden></p></section>";

  root.innerHTML = "<h1>Arena</h1><div id=arena-live></div>" + formHtml + "<div id=arena-tail></div>";
  var live = document.getElementById("arena-live"), tail = document.getElementById("arena-tail");

  function draw() {
    /* The form above is drawn once (a redraw would drop what a person is choosing); the rest each time. */
    var problem = state.problem ? "<p class='problem big'>" + esc(state.problem) + "</p>" : "";
    var counts = state.pairs || {};
    live.innerHTML = problem + "<p class=hint id=counts>pairs: " + (counts.done || 0) + " done, " +
      (counts.claimed || 0) + " playing, " + (counts.queued || 0) + " queued</p>" +
      state.ladders.map(ladderHtml).join("") + testsHtml(state.tests);
    tail.innerHTML = workersHtml(state.workers) + recentHtml(state.recent) + "<section><h2>Log</h2><ul class=lines>" +
      state.lines.map(function (line) {
        return "<li>" + esc(new Date(line.at * 1000).toLocaleTimeString()) + " " + esc(line.text) + "</li>";
      }).join("") + "</ul></section>";
    ["t-first", "t-second"].forEach(function (id, index) {
      var select = document.getElementById(id);
      state.bots.forEach(function (bot, place) {
        if (![].some.call(select.options, function (option) { return option.value === bot.name; })) {
          select.add(new Option(bot.name, bot.name));
          if (place === index) select.value = bot.name;
        }
      });
    });
  }

  root.addEventListener("submit", function (event) {
    if (event.target.id !== "new-test") return;
    event.preventDefault();
    function value(id) { return document.getElementById(id).value; }
    var kind = value("t-kind");
    var body = { first: value("t-first"), second: value("t-second"), variant: state.variants[0], kind: kind,
                 priority: Number(value("t-priority")) };
    if (kind === "sprt") { body.elo0 = Number(value("t-elo0")); body.elo1 = Number(value("t-elo1")); }
    else body.pairs = Math.round(Number(value("t-pairs")));
    postJson("/api/arena/tests", body).then(function (r) { return r.json(); }).then(function (answer) {
      if (answer.error) say("t-problem", answer.error);
      else location.href = answer.link;
    });
  });
  root.addEventListener("click", function (event) {
    var target = event.target;
    if (target.classList.contains("challenge")) {
      postJson("/api/arena/challenge", { bot: target.getAttribute("data-bot"), variant: target.getAttribute("data-variant"),
                                          name: document.getElementById("person").value }).then(function (r) {
        return r.json();
      }).then(function (answer) {
        if (answer.error) say("c-problem", answer.error);
        else location.href = answer.link;
      });
    } else if (target.id === "history-link") {
      event.preventDefault();
      var name = document.getElementById("person").value || "guest";
      fetch("/api/arena/history?name=" + encodeURIComponent(name)).then(function (r) { return r.json(); }).then(function (answer) {
        document.getElementById("history").innerHTML = (answer.games || []).map(function (g) {
          return "<li><a href='" + esc(g.link) + "'>" + esc(g.id) + "</a> " + esc(Object.keys(g.seats).map(function (side) {
            return side + ": " + g.seats[side];
          }).join(" vs ")) + " · " + esc(g.status === "over" ? g.result : g.status) + "</li>";
        }).join("") || "<li>no games yet</li>";
      });
    }
  });

  function refresh() {
    fetch("/api/arena").then(function (r) { return r.json(); }).then(function (answer) { state = answer; draw(); });
  }
  draw();
  setInterval(refresh, 2000);
})();
