// The table page: live updates over the websocket, polling when it is down,
// and "your turn" in the title so a background tab tells the player.
(function () {
  "use strict";
  window.tableLive = false;
  var heartbeat = null;

  document.addEventListener("htmx:wsOpen", function (event) {
    window.tableLive = true;
    clearInterval(heartbeat);
    heartbeat = setInterval(function () {
      event.detail.socketWrapper.send("ping");
    }, 30000);
  });
  document.addEventListener("htmx:wsClose", function () {
    window.tableLive = false;
    clearInterval(heartbeat);
  });

  function showTurn() {
    var page = document.querySelector(".table-page");
    var board = document.getElementById("board");
    if (!page || !board) return;
    var mine = board.dataset.myTurn === "1";
    document.title = (mine ? "● " + page.dataset.turnLabel + " · " : "") + page.dataset.title;
    var badge = document.getElementById("turn-badge");
    if (badge) badge.hidden = !mine;
  }
  document.addEventListener("DOMContentLoaded", showTurn);
  document.addEventListener("htmx:afterSettle", showTurn);
  document.addEventListener("htmx:oobAfterSwap", showTurn);
})();
