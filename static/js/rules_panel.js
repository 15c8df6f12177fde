// The rules panel at the table (a <details>): Esc closes it and gives the focus back to its toggle.
(function () {
  "use strict";
  document.addEventListener("keydown", function (event) {
    if (event.key !== "Escape") return;
    var panel = document.getElementById("rules-panel");
    if (!panel || !panel.open) return;
    panel.open = false;
    panel.querySelector("summary").focus();
  });
})();
