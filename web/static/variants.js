/* The variants' facts, as the server puts them into every page (web/pageconfig.py: the element
   #fg-variants): ids, side names and their grammar, options and their schema, starts, draws.
   No page copies a variant fact; each asks FoxgeeseVariants. */
var FoxgeeseVariants = (function () {
  "use strict";
  var element = document.getElementById("fg-variants");
  var config = element ? JSON.parse(element.textContent) : { "default": "", variants: [] };

  function byId(id) {
    for (var i = 0; i < config.variants.length; i++) if (config.variants[i].id === id) return config.variants[i];
    return null;
  }
  function ids() { return config.variants.map(function (row) { return row.id; }); }
  /* [predator, prey] names of a variant (e.g. fox, geese). */
  function sides(id) { var row = byId(id); return row ? row.sides.slice() : []; }
  /* Whether a side's name takes a plural verb ("the geese win", "the fox wins"). */
  function plural(side) {
    return config.variants.some(function (row) { return row.plural[side] === true; });
  }
  function verb(side, singular, pluralForm) { return side + " " + (plural(side) ? pluralForm : singular); }

  /* The form controls of a variant's options, named by the options (a select, or a checkbox for a flag). */
  function controls(id, idPrefix) {
    var row = byId(id);
    if (!row) return "";
    return row.options.map(function (option) {
      var name = (idPrefix || "") + option.name;
      var title = " title='" + option.help.replace(/'/g, "&#39;") + "'";
      if (option.kind === "flag") {
        return "<label class=variant-option" + title + "><input type=checkbox name=" + option.name + " id=" + name +
               "> " + option.help + "</label>";  /* a flag reads as its help: "geese may also step sideways" */
      }
      var choices = option.texts.map(function (text) { return "<option>" + text + "</option>"; }).join("");
      return "<label class=variant-option" + title + ">" + option.name + " <select name=" + option.name + " id=" +
             name + ">" + choices + "</select></label>";
    }).join(" ");
  }

  /* The chosen options, as position text writes them ({geese: "15", sideways: "1", diagonals: "all"}). */
  function chosen(id, root, idPrefix) {
    var row = byId(id), found = {};
    if (!row) return found;
    row.options.forEach(function (option) {
      var node = root.querySelector("#" + (idPrefix || "") + option.name);
      if (!node) { found[option.name] = option.texts[0]; return; }
      found[option.name] = option.kind === "flag" ? (node.checked ? "1" : "0") : node.value;
    });
    return found;
  }

  /* Sets the controls to options given as position text writes them (absent ones: their defaults). */
  function show(id, root, options, idPrefix) {
    var row = byId(id);
    if (!row) return;
    row.options.forEach(function (option) {
      var node = root.querySelector("#" + (idPrefix || "") + option.name);
      if (!node) return;
      var text = options[option.name] !== undefined ? options[option.name] : option.texts[0];
      if (option.kind === "flag") node.checked = text === "1"; else node.value = text;
    });
  }

  /* The options as the server's JSON takes them: counts as numbers, flags as booleans, words as text. */
  function typed(id, options) {
    var row = byId(id), out = {};
    if (!row) return out;
    row.options.forEach(function (option) {
      var text = options[option.name];
      if (text === undefined) return;
      out[option.name] = option.kind === "flag" ? text === "1" : option.kind === "count" ? parseInt(text, 10) : text;
    });
    return out;
  }

  /* The start of a variant with these options: {text, draws} (null: no such combination). */
  function start(id, options) {
    var row = byId(id);
    if (!row) return null;
    for (var i = 0; i < row.starts.length; i++) {
      var candidate = row.starts[i], same = true;
      for (var name in candidate.options) {
        var wanted = options[name] !== undefined ? options[name] : null;
        if (wanted !== null && wanted !== candidate.options[name]) same = false;
      }
      if (same) return candidate;
    }
    return null;
  }

  /* The options a position text's OPTIONS token names (`geese=13,sideways=0`, or `-`). */
  function parseOptions(token) {
    var options = {};
    if (!token || token === "-") return options;
    token.split(",").forEach(function (pair) { var kv = pair.split("="); options[kv[0]] = kv[1]; });
    return options;
  }

  return { config: config, byId: byId, ids: ids, sides: sides, plural: plural, verb: verb, controls: controls,
           chosen: chosen, show: show, typed: typed, start: start, parseOptions: parseOptions };
})();
