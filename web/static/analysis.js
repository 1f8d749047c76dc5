/* The analysis board: any position (set up by clicking, pasted as position text, or a game's ply)
   with every legal move's value from the solver's tables; and a finished game's review (each
   side's mistakes and accuracy). The server does the work: POST /api/analyse, POST /api/review. */
(function () {
  "use strict";
  var config = JSON.parse(document.getElementById("fg-config").textContent);
  var board = document.getElementById("board");
  var current = null, history = [], selection = [], flipped = false, review = null, reviewPly = null;
  window.fgAnalysis = null;

  function $(id) { return document.getElementById(id); }
  function escapeHtml(text) {
    return String(text).replace(/[&<>"']/g, function (c) {
      return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c];
    });
  }
  function problem(text) { $("problem").hidden = !text; $("problem").textContent = text || ""; }

  FoxgeeseVariants.ids().forEach(function (id) { $("variant").add(new Option(id, id)); });

  var variants = FoxgeeseVariants;
  var options = $("variant-options");
  function drawOptions(variant) {  /* the variant's options, from its schema; each change shows its start */
    options.innerHTML = variants.controls(variant, "option-");
    options.querySelectorAll("select, input").forEach(function (node) {
      node.addEventListener("change", function () { analyse(startText(), "", true); });
    });
  }

  function startText() {
    var variant = $("variant").value;
    var found = variants.start(variant, variants.chosen(variant, options, "option-"));
    return found ? found.text : variants.byId(variant).starts[0].text;
  }

  function syncControls(text) {
    var tokens = text.trim().split(/\s+/);
    var variant = tokens[0];
    if ($("variant").value !== variant || !options.innerHTML) { $("variant").value = variant; drawOptions(variant); }
    variants.show(variant, options, variants.parseOptions(tokens[1]), "option-");
    var sides = variants.sides(variant);
    $("turn").innerHTML = sides.map(function (s) { return "<option>" + s + "</option>"; }).join("");
    $("turn").value = tokens[2];
    $("position-text").value = text;
  }

  /* Shows a position: `last` the move that led to it (drawn), `push` keeps the one before for "back". */
  function analyse(text, last, push) {
    problem("");
    return postJson("/api/analyse", { position: text, last: last || "", flip: flipped })
      .then(function (response) { return response.json(); })
      .then(function (answer) {
        if (answer.error) { problem(answer.error); return; }
        if (push && current) history.push(current);
        current = { text: answer.position, last: last || "", answer: answer };
        window.fgAnalysis = answer;
        selection = [];
        draw();
      })
      .catch(function (error) { problem("The server did not answer: " + error); });
  }

  function valueClass(result) { return "value-" + result; }

  function draw() {
    var answer = current.answer;
    board.innerHTML = answer.svg;
    syncControls(current.text);
    var v = answer.value;
    $("value").classList.toggle("unfinished", !!answer.problem);
    if (answer.problem) {  // a position on its way to a legal one: the board shows it, the text says what is missing
      $("value").textContent = "Not a position of a game yet: " + answer.problem + ".";
    } else if (v.source === "rules") {  // the game is over here: who won, not "win in 0 plies"
      var sides = variants.sides(answer.position.split(" ")[0]);
      var other = sides[0] === answer.turn ? sides[1] : sides[0];
      var winner = v.result === "win" ? answer.turn : other;
      $("value").innerHTML = "The game is over: <span class='" + valueClass(v.result === "draw" ? "draw" : "win") + "'>" +
        (v.result === "draw" ? "a draw" :
        "the " + escapeHtml(variants.verb(winner, "wins", "win"))) + "</span> <span class=hint>(rules)</span>";
    } else {
      $("value").innerHTML = "The " + escapeHtml(answer.turn) + " to move: <span class='" + valueClass(v.result) + "'>" +
        escapeHtml(v.result === "unknown" ? "value unknown" : v.text) + "</span>" +
        (v.plies !== null && v.result !== "draw" ? (v.plies === 1 ? " ply" : " plies") : "") +
        (v.source ? " <span class=hint>(" + escapeHtml(v.source) + ")</span>" : "");
    }
    $("material").textContent = answer.material;
    $("missing").hidden = !answer.missing;
    $("missing").textContent = answer.missing ? "Tables missing here: " + answer.missing + "." : "";
    $("move-values").innerHTML = answer.moves.length ? answer.moves.map(function (m) {
      return "<li data-move='" + escapeHtml(m.move) + "'><span>" + escapeHtml(m.move) + "</span><span class='" +
             valueClass(m.result) + "'>" + escapeHtml(m.text) + "</span></li>";
    }).join("") : answer.problem ? "<li class=hint>the moves come when the position is complete</li>"
                : "<li class=hint>no legal move: the game is over</li>";
    $("back").disabled = !history.length;
    light();
  }

  function paths() { return current.answer.moves.map(function (m) { return { text: m.move, path: m.move.split(/[-x]/) }; }); }
  function startsWith(path, prefix) {
    for (var i = 0; i < prefix.length; i++) if (path[i] !== prefix[i]) return false;
    return true;
  }

  function light() {
    var lit = {};
    var moves = $("edit").checked ? [] : paths();
    if (!selection.length) moves.forEach(function (m) { lit[m.path[0]] = "movable"; });
    else moves.forEach(function (m) {
      if (startsWith(m.path, selection) && m.path.length > selection.length) lit[m.path[selection.length]] = "target";
    });
    board.querySelectorAll(".hit").forEach(function (hit) {
      var point = hit.getAttribute("data-point");
      hit.setAttribute("class", "hit" + (lit[point] ? " " + lit[point] : "") + (selection.indexOf(point) >= 0 ? " chosen" : ""));
    });
  }

  function play(move) { analyse(current.answer.moves.filter(function (m) { return m.move === move; })[0].after, move, true); }

  function edit(point) {
    var tokens = current.text.trim().split(/\s+/);
    var prey = tokens[4] === "-" ? [] : tokens[4].split(",");
    var piece = $("piece").value;
    var had = prey.indexOf(point) >= 0;  // a click on a goose or hound with that piece chosen takes it off
    prey = prey.filter(function (p) { return p !== point; });
    if (piece === "predator") tokens[3] = point;
    else if (piece === "prey" && tokens[3] !== point && !had) prey.push(point);
    tokens[4] = prey.length ? prey.join(",") : "-";
    tokens[5] = tokens[6] = tokens[7] = "0";
    analyse(tokens.join(" "), "", true);
  }

  board.addEventListener("click", function (event) {
    var hit = event.target.closest ? event.target.closest("[data-point]") : null;
    if (!hit || !current) return;
    var point = hit.getAttribute("data-point");
    if ($("edit").checked) { edit(point); return; }
    var moves = paths();
    if (selection.length) {
      var next = moves.filter(function (m) { return startsWith(m.path, selection) && m.path[selection.length] === point; });
      if (next.length) {
        selection.push(point);
        var exact = next.filter(function (m) { return m.path.length === selection.length; })[0];
        var longer = next.some(function (m) { return m.path.length > selection.length; });
        if (exact && !longer) { play(exact.text); return; }
        light();
        return;
      }
      if (selection.length > 1 && point === selection[selection.length - 1]) {
        var stop = moves.filter(function (m) { return m.path.join() === selection.join(); })[0];
        if (stop) { play(stop.text); return; }
      }
    }
    selection = moves.some(function (m) { return m.path[0] === point; }) && selection[0] !== point ? [point] : [];
    light();
  });

  $("move-values").addEventListener("click", function (event) {
    var item = event.target.closest ? event.target.closest("li[data-move]") : null;
    if (item) play(item.getAttribute("data-move"));
  });
  $("back").addEventListener("click", back);
  function back() {
    if (!history.length) return;
    current = history.pop();
    analyse(current.text, current.last, false);
  }
  $("flip").addEventListener("click", function () { flipped = !flipped; analyse(current.text, current.last, false); });
  $("reset").addEventListener("click", function () { history = []; analyse(startText(), "", false); });
  $("variant").addEventListener("change", function () { history = []; drawOptions($("variant").value); analyse(startText(), "", false); });
  $("turn").addEventListener("change", function () {
    var tokens = current.text.trim().split(/\s+/);
    tokens[2] = $("turn").value;
    analyse(tokens.join(" "), "", true);
  });
  $("edit").addEventListener("change", function () { selection = []; light(); });
  $("paste").addEventListener("submit", function (event) {
    event.preventDefault();
    analyse($("position-text").value, "", true);
  });
  document.addEventListener("keydown", function (event) {
    if (event.target.tagName === "INPUT" || event.target.tagName === "SELECT") return;
    if (event.key === "ArrowLeft") back();
    else if (event.key === "f") $("flip").click();
    else if (review && (event.key === "ArrowRight" || event.key === "ArrowDown")) showPly(Math.min(review.plies.length, (reviewPly || 0) + 1));
    else if (review && event.key === "ArrowUp") showPly(Math.max(1, (reviewPly || 1) - 1));
  });

  // -- a game's review ---------------------------------------------------------------------------

  function showPly(ply) {
    if (!review || ply < 1) return;
    reviewPly = ply;
    var entry = review.plies[ply - 1];
    var before = ply === 1 ? review.start : review.plies[ply - 2].position;
    var last = ply === 1 ? "" : review.plies[ply - 2].move;
    history = [];
    analyse(before, last, false);
    document.querySelectorAll("#review-plies li").forEach(function (li) {
      li.classList.toggle("current", li.getAttribute("data-ply") === String(ply));
    });
    problem("");
    var better = entry.best && entry.best !== entry.move;  // only a move strictly better than the one played
    $("review-summary").querySelector(".ply-note").textContent = moveName(ply) + ": the " + entry.side + " played " +
      entry.move + " (" + entry.after.text + ")" + (entry.mistake ? ", a mistake" : "") +
      (better ? "; best was " + entry.best + (entry.best_value ? " (" + entry.best_value.text + ")" : "") : "") + ".";
  }

  /* `2. b1-b2` for the first side's ply of move 2, `2… c5-c4` for the other's: moves as players count them. */
  function moveName(ply) {
    return Math.ceil(ply / 2) + (ply % 2 ? ". " : "… ") + review.plies[ply - 1].move;
  }

  function loadReview() {
    var body = config.game ? { game: config.game } : { record: config.record };
    return postJson("/api/review", body).then(function (response) { return response.json(); }).then(function (answer) {
      if (answer.error) {  // the board shows the game's variant (or the default start) meanwhile
        problem(answer.error);
        analyse(answer.start || startText(), "", false).then(function () { problem(answer.error); });
        return;
      }
      review = window.fgReview = answer;
      $("review").hidden = false;
      var rows = Object.keys(answer.sides).map(function (side) {
        var s = answer.sides[side];
        return "<tr data-side='" + escapeHtml(side) + "'><td>" + escapeHtml(side) + "</td><td>" + escapeHtml(s.name) +
               "</td><td>" + s.judged + "</td><td>" + s.mistakes + "</td><td>" +
               (s.accuracy === null ? "–" : s.accuracy + "%") + "</td></tr>";
      }).join("");
      $("review-summary").innerHTML = "<table class=review-table><tr><th>side</th><th>player</th><th>judged moves</th>" +
        "<th>mistakes</th><th>accuracy</th></tr>" + rows + "</table>" +
        (answer.missing ? "<p class=hint>Some positions are not in the tables: " + escapeHtml(answer.missing) + ".</p>" : "") +
        "<p class=ply-note></p>";
      $("review-plies").innerHTML = answer.plies.map(function (p) {
        return "<li data-ply='" + p.ply + "' class='" + (p.mistake ? "mistake" : "") + "' title='" + escapeHtml(p.side) +
               ", ply " + p.ply + "'>" + escapeHtml(moveName(p.ply)) + (p.mistake ? " ?" : "") + "</li>";
      }).join("");
      var ply = parseInt(config.ply, 10);
      if (!answer.plies.length) analyse(answer.start, "", false);
      else showPly(ply >= 1 ? Math.min(ply, answer.plies.length) : 1);
    });
  }
  $("review-plies").addEventListener("click", function (event) {
    var item = event.target.closest ? event.target.closest("li[data-ply]") : null;
    if (item) showPly(parseInt(item.getAttribute("data-ply"), 10));
  });

  if (config.game || config.record) loadReview();
  else { drawOptions($("variant").value); analyse(config.position || startText(), "", false); }
})();
