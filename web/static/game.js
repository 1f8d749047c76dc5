/* One game in the browser. The server sends the whole state (board as SVG, legal moves when it is
   this seat's turn, clocks, moves) over a WebSocket; a move is made by clicking a piece and then its
   target, a capture chain landing point by landing point. */
(function () {
  "use strict";
  var gameId = decodeURIComponent(location.pathname.split("/").pop());
  var seat = new URLSearchParams(location.search).get("seat") || "";
  var board = document.getElementById("board");
  var state = null, selection = [], socket = null, clockBase = null, pending = null;
  window.fgLatency = [];  // per AI reply: ms from the click to the reply drawn, minus the AI's think time
  window.fgMessages = [];

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
  function plural(side) { return side === "geese" || side === "hounds"; }

  function connect() {
    var scheme = location.protocol === "https:" ? "wss:" : "ws:";
    socket = new WebSocket(scheme + "//" + location.host + "/ws/game/" + encodeURIComponent(gameId) +
                           (seat ? "?seat=" + encodeURIComponent(seat) : ""));
    socket.onmessage = function (event) {
      var data = JSON.parse(event.data);
      if (data.type === "state") onState(data);
      else if (data.type === "error") {
        if (data.fatal) show("banner", data.message, true); else message(data.message);
      }
    };
    socket.onclose = function () {
      if (!state || state.status !== "over") {
        show("banner", "The connection to the server is lost. Reload the page to come back: the game goes on " +
             "without you and your clock keeps running.", true);
      }
    };
  }

  function sendMove(text) {
    pending = { t0: performance.now(), index: state.moves.length + 1, drawnAt: null };
    socket.send(JSON.stringify({ type: "move", move: text }));
    selection = [];
    state.legal = [];
    show("message", "");
    render();
  }
  window.fgSendMove = function (text) { socket.send(JSON.stringify({ type: "move", move: text })); };

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
    var moves = parsed();
    if (!moves.length) {
      message("It is not your turn: the " + state.turn + (plural(state.turn) ? " are" : " is") + " to move.");
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

  var clockText = FoxgeeseReplay.clockText;

  function tick() {
    if (!state) return;
    state.sides.forEach(function (side) {
      var node = document.querySelector('.clock[data-side="' + side + '"] .time');
      if (!node) return;
      var ms = clockBase.clocks[side];
      if (clockBase.running === side) ms -= performance.now() - clockBase.at;
      node.textContent = clockText(ms);
    });
  }
  setInterval(tick, 100);

  function onState(data) {
    var fresh = !state || state.moves.length !== data.moves.length;
    state = window.fgState = data;
    clockBase = { at: performance.now(), clocks: data.clocks, running: data.running };
    if (fresh || !state.legal.length) selection = [];
    render();
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

  var drawn = { svg: null, moves: null, head: null };
  function render() {
    if (drawn.svg !== state.svg) { board.innerHTML = state.svg; drawn.svg = state.svg; }
    var moves = parsed();
    var lit = {}, chosen = {};
    if (!selection.length) {
      moves.forEach(function (m) { lit[m.path[0]] = "movable"; });
    } else {
      selection.forEach(function (p) { chosen[p] = true; });
      moves.forEach(function (m) {
        if (startsWith(m.path, selection) && m.path.length > selection.length) lit[m.path[selection.length]] = "target";
      });
    }
    board.querySelectorAll(".hit").forEach(function (hit) {
      var point = hit.getAttribute("data-point");
      hit.setAttribute("class", "hit" + (lit[point] ? " " + lit[point] : "") + (chosen[point] ? " chosen" : ""));
    });
    board.classList.toggle("my-turn", moves.length > 0);

    var seats = state.seats;
    var head = JSON.stringify([state.seats, state.you, state.running, state.status, state.turn, state.result,
                               moves.length > 0]);
    if (head !== drawn.head) { drawn.head = head; drawHead(moves); }
    drawMoves();
  }

  function drawHead(moves) {
    var seats = state.seats;
    $("title").innerHTML = state.sides.map(function (side) {
      var who = state.you === side ? "you" : seats[side].human ? "a person" : seats[side].name;
      return "<span class=seat>" + escapeHtml(side) + ": " + escapeHtml(who) + "</span>";
    }).join(" vs ") + "<div class=meta>" + escapeHtml(state.variant) + " · " + escapeHtml(state.time_control) + "</div>";

    $("clocks").innerHTML = state.sides.map(function (side) {
      var running = state.running === side ? " running" : "";
      return "<div class='clock" + running + "' data-side='" + escapeHtml(side) + "'><span class=side>" + escapeHtml(side) +
             (state.you === side ? " (you)" : "") + "</span><span class=time></span></div>";
    }).join("");
    tick();

    var status = "";
    if (state.status === "waiting") {
      status = "Waiting for every player to open their link; the clocks start when both are here.";
    } else if (state.status === "playing") {
      if (moves.length) status = "Your move: click one of your lit pieces, then where it goes.";
      else if (state.you) status = "The " + state.turn + (plural(state.turn) ? " are" : " is") + " thinking…";
      else status = "You are watching; the " + state.turn + (plural(state.turn) ? " are" : " is") + " to move.";
      state.sides.forEach(function (side) {
        if (seats[side].human && !seats[side].present && state.you !== side) {
          status += " The " + side + " player is not on the page: the game waits for them and their clock runs.";
        }
      });
    }
    $("status").textContent = status;
    if (state.status === "over") {
      show("result", escapeHtml(state.result) + (state.replay ? " <a href='" + state.replay + "'>replay the game</a>" : "") +
           " · <a href='/'>new game</a>");
      show("invite", "");
    } else {
      show("result", "");
    }
    var invites = /#invite=(.+)$/.exec(location.hash);
    if (invites && state.status === "waiting") {
      var links = JSON.parse(decodeURIComponent(invites[1]));
      show("invite", Object.keys(links).map(function (side) {
        var url = location.origin + links[side];
        return "<div class=invite>Send this link to the " + escapeHtml(side) + " player:" +
               "<input readonly class=invite-link data-side='" + escapeHtml(side) + "' value='" + escapeHtml(url) + "'></div>";
      }).join(""));
    } else if (state.status !== "waiting") {
      show("invite", "");
    }

  }

  function drawMoves() {
    var key = JSON.stringify(state.moves.slice(-2)) + state.moves.length;
    if (key === drawn.moves) return;
    drawn.moves = key;
    var list = $("moves");
    list.innerHTML = state.moves.map(function (m) {
      var think = m.think_ms === null || m.think_ms === undefined ? "" : " <span class=think>" + escapeHtml(m.think_ms) + " ms</span>";
      return "<li><span class=mover>" + escapeHtml(m.side) + "</span> " + escapeHtml(m.move) + think + "</li>";
    }).join("");
    list.scrollTop = list.scrollHeight;
  }

  connect();
})();
