/* One game in the browser. The server sends the whole state (board as SVG, legal moves when it is
   this seat's turn, clocks, moves) over a WebSocket; a move is made by clicking a piece and then its
   target, a capture chain landing point by landing point. Actions (resign, takeback, draws, hint,
   rematch) are JSON POSTs through postJson (api.js). The moves of the game, live or over, can be
   stepped through without leaving the page; a game only the server's store knows (finished, or
   interrupted by a restart) comes embedded in the page as #fg-stored. */
(function () {
  "use strict";
  var gameId = decodeURIComponent(location.pathname.split("/").pop());
  var seat = new URLSearchParams(location.search).get("seat") || "";
  var board = document.getElementById("board");
  var state = null, selection = [], socket = null, clockBase = null, pending = null;
  var viewPly = null;  // null: the live position; else the ply shown while stepping
  var flipped = false, hintMove = null, baseTitle = document.title, wasMyTurn = false, confirmResign = false;
  var retry = 0;
  window.fgLatency = [];  // per AI reply: ms from the click to the reply drawn, minus the AI's think time
  window.fgMessages = [];
  window.fgAnimations = 0;

  function $(id) { return document.getElementById(id); }
  function show(id, html, isText) {
    var node = $(id);
    node.hidden = !html;
    if (isText) node.textContent = html || ""; else node.innerHTML = html || "";
  }
  var escapeHtml = FoxgeeseReplay.escapeHtml;
  function message(text) {
    window.fgMessages.push(text);
    show("message", text, true);
  }
  function notice(text) { show("notice", text, true); }
  // Whether a side's name takes a plural verb (the geese win, the fox wins): the variants' facts (variants.js).
  function verb(side, singular, pluralForm) { return FoxgeeseVariants.verb(side, singular, pluralForm); }
  function toMove(side) { return "the " + verb(side, "is", "are") + " to move"; }

  // -- the connection -----------------------------------------------------------------------------

  function connect() {
    var scheme = location.protocol === "https:" ? "wss:" : "ws:";
    socket = new WebSocket(scheme + "//" + location.host + "/ws/game/" + encodeURIComponent(gameId) +
                           (seat ? "?seat=" + encodeURIComponent(seat) : ""));
    socket.onopen = function () {
      retry = 0;
      if (flipped) socket.send(JSON.stringify({ type: "view", flipped: true }));
    };
    socket.onmessage = function (event) {
      var data = JSON.parse(event.data);
      if (data.type === "state") { show("banner", ""); onState(data); }
      else if (data.type === "error") {
        if (data.fatal && data.stored) { location.reload(); return; }  // the store tells how the game ended
        if (data.fatal) show("banner", data.message, true); else message(data.message);
      }
    };
    socket.onclose = function () {
      if (leaving || (state && state.status !== "playing" && state.status !== "waiting")) return;
      show("banner", "The connection to the server is lost; trying again… While the server runs, the game goes on " +
           "and the clock of the side to move keeps running.", true);
      retry += 1;
      setTimeout(connect, Math.min(5000, 500 * retry));
    };
  }

  function sendMove(text) {
    pending = { t0: performance.now(), index: state.moves.length + 1, drawnAt: null };
    socket.send(JSON.stringify({ type: "move", move: text }));
    selection = [];
    hintMove = null;
    state.legal = [];
    wasMyTurn = false;  // the reply's state may come with my next turn in it: that is a new turn
    notice("");  // a hint or an answer was about the position before this move
    document.title = baseTitle;
    show("message", "");
    render();
  }
  window.fgSendMove = function (text) { socket.send(JSON.stringify({ type: "move", move: text })); };

  function act(action) {
    notice("");
    show("message", "");
    return postJson("/api/game/" + encodeURIComponent(gameId) + "/action", { seat: seat, action: action })
      .then(function (response) { return response.json(); })
      .then(function (answer) {
        if (answer.error) { message(answer.error); return answer; }
        if (action === "hint" && answer.move) { hintMove = answer.move; render(); }
        if (answer.offered) return answer;  // the status line says the offer stands, and what became of it
        if (action === "rematch") {
          var link = answer.links && state.you ? answer.links[state.you] : "";
          if (link) { location.href = link; return answer; }
        }
        if (state.status !== "playing") return answer;  // it ended the game: the result says how
        notice(answer.ok);
        return answer;
      })
      .catch(function (error) { message("The server did not answer: " + error); });
  }
  window.fgAct = act;

  // -- clicks on the board ------------------------------------------------------------------------

  function parsed() {
    return state.legal.map(function (text) { return { text: text, path: text.split(/[-x]/) }; });
  }
  function startsWith(path, prefix) {
    for (var i = 0; i < prefix.length; i++) if (path[i] !== prefix[i]) return false;
    return true;
  }
  function sameAs(path, other) { return path.length === other.length && startsWith(path, other); }

  function onPoint(point) {
    if (!state || state.status !== "playing" || !state.you) return;
    if (viewPly !== null) { message("You are looking at an earlier move: press End (or ⏭) to come back and play."); return; }
    var moves = parsed();
    if (!moves.length) {
      message("It is not your turn: " + toMove(state.turn) + ".");
      return;
    }
    if (selection.length) {
      var longer = moves.filter(function (m) { return startsWith(m.path, selection) && m.path.length > selection.length; });
      if (longer.some(function (m) { return m.path[selection.length] === point; })) {
        selection.push(point);
        var complete = moves.filter(function (m) { return sameAs(m.path, selection); })[0];
        var further = moves.some(function (m) { return startsWith(m.path, selection) && m.path.length > selection.length; });
        if (complete && !further) { sendMove(complete.text); return; }
        if (complete) message("Jump on (lit points), or click " + point + " again to stop there.");
        render();
        return;
      }
      if (selection.length > 1 && point === selection[selection.length - 1]) {
        var stop = moves.filter(function (m) { return sameAs(m.path, selection); })[0];
        if (stop) { sendMove(stop.text); return; }
      }
    }
    if (selection.length === 1 && point === selection[0]) {
      selection = [];  // a second click on the chosen piece puts it back
    } else if (moves.some(function (m) { return m.path[0] === point; })) {
      selection = [point];
      show("message", "");
    } else {
      selection = [];
      message(point + ": none of your pieces can move from there; click one of the lit pieces.");
    }
    render();
  }

  board.addEventListener("click", function (event) {
    var hit = event.target.closest ? event.target.closest("[data-point]") : null;
    if (hit) onPoint(hit.getAttribute("data-point"));
  });

  // -- clocks, title, sound ------------------------------------------------------------------------

  var clockText = FoxgeeseReplay.clockText;

  function tick() {
    if (!state) return;
    state.sides.forEach(function (side) {
      var node = document.querySelector('.clock[data-side="' + side + '"] .time');
      if (!node) return;
      var ms = clockBase.clocks[side];
      if (clockBase.running === side) ms -= performance.now() - clockBase.at;
      node.textContent = clockText(Math.max(0, ms));
    });
  }
  setInterval(tick, 100);

  var audio = null;
  function beep() {
    if (!$("sound").checked) return;
    try {
      audio = audio || new (window.AudioContext || window.webkitAudioContext)();
      var oscillator = audio.createOscillator(), gain = audio.createGain();
      oscillator.frequency.value = 880;
      gain.gain.setValueAtTime(0.08, audio.currentTime);
      gain.gain.exponentialRampToValueAtTime(0.0001, audio.currentTime + 0.18);
      oscillator.connect(gain).connect(audio.destination);
      oscillator.start();
      oscillator.stop(audio.currentTime + 0.2);
      window.fgBeeps = (window.fgBeeps || 0) + 1;
    } catch (error) { /* no sound on this browser: the title still says it */ }
  }
  $("sound").checked = localStorage.getItem("foxgeese-sound") === "on";
  $("sound").addEventListener("change", function () {
    localStorage.setItem("foxgeese-sound", $("sound").checked ? "on" : "off");
  });

  // -- a new state ---------------------------------------------------------------------------------

  function onState(data) {
    var before = state ? state.moves.length : null;
    if (state && state.draw_offer && state.draw_offer === state.you && data.draw_offer !== state.you) notice("");
    if (state && state.status === "playing" && data.status !== "playing") notice("");  // the result says it now
    var fresh = !state || state.moves.length !== data.moves.length;
    state = window.fgState = data;
    flipped = !!data.flipped;
    clockBase = { at: performance.now(), clocks: data.clocks, running: data.running };
    if (fresh || !state.legal.length) { selection = []; hintMove = null; }
    if (viewPly !== null && viewPly > state.moves.length) viewPly = null;
    var myTurn = state.legal.length > 0;
    document.title = (myTurn ? "● Your turn · " : "") + baseTitle;
    if (myTurn && !wasMyTurn) beep();
    wasMyTurn = myTurn;
    render();
    if (viewPly === null && before !== null && state.moves.length > before) animateLast();
    if (pending && state.moves.length > pending.index && pending.drawnAt === null) {
      var waiting = pending;
      requestAnimationFrame(function () { waiting.drawnAt = performance.now(); measure(); });
    } else {
      measure();
    }
  }

  function measure() {
    if (!pending || pending.drawnAt === null) return;
    var reply = state.moves[pending.index];
    if (!reply || reply.think_ms === null || reply.think_ms === undefined) return;
    window.fgLatency.push(pending.drawnAt - pending.t0 - reply.think_ms);
    pending = null;
  }

  function pointXY(point) {
    var hit = board.querySelector('.hit[data-point="' + point + '"]');
    return hit ? [parseFloat(hit.getAttribute("cx")), parseFloat(hit.getAttribute("cy"))] : null;
  }

  /* The last move's piece slides along its path (a capture chain landing point by landing point). */
  function animateLast() {
    var last = state.moves[state.moves.length - 1];
    var path = last.move.split(/[-x]/);
    var piece = board.querySelector('use.piece[data-point="' + path[path.length - 1] + '"]');
    var points = path.map(pointXY);
    if (!piece || !piece.animate || points.some(function (p) { return !p; })) return;
    var end = points[points.length - 1];
    var frames = points.map(function (p) { return { transform: "translate(" + (p[0] - end[0]) + "px," + (p[1] - end[1]) + "px)" }; });
    piece.animate(frames, { duration: 160 * (points.length - 1), easing: "ease-out" });
    window.fgAnimations += 1;
  }

  // -- drawing -------------------------------------------------------------------------------------

  var drawn = { svg: null, moves: null, head: null, step: null };
  function render() {
    var stepping = viewPly !== null;
    if (!stepping && drawn.svg !== state.svg) { board.innerHTML = state.svg; drawn.svg = state.svg; }
    var moves = stepping ? [] : parsed();
    var lit = {}, chosen = {};
    if (!selection.length) {
      moves.forEach(function (m) { lit[m.path[0]] = "movable"; });
    } else {
      selection.forEach(function (p) { chosen[p] = true; });
      moves.forEach(function (m) {
        if (startsWith(m.path, selection) && m.path.length > selection.length) lit[m.path[selection.length]] = "target";
      });
    }
    if (hintMove && !stepping) hintMove.split(/[-x]/).forEach(function (p) { lit[p] = (lit[p] || "") + " hinted"; });
    board.querySelectorAll(".hit").forEach(function (hit) {
      var point = hit.getAttribute("data-point");
      hit.setAttribute("class", "hit" + (lit[point] ? " " + lit[point] : "") + (chosen[point] ? " chosen" : ""));
    });
    board.classList.toggle("my-turn", moves.length > 0);
    board.classList.toggle("stepping", stepping);

    var head = JSON.stringify([state.seats, state.you, state.running, state.status, state.turn, state.result,
                               moves.length > 0, state.draw_offer, state.draw_refused, state.rematch, state.replay,
                               state.material, viewPly, hintMove]);
    if (head !== drawn.head) { drawn.head = head; drawHead(moves); drawActions(moves); }
    drawMoves();
    drawSteps();
  }

  function seatName(side) {
    var seats = state.seats;
    if (state.you === side) return "you";
    return seats[side].human ? "a person" : seats[side].name;
  }

  function drawHead(moves) {
    $("title").innerHTML = state.sides.map(function (side) {
      return "<span class=seat>" + escapeHtml(side) + ": " + escapeHtml(seatName(side)) + "</span>";
    }).join(" vs ") + "<div class=meta>" + escapeHtml(state.variant) + " · " + escapeHtml(state.time_control) + "</div>";

    $("clocks").innerHTML = state.sides.map(function (side) {
      var running = state.running === side ? " running" : "";
      return "<div class='clock" + running + "' data-side='" + escapeHtml(side) + "'><span class=side>" + escapeHtml(side) +
             (state.you === side ? " (you)" : "") + "</span><span class=time></span></div>";
    }).join("");
    tick();
    $("material").textContent = viewPly === null ? state.material : ($("material").dataset.step || "");

    var status = "";
    if (state.status === "waiting") {
      status = "Waiting for every player to open their link; the clocks start when both are here.";
    } else if (state.status === "playing") {
      var away = function (side) { return state.seats[side].human && !state.seats[side].present && state.you !== side; };
      if (moves.length) status = "Your move: click one of your lit pieces, then where it goes.";
      else if (state.you && away(state.turn)) status = "The " + verb(state.turn, "is", "are") + " to move.";
      else if (state.you) status = "The " + verb(state.turn, "is", "are") + " thinking…";
      else status = "You are watching; " + toMove(state.turn) + ".";
      state.sides.forEach(function (side) {
        if (away(side)) status += " The " + side + " player is not on the page: the game waits for them and their clock runs.";
      });
      status += drawNews();
    }
    $("status").textContent = status;
    if (state.status === "over" || state.status === "interrupted") {
      var links = [];
      if (state.replay) links.push("<a href='" + escapeHtml(state.replay) + "'>replay the game</a>");
      links.push("<a id=analyse-link href='/analysis?game=" + encodeURIComponent(state.id) + "'>analyse the game</a>");
      links.push("<a href='/'>new game</a>");
      show("result", escapeHtml(state.result) + " " + links.join(" · "));
      $("result").classList.toggle("interrupted", state.status === "interrupted");
      show("invite", "");
    } else {
      show("result", "");
    }
    var invites = /#invite=(.+)$/.exec(location.hash);
    if (invites && state.status === "waiting") {
      var others = JSON.parse(decodeURIComponent(invites[1]));
      show("invite", Object.keys(others).map(function (side) {
        var url = location.origin + others[side];
        return "<div class=invite>Send this link to the " + escapeHtml(side) + " player:" +
               "<input readonly class=invite-link data-side='" + escapeHtml(side) + "' value='" + escapeHtml(url) + "'></div>";
      }).join(""));
    } else if (state.status !== "waiting") {
      show("invite", "");
    }
    $("watch-link").href = state.watch || ("/game/" + encodeURIComponent(state.id));
  }

  /* What became of a draw offer, for this page's seat (or a watcher): it stands, or it was turned down. */
  function drawNews() {
    var offer = state.draw_offer, refused = state.draw_refused;
    var other = function (side) { return state.sides[0] === side ? state.sides[1] : state.sides[0]; };
    if (offer) {
      if (offer === state.you) return " You offer a draw; it stands until the " + verb(other(offer), "moves", "move") + ".";
      if (state.you) return " The " + verb(offer, "offers", "offer") + " a draw: accept or decline it (a move declines it too).";
      return " The " + verb(offer, "offers", "offer") + " a draw.";
    }
    if (!refused) return "";
    var by = other(refused.offer), how = refused.how === "declined" ? " declined " : " moved on instead of accepting ";
    if (refused.offer === state.you) return " The " + by + how + "your draw offer.";
    if (by === state.you) return " You" + how + "the " + refused.offer + "'s draw offer.";
    return " The " + by + how + "the " + refused.offer + "'s draw offer.";
  }

  /* The buttons a seat has now; each carries its action in data-action (no inline handlers). */
  function drawActions(moves) {
    var buttons = [];
    var playing = state.status === "playing", over = state.status === "over" || state.status === "interrupted";
    if (state.you && playing) {
      buttons.push(confirmResign ? ["resign", "really resign?", "danger"] : ["ask-resign", "resign", ""]);
      if (state.takeback) buttons.push(["takeback", "take back", ""]);
      if (state.against_ai && moves.length) buttons.push(["hint", "hint", ""]);
      if (state.draws) {
        if (state.draw_offer && state.draw_offer !== state.you) {
          buttons.push(["accept-draw", "accept the draw", ""], ["decline-draw", "decline", ""]);
        } else if (!state.draw_offer) {
          buttons.push(["offer-draw", "offer a draw", ""]);
        }
        buttons.push(["claim-draw", "claim a draw", ""]);
      }
    }
    if (state.you && over) {  // a stored game's page knows "you" only from its seat's link
      buttons.push(["rematch", state.rematch ? "play the rematch" : "rematch (roles swapped)", ""]);
    }
    var html = buttons.map(function (b) {
      return "<button type=button class='act " + b[2] + "' data-action='" + b[0] + "'>" + escapeHtml(b[1]) + "</button>";
    }).join("");
    if (!state.you && state.rematch && over) {
      html += " <a href='" + escapeHtml(state.rematch) + "'>watch the rematch</a>";
    }
    $("actions").innerHTML = html;
    $("type-move").hidden = !(state.you && playing);
  }

  $("actions").addEventListener("click", function (event) {
    var button = event.target.closest ? event.target.closest("button[data-action]") : null;
    if (!button) return;
    var action = button.getAttribute("data-action");
    if (action === "ask-resign") { confirmResign = true; drawn.head = null; render(); return; }
    confirmResign = false;
    if (action === "rematch" && state.rematch) { location.href = state.rematch; return; }
    drawn.head = null;
    act(action);
  });

  /* The moves as players count them: one numbered line per move, the first side's ply then the other's
     (`1. b1-b2 c5-c4`); each ply is clicked to step to it. */
  function drawMoves() {
    var key = JSON.stringify(state.moves.slice(-2)) + state.moves.length + ":" + viewPly;
    if (key === drawn.moves) return;
    drawn.moves = key;
    var list = $("moves");
    var current = viewPly === null ? state.moves.length : viewPly;
    var first = state.moves.length ? state.moves[0].side : "";
    $("moves-head").hidden = !first;
    $("moves-head").innerHTML = first ? "<span>" + escapeHtml(first) + "</span><span>" +
      escapeHtml(first === state.sides[0] ? state.sides[1] : state.sides[0]) + "</span>" : "";
    var lines = [];
    state.moves.forEach(function (m, index) {
      var think = m.think_ms === null || m.think_ms === undefined ? "" : " <span class=think>" + escapeHtml(m.think_ms) + " ms</span>";
      var half = "<span class='half" + (index + 1 === current ? " current" : "") + "' data-ply='" + (index + 1) + "' title='" +
                 escapeHtml(m.side) + ", ply " + (index + 1) + "'>" + escapeHtml(m.move) + think + "</span>";
      if (index % 2 === 0) lines.push(half); else lines[lines.length - 1] += " " + half;
    });
    list.innerHTML = lines.map(function (line, index) {
      return "<li><span class=num>" + (index + 1) + ".</span>" + line + "</li>";
    }).join("");
    if (viewPly === null) list.scrollTop = list.scrollHeight;
  }

  $("moves").addEventListener("click", function (event) {
    var item = event.target.closest ? event.target.closest("[data-ply]") : null;
    if (item) stepTo(parseInt(item.getAttribute("data-ply"), 10));
  });

  /* `2. b1-b2` for the first side's ply of move 2, `2… c5-c4` for the other's; `start` before any. */
  function moveName(ply) {
    if (!ply) return "start";
    return Math.ceil(ply / 2) + (ply % 2 ? ". " : "… ") + state.moves[ply - 1].move;
  }

  // -- stepping through the moves ------------------------------------------------------------------

  function drawSteps() {
    var total = state.moves.length;
    var shown = viewPly === null ? total : viewPly;
    $("ply").textContent = moveName(shown) + (viewPly === null && state.status === "playing" ? " (live)" : "");
    $("ply").title = "ply " + shown + " of " + total;
    $("step-first").disabled = $("step-back").disabled = (viewPly === null ? total : viewPly) === 0;
    $("step-next").disabled = $("step-live").disabled = viewPly === null;
  }

  function positionAt(ply) {
    return ply === 0 ? state.start : state.moves[ply - 1].position;
  }

  function stepTo(ply) {
    if (!state) return;
    var total = state.moves.length;
    ply = Math.max(0, Math.min(total, ply));
    if (ply === total) { viewPly = null; drawn.svg = null; drawn.head = null; render(); return; }
    viewPly = ply;
    var position = positionAt(ply);
    var query = "position=" + encodeURIComponent(position) + (ply ? "&last=" + encodeURIComponent(state.moves[ply - 1].move) : "") +
                (flipped ? "&flip=1" : "");
    fetch("/api/board?" + query).then(function (response) { return response.json(); }).then(function (answer) {
      if (viewPly !== ply || !answer.svg) return;
      board.innerHTML = answer.svg;
      drawn.svg = null;
      $("material").dataset.step = answer.material;
      window.fgStepShown = ply;
      drawn.head = null;
      render();
    });
    render();
  }
  window.fgStepTo = stepTo;

  function current() { return viewPly === null ? state.moves.length : viewPly; }
  $("step-first").addEventListener("click", function () { stepTo(0); });
  $("step-back").addEventListener("click", function () { stepTo(current() - 1); });
  $("step-next").addEventListener("click", function () { stepTo(current() + 1); });
  $("step-live").addEventListener("click", function () { stepTo(state.moves.length); });

  function flip() {
    flipped = !flipped;
    if (state && !state.stored && socket && socket.readyState === 1) {
      socket.send(JSON.stringify({ type: "view", flipped: flipped }));
    } else if (state) {
      fetch("/api/board?position=" + encodeURIComponent(state.position) + (flipped ? "&flip=1" : "")).then(function (r) {
        return r.json();
      }).then(function (answer) { state.svg = answer.svg; state.flipped = flipped; drawn.svg = null; render(); });
    }
    if (viewPly !== null) stepTo(viewPly);
  }
  $("flip").addEventListener("click", flip);

  document.addEventListener("keydown", function (event) {
    if (!state || event.target.tagName === "INPUT" || event.altKey || event.ctrlKey || event.metaKey) return;
    var keys = { ArrowLeft: -1, ArrowRight: 1 };
    if (event.key in keys) { stepTo(current() + keys[event.key]); event.preventDefault(); }
    else if (event.key === "Home") { stepTo(0); event.preventDefault(); }
    else if (event.key === "End") { stepTo(state.moves.length); event.preventDefault(); }
    else if (event.key === "f") flip();
    else if (event.key === "Escape") { selection = []; render(); }
  });

  $("type-move").addEventListener("submit", function (event) {
    event.preventDefault();
    var text = $("move-text").value.trim().toLowerCase();
    if (!text) return;
    if (state.legal.indexOf(text) >= 0) { $("move-text").value = ""; sendMove(text); return; }
    if (!state.legal.length) { message("It is not your turn: " + toMove(state.turn) + "."); return; }
    socket.send(JSON.stringify({ type: "move", move: text }));  // the server says what is wrong with it
  });

  // Leaving the page closes its socket at once, so the seat is free for the next page that opens it
  // (a page kept in the back-forward cache would otherwise hold it); coming back reconnects.
  var leaving = false;
  window.addEventListener("pagehide", function () { leaving = true; if (socket) socket.close(); });
  window.addEventListener("pageshow", function (event) {
    if (event.persisted && !document.getElementById("fg-stored")) { leaving = false; connect(); }
  });

  var stored = document.getElementById("fg-stored");
  if (stored) {
    onState(JSON.parse(stored.textContent));
  } else {
    connect();
  }
})();
