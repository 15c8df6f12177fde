// The table page: live updates and moves over the websocket, HTTP and polling when it is down,
// clocks counted down in the browser, and "your turn" in the title so a background tab tells.
(function () {
  "use strict";
  window.tableLive = false;
  var heartbeat = null;
  var socket = null;

  function page() { return document.querySelector(".table-page"); }

  // The board's poll (#board-public's hx-trigger, every TABLE_POLL_MS): while the socket is
  // open, pushes bring every change and only a safety poll every 30 s goes out. A condition
  // in the trigger itself would be eval'd by htmx, which the page's CSP forbids.
  var SAFETY_POLL_MS = 30000;
  var lastPoll = Date.now();
  document.addEventListener("htmx:beforeRequest", function (event) {
    var elt = event.detail && event.detail.elt;
    if (!elt || elt.id !== "board-public" || event.detail.requestConfig.verb !== "get") return;
    var now = Date.now();
    if (window.tableLive && now - lastPoll < SAFETY_POLL_MS) { event.preventDefault(); return; }
    lastPoll = now;
  });

  // The socket opened (or reopened after a drop): say which board the page shows, so that a
  // move made before it connected arrives at once (games/live/consumers.py, "hello").
  document.addEventListener("htmx:wsOpen", function (event) {
    socket = event.detail.socketWrapper;
    window.tableLive = true;
    var pub = document.getElementById("board-public");
    var priv = document.getElementById("board-private");
    socket.send(JSON.stringify({
      hello: pub ? parseInt(pub.dataset.version, 10) : -1,
      digest: priv ? priv.dataset.digest : ""
    }));
    clearInterval(heartbeat);
    heartbeat = setInterval(function () { socket.send("ping"); }, 30000);
  });
  document.addEventListener("htmx:wsClose", function () {
    var wasLive = window.tableLive;
    window.tableLive = false;
    clearInterval(heartbeat);
    clearTimeout(steady);
    failures += 1;
    setSending(false); // a move sent just before may be lost: its buttons come back
    if (wasLive) pollNow();
  });

  // No live updates (Redis down: the server closes the socket with 1013, "try again later";
  // or the connection dropped): the board polls, at once and then every few seconds, and the
  // socket tries again after a pause that grows to 10 s at most, so the page goes live again
  // soon after Redis is back. A socket that stayed open a while starts the count afresh
  // (the ws extension's own count restarts at every open, even one closed at once).
  var failures = 0, steady = null;
  document.addEventListener("htmx:wsOpen", function () {
    clearTimeout(steady);
    steady = setTimeout(function () { failures = 0; }, 5000);
  });
  if (window.htmx) {
    htmx.config.wsReconnectDelay = function () {
      var most = Math.min(10000, 1000 * Math.pow(2, failures));
      return most / 2 + Math.random() * most / 2;
    };
  }
  function pollNow() {
    var pub = document.getElementById("board-public");
    var url = pub && pub.getAttribute("hx-get");
    if (url && window.htmx) htmx.ajax("GET", url, { source: pub, target: "#board", swap: "outerHTML" });
  }

  // A move goes over the open socket (the ws extension's own, as ws-send would send it): the
  // consumer plays it through the same path as the HTTP post and answers on the socket.
  // Without a socket, the form's hx-post sends it (and without JavaScript, a plain post).
  // (ws-send itself cannot share the form with hx-post: htmx lets one handler per element
  // take each submit.)
  document.addEventListener("submit", function (event) {
    var form = event.target, button = event.submitter;
    if (!form || form.id !== "board-form" || !window.tableLive || !socket) return;
    if (!button || button.name !== "action") return;
    event.preventDefault();
    event.stopPropagation(); // captured above the form: htmx's hx-post does not see it
    var version = form.elements.namedItem("version");
    socket.send(JSON.stringify({ action: button.value, version: version ? version.value : "" }), form);
    setSending(true);
  }, true);
  document.addEventListener("htmx:wsAfterMessage", function () { setSending(false); });
  function setSending(on) {
    var board = document.getElementById("board");
    if (board) board.classList.toggle("htmx-request", on);
    var form = document.getElementById("board-form");
    if (!form) return;
    form.querySelectorAll("button").forEach(function (button) {
      if (on) { if (!button.disabled) { button.dataset.sending = "1"; button.disabled = true; } }
      else if (button.dataset.sending) { delete button.dataset.sending; button.disabled = false; }
    });
  }

  // A refused move (4xx) is an answer for #board-message, not an error page: keep it from
  // django-htmx's debug script (DEBUG on), which listens on the document.
  document.addEventListener("DOMContentLoaded", function () {
    document.body.addEventListener("htmx:beforeOnLoad", function (event) {
      var xhr = event.detail.xhr;
      if (xhr && xhr.getResponseHeader("X-Refusal")) event.stopPropagation();
    });
  });

  // Never an older board over a newer one: an HTTP answer can arrive after a push that
  // brought a later version (the server's sockets skip older versions the same way).
  function versionOf(node) {
    var pub = node && (node.id === "board-public" ? node : node.querySelector && node.querySelector("#board-public"));
    return pub ? parseInt(pub.dataset.version, 10) : NaN;
  }
  function older(incoming) {
    var shown = versionOf(document), coming = versionOf(incoming);
    return !isNaN(shown) && !isNaN(coming) && coming < shown;
  }
  document.addEventListener("htmx:oobBeforeSwap", function (event) {
    var fragment = event.detail.fragment;
    if (fragment && older(fragment.firstElementChild || fragment)) event.detail.shouldSwap = false;
  });
  // A move's answer whose form was replaced meanwhile (by a push) has its board swapped with
  // the old form's detached tree as its root, where htmx finds no #board: put it in the page.
  document.addEventListener("htmx:oobErrorNoTarget", function (event) {
    var content = event.detail.content, id = content && content.id;
    var target = id && document.getElementById(id);
    if (!target || older(content)) return;
    target.replaceWith(content);
    htmx.process(content);
    showTurn();
  });

  function showTurn() {
    var table = page();
    var priv = document.getElementById("board-private");
    if (!table) return;
    var mine = !!priv && priv.dataset.myTurn === "1";
    document.title = (mine ? "● " + table.dataset.turnLabel + " · " : "") + table.dataset.title;
    var badge = document.getElementById("turn-badge");
    if (badge) badge.hidden = !mine;
  }
  document.addEventListener("DOMContentLoaded", showTurn);
  document.addEventListener("htmx:afterSettle", showTurn);
  document.addEventListener("htmx:oobAfterSwap", showTurn);

  // The invite link selects itself, ready to copy.
  document.addEventListener("focusin", function (event) {
    if (event.target.classList && event.target.classList.contains("invite")) event.target.select();
  });

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
