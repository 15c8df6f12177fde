// Replays: the arrow keys step back and forth, Home and End jump (the links work without it).
(function () {
  "use strict";
  document.addEventListener("keydown", function (event) {
    if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
    if (event.target.closest && event.target.closest("input, select, textarea, summary")) return;
    var link = document.querySelector('#replay a[data-key="' + event.key + '"]');
    if (link) {
      event.preventDefault();
      link.click();
    }
  });
})();
