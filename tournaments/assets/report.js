/* The HTML report's games list: a click on a game (or #game=ID in the address) opens its replay. */
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("fg-data").textContent);
  var modal = document.getElementById("fg-modal");
  var title = document.getElementById("fg-modal-title");

  function open(index) {
    var game = data.games[index];
    if (!game) return;
    title.textContent = "game " + game.id;
    modal.hidden = false;
    FoxgeeseReplay.mount(document.getElementById("fg-viewer"), game, data.boards);
    if (history.replaceState) history.replaceState(null, "", "#game=" + encodeURIComponent(game.id));
  }

  function close() {
    modal.hidden = true;
    if (history.replaceState) history.replaceState(null, "", "#games");
  }

  document.addEventListener("click", function (event) {
    var row = event.target.closest ? event.target.closest("[data-game]") : null;
    if (row && !modal.contains(row)) open(parseInt(row.dataset.game, 10));
  });
  modal.querySelector(".fg-close").onclick = close;
  modal.addEventListener("click", function (event) { if (event.target === modal) close(); });
  document.addEventListener("keydown", function (event) { if (event.key === "Escape" && !modal.hidden) close(); });

  function openFromAddress() {
    var wanted = /#game=([^&]+)/.exec(location.hash);
    if (!wanted) return;
    var id = decodeURIComponent(wanted[1]);
    data.games.forEach(function (game, index) { if (game.id === id) open(index); });
  }
  window.addEventListener("hashchange", openFromAddress);
  openFromAddress();
})();
