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

  // Keyboard players: a new board replaces the old one and the focus with it; when the
  // focus was on the board, put it back on the new one, so the next Tab reaches its moves.
  var focusOnBoard = false;
  document.addEventListener("focusin", function (event) {
    focusOnBoard = !!(event.target.closest && event.target.closest("#board"));
  });
  function refocusBoard() {
    var board = document.getElementById("board");
    var lost = !document.activeElement || document.activeElement === document.body;
    if (focusOnBoard && lost && board) board.focus({ preventScroll: true });
  }
  document.addEventListener("htmx:afterSettle", refocusBoard);
  document.addEventListener("htmx:oobAfterSwap", refocusBoard);
  document.addEventListener("htmx:wsAfterMessage", refocusBoard);
})();
