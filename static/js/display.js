// The header's display settings: each slider sets its level on <html> at once (a data attribute
// static/css/display.css maps to its CSS variable, as the server writes it: accounts/display.py),
// the theme's radio buttons set data-theme (site.css's colour scheme), and the choice is saved in
// the background; without this script the form's Save button posts it.
(function () {
  "use strict";
  var LEVELS = { contrast: true, grain: true, warmth: true };
  var THEMES = { light: true, dark: true, system: true };

  function init() {
    var form = document.querySelector("[data-display-form]");
    if (!form || !window.fetch || !window.FormData) return;
    var status = form.querySelector(".display-status");
    var timer = null;
    form.classList.add("display-live");

    function save() {
      fetch(form.action, {
        method: "POST", body: new FormData(form), credentials: "same-origin",
        headers: { "X-Requested-With": "fetch" }
      }).then(function (response) {
        status.textContent = response.ok ? status.dataset.saved : "";
      }, function () { status.textContent = ""; });
    }

    form.addEventListener("input", function (event) {
      var name = event.target.dataset && event.target.dataset.display, value = event.target.value;
      if (name === "theme" && THEMES[value]) document.documentElement.setAttribute("data-theme", value);
      else if (LEVELS[name]) document.documentElement.setAttribute("data-" + name, String(Number(value)));
      else return;
      status.textContent = "";
      clearTimeout(timer);
      timer = setTimeout(save, 400);
    });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
