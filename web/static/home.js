/* The home page: a new game (variant, who plays each side, time control), a record to replay. */
(function () {
  "use strict";
  var config = JSON.parse(document.getElementById("fg-config").textContent);
  var CHOICES = [["human", "you"], ["link", "a person, by link"], ["random", "random"],
                 ["minimax:depth=2", "minimax depth 2"], ["minimax:depth=4", "minimax depth 4"],
                 ["mcts:playouts=1000", "MCTS 1000 playouts"], ["solver", "solver"], ["other", "other SPEC…"]];
  var form = document.getElementById("new-game");
  if (config.commands === "refused") {
    document.getElementById("commands-note").textContent = "This server runs no cmd: bots: its user did not start " +
      "it with --allow-commands (whoever opens its pages could run programs as that user).";
  }
  var variant = document.getElementById("variant");
  var variants = FoxgeeseVariants;
  variants.ids().forEach(function (id) { variant.add(new Option(id, id)); });

  var escapeHtml = FoxgeeseReplay.escapeHtml;

  function drawSeats() {
    var sides = variants.sides(variant.value);
    document.getElementById("seats").innerHTML = sides.map(function (side, index) {
      var options = CHOICES.map(function (choice) {
        var selected = (index === 0 ? choice[0] === "human" : choice[0] === "random") ? " selected" : "";
        return "<option value='" + choice[0] + "'" + selected + ">" + choice[1] + "</option>";
      }).join("");
      return "<label class=seat-choice>" + side + " <select name='seat-" + side + "' data-side='" + side + "'>" + options +
             "</select> <input name='spec-" + side + "' placeholder='cmd:./my-bot or minimax:depth=6' hidden size=28></label>";
    }).join("");
    document.querySelectorAll("#seats select").forEach(function (select) {
      select.onchange = function () { form.elements["spec-" + select.dataset.side].hidden = select.value !== "other"; };
    });
  }
  function drawOptions() {  /* the chosen variant's options, from its schema */
    document.getElementById("variant-options").innerHTML = variants.controls(variant.value, "option-");
  }
  variant.onchange = function () { drawOptions(); drawSeats(); };
  drawOptions();
  drawSeats();

  function problem(id, text) {
    var node = document.getElementById(id);
    node.hidden = !text;
    node.textContent = text || "";
  }

  /* The server's answer as an object: its JSON, or {error} with what it said when that is not JSON. */
  function answerOf(response) {
    return response.text().then(function (text) {
      try {
        var answer = JSON.parse(text);
        if (answer && typeof answer === "object") return answer;
      } catch (ignored) { /* not JSON: said below */ }
      return { error: "the server answered " + response.status + ": " + (text.trim().slice(0, 200) || response.statusText) };
    });
  }

  form.onsubmit = function (event) {
    event.preventDefault();
    var sides = variants.sides(variant.value);
    var players = {}, mine = null;
    sides.forEach(function (side) {
      var choice = form.elements["seat-" + side].value;
      if (choice === "human" && mine === null) mine = side;
      players[side] = choice === "human" || choice === "link" ? "human" :
                      choice === "other" ? form.elements["spec-" + side].value.trim() : choice;
    });
    var request = { variant: variant.value, tc: form.elements.tc.value.trim(), players: players,
                    takeback: form.elements.takeback.checked };
    request.options = variants.typed(variant.value, variants.chosen(variant.value, form, "option-"));
    problem("form-problem", "");
    document.getElementById("start").disabled = true;
    postJson("/api/games", request)
      .then(answerOf)
      .then(function (answer) {
        document.getElementById("start").disabled = false;
        if (answer.error) { problem("form-problem", answer.error); return; }
        var others = {};
        Object.keys(answer.links).forEach(function (side) { if (side !== mine) others[side] = answer.links[side]; });
        if (mine) {
          var hash = Object.keys(others).length ? "#invite=" + encodeURIComponent(JSON.stringify(others)) : "";
          location.href = answer.links[mine] + hash;
          return;
        }
        var box = document.getElementById("invites");
        box.hidden = false;
        box.innerHTML = "<h2>Game created</h2>" + Object.keys(others).map(function (side) {
          return "<div class=invite>Link for the " + side + " player: <input readonly class=invite-link value='" +
                 escapeHtml(location.origin + others[side]) + "'></div>";
        }).join("") + "<p><a id=watch href='" + answer.watch + "'>watch the game</a></p>";
      })
      .catch(function (error) {
        document.getElementById("start").disabled = false;
        problem("form-problem", "The server did not answer: " + error);
      });
  };

  document.getElementById("record-file").onchange = function () {
    var file = this.files[0];
    if (!file) return;
    problem("record-problem", "");
    document.getElementById("uploaded").hidden = true;
    file.text().then(function (text) {
      return postJson("/api/records", text);
    }).then(answerOf).then(function (answer) {
      if (answer.error) { problem("record-problem", answer.error); return; }
      var box = document.getElementById("uploaded");
      box.hidden = false;
      box.innerHTML = "Uploaded " + escapeHtml(file.name) + ": <a id=uploaded-replay href='" + escapeHtml(answer.url) +
                      "'>replay it</a> · <a id=uploaded-review href='" + escapeHtml(answer.analysis) +
                      "'>review it with the solver</a> (each side's mistakes and accuracy)";
    }).catch(function (error) { problem("record-problem", "Could not read that file: " + error); });
  };

  if (config.games.length) {
    document.getElementById("games-card").hidden = false;
    document.getElementById("games").innerHTML = config.games.slice().reverse().map(function (game) {
      var seats = Object.keys(game.seats).map(function (side) { return side + " " + game.seats[side]; }).join(" vs ");
      return "<li><a href='/game/" + encodeURIComponent(game.id) + "'>" + escapeHtml(game.variant) + ": " +
             escapeHtml(seats) + "</a> (" + escapeHtml(game.status) + ")</li>";
    }).join("");
  }
})();
