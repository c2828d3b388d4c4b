/* Secretary pages: live deadline countdown, side rows of the match form, checks in the browser.
 *
 * Everything here is an enhancement: without JavaScript the pages work through the server
 * (the "+ side" and "remove" buttons post the form back; the server validates everything).
 * The checks below only catch the obvious (required fields, whole-number scores, a player
 * twice, 2 to 9 sides) before a round trip; the server remains the judge. Messages come
 * translated from the page (#secretary-messages).
 */
(function () {
  "use strict";

  var messages = {};
  var catalog = document.getElementById("secretary-messages");
  if (catalog) {
    try { messages = JSON.parse(catalog.textContent); } catch (e) { messages = {}; }
  }

  function t(key, values) {
    var text = messages[key] || key;
    return text.replace(/%\((\w+)\)s/g, function (_, name) {
      return values && values[name] !== undefined ? String(values[name]) : "";
    });
  }

  /* --- Countdown ------------------------------------------------------------------------ */

  function startCountdown(box) {
    var deadline = Date.parse(box.getAttribute("data-deadline"));
    var serverNow = Date.parse(box.getAttribute("data-now"));
    var left = box.querySelector(".deadline-left");
    if (isNaN(deadline) || !left) { return; }
    // Count on the server's clock: the browser's may be wrong.
    var skew = isNaN(serverNow) ? 0 : serverNow - Date.now();
    var timer;
    function pad(n) { return n < 10 ? "0" + n : String(n); }
    function tick() {
      var ms = deadline - (Date.now() + skew);
      if (ms <= 0) {
        left.textContent = box.getAttribute("data-passed");
        box.classList.add("urgent");
        window.clearInterval(timer);
        return;
      }
      var s = Math.floor(ms / 1000);
      var days = Math.floor(s / 86400);
      var text = box.getAttribute(days === 1 ? "data-one" : "data-other") || "";
      left.textContent = text
        .replace("{days}", days)
        .replace("{hours}", Math.floor((s % 86400) / 3600))
        .replace("{minutes}", pad(Math.floor((s % 3600) / 60)))
        .replace("{seconds}", pad(s % 60));
      box.classList.toggle("urgent", ms < 48 * 3600 * 1000);
    }
    tick();
    timer = window.setInterval(tick, 1000);
  }

  /* --- Field messages ------------------------------------------------------------------- */

  function errorBox(input) {
    return document.getElementById(input.id + "_error");
  }

  function setError(input, text) {
    var box = errorBox(input);
    if (box) { box.textContent = text || ""; }
    if (text) { input.setAttribute("aria-invalid", "true"); }
    else { input.removeAttribute("aria-invalid"); }
    var field = input.closest(".field");
    if (field) { field.classList.toggle("invalid", Boolean(text)); }
    return !text;
  }

  /* --- Match form ----------------------------------------------------------------------- */

  var INTEGER = /^\s*[-+]?\d{1,9}\s*$/;

  function splitPlayers(value) {
    return value.split(/[,;+]/).map(function (p) { return p.trim(); })
      .filter(function (p) { return p !== ""; });
  }

  function initMatchForm(form) {
    form.noValidate = true; // our messages replace the browser's bubbles
    var body = document.getElementById("sides-body");
    var table = form.querySelector(".sides-table");
    var template = document.getElementById("side-row-template");
    var addButton = document.getElementById("add-side");
    var sidesError = document.getElementById("sides_error");
    var summary = document.getElementById("client-summary");
    var minSides = parseInt(table.getAttribute("data-min-sides"), 10) || 2;
    var maxSides = parseInt(table.getAttribute("data-max-sides"), 10) || 9;
    var touched = false;

    function rows() { return Array.prototype.slice.call(body.querySelectorAll("tr.side-row")); }

    function renumber() {
      rows().forEach(function (row, i) {
        row.querySelector(".side-number").textContent = String(i + 1);
        row.querySelectorAll("input, label, .field-error, button").forEach(function (el) {
          ["id", "name", "for", "aria-describedby"].forEach(function (attr) {
            var value = el.getAttribute(attr);
            if (value) { el.setAttribute(attr, value.replace(/sides-(\d+|__i__)-/g, "sides-" + i + "-")); }
          });
          if (el.classList.contains("remove-side")) { el.value = String(i); }
        });
        row.querySelectorAll("label, .remove-side .visually-hidden").forEach(function (el) {
          el.textContent = el.textContent.replace(/\d+|__n__/, String(i + 1));
        });
      });
      addButton.disabled = rows().length >= maxSides;
    }

    function addRow() {
      if (rows().length >= maxSides) { sidesError.textContent = t("tooMany", { max: maxSides }); return; }
      var html = template.innerHTML.replace(/__i__/g, String(rows().length))
        .replace(/__n__/g, String(rows().length + 1));
      body.insertAdjacentHTML("beforeend", html);
      renumber();
      sidesError.textContent = "";
      var added = rows()[rows().length - 1];
      added.querySelector("input").focus();
    }

    function removeRow(row) {
      var all = rows();
      if (all.length <= minSides) { sidesError.textContent = t("tooFew", { min: minSides }); return; }
      var index = all.indexOf(row);
      row.remove();
      renumber();
      var rest = rows();
      var next = rest[Math.min(index, rest.length - 1)];
      (next ? next.querySelector("input") : addButton).focus();
      if (touched) { validate(); }
    }

    addButton.addEventListener("click", function (event) { event.preventDefault(); addRow(); });
    body.addEventListener("click", function (event) {
      var button = event.target.closest(".remove-side");
      if (button) { event.preventDefault(); removeRow(button.closest("tr")); }
    });

    function isBlank(row) {
      return row.querySelectorAll("input")[0].value.trim() === "" &&
        row.querySelectorAll("input")[1].value.trim() === "";
    }

    // A message is shown once the field was left or the form was sent (no nagging before).
    function report(input, text) {
      // The server's message stays until the field is edited (it knows more than we do).
      if (!text && input.hasAttribute("data-server-error") && !input.hasAttribute("data-dirty")) {
        return true;
      }
      if (!touched && !input.hasAttribute("data-visited")) { text = ""; }
      setError(input, text);
      return !text;
    }

    // Returns the invalid inputs (in page order); writes the messages next to their fields.
    function validate() {
      var invalid = [];
      form.querySelectorAll(".field-grid [required]").forEach(function (input) {
        if (!report(input, input.value.trim() === "" ? t("required") : "")) { invalid.push(input); }
      });
      var all = rows();
      var filled = all.filter(function (row) { return !isBlank(row); });
      var seen = {};
      all.forEach(function (row, i) {
        var players = row.querySelector('[data-field="players"]');
        var score = row.querySelector('[data-field="score"]');
        if (isBlank(row) && filled.length >= minSides) { // an empty extra row is ignored
          report(players, ""); report(score, ""); return;
        }
        var ids = splitPlayers(players.value);
        var problem = ids.length === 0 ? t("players") : "";
        var local = {};
        ids.forEach(function (id) {
          if (problem) { return; }
          if (local[id]) { problem = t("duplicateSame", { player: id }); }
          else if (seen[id] !== undefined) { problem = t("duplicate", { player: id, side: seen[id] + 1 }); }
          local[id] = true;
        });
        ids.forEach(function (id) { if (seen[id] === undefined) { seen[id] = i; } });
        if (!report(players, problem)) { invalid.push(players); }
        var value = score.value;
        var scoreProblem = value.trim() === "" ? t("required") : (INTEGER.test(value) ? "" : t("integer"));
        if (!report(score, scoreProblem)) { invalid.push(score); }
      });
      var count = filled.length;
      var sidesProblem = count > maxSides ? t("tooMany", { max: maxSides }) :
        (count < minSides ? t("tooFew", { min: minSides }) : "");
      if (touched || !sidesProblem) { sidesError.textContent = sidesProblem; }
      if (sidesProblem && invalid.length === 0) { invalid.push(addButton); }
      return invalid;
    }

    form.addEventListener("submit", function (event) {
      var submitter = event.submitter;
      if (submitter && submitter.name === "add_side") { return; }
      touched = true;
      var invalid = validate();
      if (invalid.length) {
        event.preventDefault();
        summary.textContent = t("fixErrors");
        summary.hidden = false;
        invalid[0].focus();
      } else {
        summary.hidden = true;
      }
    });

    // Check a field when it is left, and again as it changes once it shows a message.
    form.addEventListener("focusout", function (event) {
      if (!event.target.matches("input, select, textarea")) { return; }
      event.target.setAttribute("data-visited", "");
      validate();
    });
    form.querySelectorAll('[aria-invalid="true"]').forEach(function (input) {
      input.setAttribute("data-server-error", "");
    });
    form.addEventListener("input", function (event) {
      event.target.setAttribute("data-dirty", "");
      if (touched || event.target.hasAttribute("data-visited")) { validate(); }
    });
    form.addEventListener("change", function (event) {
      if (event.target.matches("select")) { event.target.setAttribute("data-visited", ""); validate(); }
    });

    // Keep the suggested id in step with the club and date while the secretary has not edited it.
    var idInput = form.querySelector("#id_external_id");
    var clubInput = form.querySelector("#id_club");
    var dateInput = form.querySelector("#id_date");
    if (idInput && clubInput && dateInput) {
      var suggested = idInput.value;
      var number = (suggested.match(/\/t(\d+)$/) || [null, "1"])[1];
      var update = function () {
        if (idInput.value !== suggested || !clubInput.value || !dateInput.value) { return; }
        suggested = clubInput.value + "/" + dateInput.value + "/t" + number;
        idInput.value = suggested;
      };
      clubInput.addEventListener("change", update);
      dateInput.addEventListener("change", update);
    }
  }

  /* --- CSV upload ----------------------------------------------------------------------- */

  function initUpload(form) {
    var input = form.querySelector('input[type="file"]');
    var maxBytes = (parseInt(form.getAttribute("data-max-bytes"), 10) || 1024) * 1024;
    if (!input) { return; }
    function check() {
      var file = input.files && input.files[0];
      var tooLarge = file && file.size > maxBytes;
      setError(input, tooLarge ? t("fileTooLarge", { limit: maxBytes / 1024 }) : "");
      return !tooLarge;
    }
    input.addEventListener("change", check);
    form.addEventListener("submit", function (event) {
      if (!check()) { event.preventDefault(); input.focus(); }
    });
    var club = form.querySelector("#id_club");
    var link = document.querySelector('a[href*="template.csv"]');
    if (club && link) {
      club.addEventListener("change", function () {
        link.href = link.href.split("?")[0] + "?club=" + encodeURIComponent(club.value);
      });
    }
  }

  function init() {
    document.querySelectorAll("[data-deadline]").forEach(startCountdown);
    var matchForm = document.getElementById("match-form");
    if (matchForm && document.getElementById("sides-body")) { initMatchForm(matchForm); }
    document.querySelectorAll("form.upload-form").forEach(initUpload);
  }

  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", init); }
  else { init(); }
})();
