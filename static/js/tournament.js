// A running tournament's page: its standings and rounds (#tournament-live) poll every 15 s
// (hx-trigger in templates/tournaments/live.html; a 204 while nothing moved). Not while the tab
// is hidden; when it shows again, at once. (A condition in the trigger itself would be eval'd
// by htmx, which the page's CSP forbids.)
(function () {
  "use strict";
  document.addEventListener("htmx:beforeRequest", function (event) {
    var elt = event.detail && event.detail.elt;
    if (elt && elt.id === "tournament-live" && document.hidden) event.preventDefault();
  });
  document.addEventListener("visibilitychange", function () {
    var live = document.getElementById("tournament-live");
    if (!document.hidden && live && live.hasAttribute("hx-get") && window.htmx) {
      window.htmx.trigger(live, "tournament-poll");
    }
  });
})();
