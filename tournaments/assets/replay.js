/* The foxgeese replay viewer: steps through one game's plies (buttons, arrow keys, the move list).
   Data comes from tournaments/replay.py: boards[key] = [before, after] fixed SVG layers, and per ply
   the overlay SVG, the move, both clocks, the think time and the bot's info. No network. */
var FoxgeeseReplay = (function () {
  "use strict";
  var active = null;

  function clockText(ms) {
    if (ms === undefined || ms === null) return "–";
    var tenths = Math.max(0, Math.floor(ms / 100));
    var minutes = Math.floor(tenths / 600), seconds = Math.floor(tenths / 10) % 60;
    return minutes + ":" + (seconds < 10 ? "0" : "") + seconds + "." + (tenths % 10);
  }

  function infoText(info) {
    var parts = [];
    ["score", "mate", "depth", "nodes"].forEach(function (key) {
      if (info[key] !== undefined) parts.push(key + " " + info[key]);
    });
    if (info.pv && info.pv.length) parts.push("pv " + info.pv.slice(0, 10).join(" "));
    return parts.join(", ");
  }

  function element(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function mount(root, game, boards) {
    var board = boards[game.board];
    var last = game.plies.length - 1;
    var current = 0;
    root.innerHTML = "";
    root.classList.add("fg-viewer");
    var head = element("div", "fg-head");
    game.sides.forEach(function (side, index) {
      if (index) head.appendChild(document.createTextNode(" vs "));
      head.appendChild(element("span", "fg-seat", side + ": " + (game.seats[side] || "?")));
    });
    head.appendChild(element("span", "fg-meta", " · " + game.variant + (game.time_control ? " · " + game.time_control : "")));
    root.appendChild(head);
    var main = element("div", "fg-main");
    var boardBox = element("div", "fg-board");
    var panel = element("div", "fg-panel");
    main.appendChild(boardBox);
    main.appendChild(panel);
    root.appendChild(main);
    var clocks = {};
    game.sides.forEach(function (side) {
      var clock = element("div", "fg-clock");
      clock.dataset.side = side;
      clock.appendChild(element("span", "fg-clock-side", side));
      clock.appendChild(element("span", "fg-clock-time", ""));
      clocks[side] = clock;
      panel.appendChild(clock);
    });
    var controls = element("div", "fg-controls");
    var buttons = [["fg-first", "«", "first (Home)"], ["fg-prev", "‹", "back (←)"],
                   ["fg-next", "›", "forward (→)"], ["fg-last", "»", "last (End)"]];
    var byName = {};
    buttons.forEach(function (spec) {
      var button = element("button", spec[0], spec[1]);
      button.type = "button";
      button.title = spec[2];
      byName[spec[0]] = button;
      controls.appendChild(button);
    });
    var plyLabel = element("span", "fg-ply", "");
    controls.appendChild(plyLabel);
    panel.appendChild(controls);
    var detail = element("div", "fg-detail", "");
    panel.appendChild(detail);
    var list = element("ol", "fg-moves");
    var items = [null];
    for (var i = 1; i <= last; i++) {
      var ply = game.plies[i];
      var item = element("li", "fg-move" + (ply.book ? " fg-book" : ""), ply.move);
      // numbered as players count moves: `1. d4-d5` then `c3-c4`, two plies to a line
      if (i % 2) item.insertBefore(element("span", "fg-num", Math.ceil(i / 2) + ". "), item.firstChild);
      item.dataset.ply = i;
      item.title = ply.side + (ply.book ? " (opening book)" : ", " + ply.think_ms + " ms");
      list.appendChild(item);
      items.push(item);
    }
    panel.appendChild(list);
    root.appendChild(element("div", "fg-result", game.result));

    function go(index) {
      current = Math.max(0, Math.min(last, index));
      var ply = game.plies[current];
      boardBox.innerHTML = board[0] + ply.overlay + board[1];
      plyLabel.textContent = "ply " + current + " of " + last;
      var mover = current < last ? game.plies[current + 1].side : null;
      game.sides.forEach(function (side) {
        clocks[side].querySelector(".fg-clock-time").textContent = clockText(ply.clocks[side]);
        clocks[side].classList.toggle("fg-to-move", side === mover);
      });
      if (current === 0) {
        detail.textContent = "start position";
      } else if (ply.book) {
        detail.textContent = ply.side + " " + ply.move + " · from the opening";
      } else {
        var info = infoText(ply.info || {});
        detail.textContent = ply.side + " " + ply.move + " · think " + ply.think_ms + " ms" + (info ? " · " + info : "");
      }
      items.forEach(function (item, number) {
        if (item) item.classList.toggle("fg-current", number === current);
      });
      if (items[current] && items[current].scrollIntoView && list.scrollHeight > list.clientHeight) {
        var top = items[current].offsetTop - list.offsetTop;
        if (top < list.scrollTop || top > list.scrollTop + list.clientHeight - 24) list.scrollTop = top - 40;
      }
      root.dataset.ply = current;
    }

    byName["fg-first"].onclick = function () { go(0); };
    byName["fg-prev"].onclick = function () { go(current - 1); };
    byName["fg-next"].onclick = function () { go(current + 1); };
    byName["fg-last"].onclick = function () { go(last); };
    list.onclick = function (event) {
      var target = event.target.closest ? event.target.closest("[data-ply]") : null;
      if (target) go(parseInt(target.dataset.ply, 10));
    };
    var controller = {
      go: go, next: function () { go(current + 1); }, prev: function () { go(current - 1); },
      first: function () { go(0); }, last: function () { go(last); }, root: root
    };
    active = controller;
    go(0);
    return controller;
  }

  document.addEventListener("keydown", function (event) {
    if (!active || !document.body.contains(active.root) || active.root.offsetParent === null) return;
    if (event.target && /INPUT|TEXTAREA|SELECT/.test(event.target.tagName)) return;
    var keys = { ArrowLeft: active.prev, ArrowRight: active.next, Home: active.first, End: active.last };
    if (keys[event.key]) { keys[event.key](); event.preventDefault(); }
  });

  function mountFromData(rootId, dataId, index) {
    var data = JSON.parse(document.getElementById(dataId).textContent);
    return mount(document.getElementById(rootId), data.games[index], data.boards);
  }

  function escapeHtml(text) {
    return String(text === undefined || text === null ? "" : text).replace(/[&<>"']/g, function (c) {
      return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c];
    });
  }

  // clockText and escapeHtml are shared with the web app's pages (web/static/), which load this file first.
  return { mount: mount, mountFromData: mountFromData, clockText: clockText, escapeHtml: escapeHtml };
})();
