/* The live view of a tournament: the server follows the runner's events.jsonl and sends the state. */
(function () {
  "use strict";
  function $(id) { return document.getElementById(id); }
  var escapeHtml = FoxgeeseReplay.escapeHtml;
  var clockText = FoxgeeseReplay.clockText;
  function seats(game) {
    return Object.keys(game.seats || {}).map(function (side) { return escapeHtml(side) + " " + escapeHtml(game.seats[side]); }).join(" vs ");
  }
  window.fgLive = null;

  function draw(data) {
    window.fgLive = data;
    $("name").textContent = data.name;
    $("progress").textContent = !data.games_total ? "" : data.games_done + " of " + data.games_total + " games played" +
      (data.finished ? " · the tournament is over" : " · " + data.live.length + " in progress");
    $("problem").hidden = !data.problem;
    $("problem").textContent = data.problem || "";
    $("live").innerHTML = data.live.length ? data.live.map(function (game) {
      var clocks = Object.keys(game.clocks || {}).map(function (side) {
        return "<span class=clock-small>" + escapeHtml(side) + " " + clockText(game.clocks[side]) + "</span>";
      }).join(" ");
      return "<div class=live-game data-game='" + escapeHtml(game.id) + "'><div class=live-head><b>" + escapeHtml(game.id) +
             "</b> " + seats(game) + "</div>" + game.svg + "<div class=live-foot>ply " + escapeHtml(game.ply) +
             (game.last ? " · " + escapeHtml(game.side || "") + " " + escapeHtml(game.last) +
              (game.think_ms !== null && game.think_ms !== undefined ? " (" + escapeHtml(game.think_ms) + " ms)" : "") : "") +
             " · " + escapeHtml(game.turn) + " to move<br>" + clocks + "</div></div>";
    }).join("") : "<p class=hint>" + (data.finished ? "No game in progress: the tournament is over." : "No game in progress.") + "</p>";
    $("standings").hidden = !data.standings.length;
    $("standings").innerHTML = "<tr><th>#</th><th>player</th><th>games</th><th>points</th><th>score</th></tr>" +
      data.standings.map(function (row, index) {
        return "<tr><td>" + (index + 1) + "</td><td>" + escapeHtml(row.name) + "</td><td>" + escapeHtml(row.games) + "</td><td>" +
               escapeHtml(row.points) + "</td><td>" + (100 * row.score).toFixed(0) + "%</td></tr>";
      }).join("");
    $("ended").innerHTML = data.ended.map(function (game) {
      return "<li><a href='/tournament/games/" + encodeURIComponent(game.id) + "'>" + escapeHtml(game.id) + "</a> " +
             seats(game) + ": <b>" + escapeHtml(game.winner) + "</b> by " + escapeHtml(game.termination) +
             " after " + escapeHtml(game.plies) + (game.plies === 1 ? " ply" : " plies") + "</li>";
    }).join("");
  }

  function connect() {
    var scheme = location.protocol === "https:" ? "wss:" : "ws:";
    var socket = new WebSocket(scheme + "//" + location.host + "/ws/tournament");
    socket.onmessage = function (event) {
      var data = JSON.parse(event.data);
      if (data.type === "tournament") draw(data);
      else if (data.type === "error") { $("problem").hidden = false; $("problem").textContent = data.message; }
    };
    socket.onclose = function () {
      $("problem").hidden = false;
      $("problem").textContent = "The connection to the server is lost; reload the page.";
    };
  }
  connect();
})();
