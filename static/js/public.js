/* Public pages: copy buttons for the badge snippets (an enhancement: the snippets are
 * read-only text fields a reader can select and copy without JavaScript). */
(function () {
  "use strict";
  var status = document.getElementById("copy-status");
  Array.prototype.forEach.call(document.querySelectorAll("button.copy[data-copy]"), function (button) {
    var field = document.getElementById(button.getAttribute("data-copy"));
    if (!field || !navigator.clipboard) { return; }
    button.hidden = false;
    button.addEventListener("click", function () {
      navigator.clipboard.writeText(field.value).then(function () {
        if (status) { status.textContent = status.getAttribute("data-copied"); }
      }, function () {
        field.select();
      });
    });
  });
  Array.prototype.forEach.call(document.querySelectorAll("textarea.snippet"), function (field) {
    field.addEventListener("focus", function () { field.select(); });
  });
})();

/* The player page's "compare with" field: while the reader types a name, suggest players
 * (GET /api/players?q=) whose federation id the chosen suggestion puts in the field. Without
 * JavaScript the field takes a federation id as it is typed. */
(function () {
  "use strict";
  var form = document.querySelector("form.compare-form[data-player-search]");
  var list = document.getElementById("compare-suggestions");
  var input = document.getElementById("compare-other");
  if (!form || !list || !input || !window.fetch) { return; }
  var url = form.getAttribute("data-player-search");
  var timer = null;
  var asked = "";
  function suggest() {
    var text = input.value.trim();
    if (text.length < 2 || /^P-\d{6}$/i.test(text) || text === asked) { return; }
    asked = text;
    fetch(url + "?page_size=8&q=" + encodeURIComponent(text), { credentials: "same-origin" })
      .then(function (response) { return response.ok ? response.json() : { results: [] }; })
      .then(function (page) {
        list.textContent = "";
        page.results.forEach(function (p) {
          var option = document.createElement("option");
          option.value = p.player_id;
          option.label = p.name + " · " + (p.club_name || "–") + " · " + p.country_name;
          option.textContent = option.label;
          list.appendChild(option);
        });
      })
      .catch(function () { list.textContent = ""; });
  }
  input.addEventListener("input", function () {
    window.clearTimeout(timer);
    timer = window.setTimeout(suggest, 200);
  });
})();
