/* The games the server keeps (its SQLite store), newest first, filtered by variant, player and result. */
(function () {
  "use strict";
  var config = JSON.parse(document.getElementById("fg-config").textContent);
  function $(id) { return document.getElementById(id); }
  function escapeHtml(text) {
    return String(text).replace(/[&<>"']/g, function (c) {
      return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c];
    });
  }
  config.variants.forEach(function (id) { $("variant").add(new Option(id, id)); });
  var params = new URLSearchParams(location.search);
  ["variant", "player", "result"].forEach(function (name) { if (params.get(name)) $(name).value = params.get(name); });

  function load() {
    var query = ["variant", "player", "result"].map(function (name) {
      return name + "=" + encodeURIComponent($(name).value.trim());
    }).join("&");
    history.replaceState(null, "", "/games?" + query);
    fetch("/api/past-games?" + query).then(function (response) { return response.json(); }).then(function (answer) {
      window.fgPast = answer.games;
      $("count").textContent = answer.games.length + (answer.games.length === 1 ? " game" : " games");
      $("past").innerHTML = "<tr><th>game</th><th>players</th><th>result</th><th>when</th></tr>" + answer.games.map(function (g) {
        var seats = Object.keys(g.seats).map(function (side) { return side + ": " + g.seats[side]; }).join(" vs ");
        var when = new Date(g.created * 1000).toLocaleString();
        var result = g.status === "over" || g.status === "interrupted" ? g.result : g.status;
        return "<tr data-game='" + escapeHtml(g.id) + "'><td><a href='/game/" + encodeURIComponent(g.id) + "'>" + escapeHtml(g.variant) +
               "</a><br><span class=hint>" + g.plies + (g.plies === 1 ? " ply" : " plies") + "</span></td><td>" + escapeHtml(seats) + "</td><td>" + escapeHtml(result) +
               (g.status === "over" || g.status === "interrupted" ? " · <a href='/analysis?game=" + encodeURIComponent(g.id) + "'>analyse</a>" : "") +
               "</td><td>" + escapeHtml(when) + "</td></tr>";
      }).join("");
    });
  }
  $("filters").addEventListener("submit", function (event) { event.preventDefault(); load(); });
  load();
})();
