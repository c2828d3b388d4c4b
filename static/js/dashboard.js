/* The cycle dashboard: countdowns to each open month's deadline, the close button's
   confirm() step, and the ranking job's progress bar, polled every second from
   /dashboard/runs/<id>.json. Every visible text comes from data-* attributes that the
   server rendered in the page's language. Without JavaScript the page refreshes itself
   while a run is active (a <noscript> meta refresh) and the server asks for confirmation. */
(function () {
  "use strict";

  function fill(template, values) {
    return template.replace(/\{(\w+)\}/g, function (_, key) {
      return key in values ? String(values[key]) : "";
    });
  }

  // --- Countdowns ---------------------------------------------------------------------------
  var countdowns = Array.prototype.slice.call(document.querySelectorAll(".countdown[data-deadline]"));
  if (countdowns.length) {
    // The server's clock, not the browser's: offset = server now - browser now at load time.
    var offset = Date.parse(countdowns[0].dataset.now) - Date.now();
    var tick = function () {
      countdowns.forEach(function (el) {
        var ms = Date.parse(el.dataset.deadline) - (Date.now() + offset);
        var left = Math.abs(ms) / 1000;
        var parts = {
          days: Math.floor(left / 86400),
          hours: Math.floor((left % 86400) / 3600),
          minutes: Math.floor((left % 3600) / 60),
          seconds: Math.floor(left % 60)
        };
        el.textContent = fill(ms > 0 ? el.dataset.left : el.dataset.ago, parts);
      });
    };
    tick();
    window.setInterval(tick, 1000);
  }

  // --- The close button: confirm() before posting -------------------------------------------
  Array.prototype.forEach.call(document.querySelectorAll("form.close-form"), function (form) {
    form.addEventListener("submit", function (event) {
      if (!window.confirm(form.dataset.confirm)) {
        event.preventDefault();
        return;
      }
      var box = form.querySelector('input[name="confirm"]');
      if (box) { box.checked = true; }  // the server-side confirmation field
    });
  });

  // --- Progress of running closes -----------------------------------------------------------
  function show(el, run) {
    var bar = el.querySelector("progress");
    bar.value = run.percent;
    bar.setAttribute("aria-valuenow", String(run.percent));
    bar.textContent = run.percent + " %";
    el.querySelector(".run-percent-value").textContent = String(run.percent);
    el.querySelector(".run-state").textContent = run.state_label;
    el.querySelector(".run-stage").textContent = run.stage_label;
    // Stage names and numbers in the page's language, as the server words them.
    el.querySelector(".run-timings").textContent = run.timings_text || "";
    var error = el.querySelector(".run-error");
    error.textContent = run.error || "";
    error.hidden = !run.error;
    el.className = "run " + run.state;
    el.dataset.finished = run.finished ? "true" : "false";
    if (run.finished && run.state === "succeeded" && run.ranking_list) {
      var result = el.querySelector(".run-result");
      var link = document.createElement("a");
      link.href = run.ranking_list.url;
      link.textContent = fill(el.dataset.published, run.ranking_list);
      result.textContent = "";
      result.appendChild(link);
      result.appendChild(document.createTextNode(" " + el.dataset.reloading));
      // The cards (open month, button, lists) change with a published list: reload them.
      window.setTimeout(function () { window.location.reload(); }, 2500);
    }
  }

  function follow(el) {
    var url = el.dataset.runUrl;
    var poll = function () {
      fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" } })
        .then(function (response) {
          if (!response.ok) { throw new Error(String(response.status)); }
          return response.json();
        })
        .then(function (run) {
          show(el, run);
          if (!run.finished) { window.setTimeout(poll, 1000); }
        })
        .catch(function () { window.setTimeout(poll, 3000); });
    };
    poll();
  }

  Array.prototype.forEach.call(document.querySelectorAll('.run[data-finished="false"]'), follow);
})();
