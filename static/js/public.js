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
