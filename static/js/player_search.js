/* Find a player by name (issue 15, item 1): the type-ahead behind every field where a
 * player is entered, over GET /api/players?q= (name, federation id, club or country).
 *
 * Two kinds of field:
 * - a players field of the match and correction forms and the what-if calculator
 *   (input[data-field="players"] in a form with
 *   data-player-search): federation ids joined with "+"; while the last one is typed,
 *   players are suggested and the chosen one's id takes its place;
 * - a single lookup (input[data-player-lookup], its URL in data-player-search): the CSV
 *   preview's "find the player" box and the admin's merge form. The chosen player's id
 *   fills the field and its <output> (data-template: {id} {name} {club} {country}) says
 *   who it is, e.g. which id to put in the file.
 * Each suggestion shows the club and country, so two players of one name can be told
 * apart. Everything here is an enhancement: the server checks every id it receives.
 */
(function () {
  "use strict";

  var DELAY = 200;

  function fetchPlayers(url, text) {
    return fetch(url + "?page_size=8&q=" + encodeURIComponent(text), { credentials: "same-origin" })
      .then(function (response) { return response.ok ? response.json() : { results: [] }; })
      .then(function (page) { return page.results || []; })
      .catch(function () { return []; });
  }

  function label(p) {
    return p.name + " · " + (p.club_name || "–") + " · " + p.country_name;
  }

  function fill(list, players, value) {
    list.textContent = "";
    players.forEach(function (p) {
      var option = document.createElement("option");
      option.value = value(p);
      option.label = label(p);
      option.textContent = option.label;
      list.appendChild(option);
    });
  }

  /* --- The match form's players fields (ids joined with "+") --------------------------- */

  function initPlayersFields(form) {
    var url = form.getAttribute("data-player-search");
    var list = document.getElementById("player-suggestions");
    if (!url || !list) { return; }
    var timer = null;
    var asked = "";
    function lastPart(value) {
      var cut = Math.max(value.lastIndexOf("+"), value.lastIndexOf(","), value.lastIndexOf(";"));
      return { head: cut < 0 ? "" : value.slice(0, cut).trim() + " + ", text: value.slice(cut + 1).trim() };
    }
    function suggest(input) {
      var part = lastPart(input.value);
      if (part.text.length < 2 || /^P-\d{6}$/i.test(part.text) || part.text === asked) { return; }
      asked = part.text;
      fetchPlayers(url, part.text).then(function (players) {
        fill(list, players, function (p) { return part.head + p.player_id; });
      });
    }
    function attach(input) { input.setAttribute("list", "player-suggestions"); }
    form.querySelectorAll('input[data-field="players"]').forEach(attach);
    form.addEventListener("input", function (event) {
      var input = event.target;
      if (!input.matches('input[data-field="players"]')) { return; }
      attach(input);
      window.clearTimeout(timer);
      timer = window.setTimeout(function () { suggest(input); }, DELAY);
    });
  }

  /* --- A single lookup (one player) ---------------------------------------------------- */

  function initLookup(input) {
    var url = input.getAttribute("data-player-search");
    var list = document.getElementById(input.getAttribute("list"));
    var output = document.querySelector('output[for="' + input.id + '"]');
    if (!url || !list) { return; }
    var found = {};
    var timer = null;
    var asked = "";
    function tell() {
      var p = found[input.value.trim().toUpperCase()];
      if (!output) { return; }
      output.textContent = p ? output.getAttribute("data-template")
        .replace("{id}", p.player_id).replace("{name}", p.name)
        .replace("{club}", p.club_name || "–").replace("{country}", p.country_name) : "";
    }
    function suggest() {
      var text = input.value.trim();
      if (text.length < 2 || found[text.toUpperCase()] || text === asked) { tell(); return; }
      asked = text;
      fetchPlayers(url, text).then(function (players) {
        players.forEach(function (p) { found[p.player_id.toUpperCase()] = p; });
        fill(list, players, function (p) { return p.player_id; });
        tell();
      });
    }
    input.addEventListener("input", function () {
      tell();
      window.clearTimeout(timer);
      timer = window.setTimeout(suggest, DELAY);
    });
    input.addEventListener("change", tell);
    if (input.value.trim()) { suggest(); }
  }

  function init() {
    if (!window.fetch) { return; }
    document.querySelectorAll("form[data-player-search]").forEach(initPlayersFields);
    document.querySelectorAll("input[data-player-lookup]").forEach(initLookup);
  }

  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", init); }
  else { init(); }
})();
