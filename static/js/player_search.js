/* Find a player by name (the match form, the correction form, the what-if calculator).
 *
 * A form with data-player-search (the URL of GET /api/players) and a <datalist
 * id="player-suggestions">: its inputs marked data-field="players" hold federation ids joined
 * with "+". While the visitor types the last of them, suggest players whose name, id, club or
 * country match it; choosing one puts their federation id in its place. Each suggestion shows
 * the club and country, so two players of one name can be told apart. An enhancement only:
 * without JavaScript the fields take federation ids.
 */
(function () {
  "use strict";

  function initPlayerSearch(form) {
    var url = form.getAttribute("data-player-search");
    var list = document.getElementById("player-suggestions");
    if (!url || !list || !window.fetch) { return; }
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
      fetch(url + "?page_size=8&q=" + encodeURIComponent(part.text), { credentials: "same-origin" })
        .then(function (response) { return response.ok ? response.json() : { results: [] }; })
        .then(function (page) {
          list.textContent = "";
          page.results.forEach(function (p) {
            var option = document.createElement("option");
            option.value = part.head + p.player_id;
            option.label = p.name + " · " + (p.club_name || "–") + " · " + p.country_name;
            option.textContent = option.label;
            list.appendChild(option);
          });
        })
        .catch(function () { list.textContent = ""; });
    }
    function attach(input) { input.setAttribute("list", "player-suggestions"); }
    form.querySelectorAll('input[data-field="players"]').forEach(attach);
    form.addEventListener("input", function (event) {
      var input = event.target;
      if (!input.matches('input[data-field="players"]')) { return; }
      attach(input);
      window.clearTimeout(timer);
      timer = window.setTimeout(function () { suggest(input); }, 200);
    });
  }

  function init() {
    document.querySelectorAll("form[data-player-search]").forEach(initPlayerSearch);
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", init);
  } else {
    init();
  }
})();
