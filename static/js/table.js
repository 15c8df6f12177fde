// The table page: live updates and moves over the websocket, HTTP and polling when it is down,
// "your turn" in the title so a background tab tells, a refused move's reason kept in view,
// "Confirm my moves", and the focus kept on the board for keyboard players. (Its clocks count
// down in clocks.js.) The board's parts are swapped at any moment, by htmx and by pushes, so
// everything here listens on the document and finds the parts when it needs them.
//
// Sections, each after the ones it uses: the page's state; the title; a refused move's
// reason; the socket (open, closed, reconnecting, the board's poll); moves over the socket;
// older boards never shown over newer ones; the invite link; "Confirm my moves"; the focus.
(function () {
  "use strict";

  // -- The page's state ------------------------------------------------------------------

  window.tableLive = false; // the socket is open: pushes bring every change (tests read it)
  var socket = null; // the ws extension's socket wrapper, from its last open
  var heartbeat = null; // the open socket's ping, every 30 s
  var failures = 0; // drops in a row: the pause before the next try grows with them
  var steady = null; // the timer that starts that count afresh once a socket stayed open
  var SAFETY_POLL_MS = 30000;
  var lastPoll = Date.now(); // when the board last polled
  var placing = false; // the refused move's reason is placed again at the next frame
  var coarse = window.matchMedia ? window.matchMedia("(pointer: coarse)") : null;
  var chosen = null; // "Confirm my moves": the move chosen, waiting for Play
  var playing = null; // the chosen move that Play is clicking
  var focusOnBoard = false; // the focus was on the board when it was last moved

  function page() { return document.querySelector(".table-page"); }

  // -- "Your turn" in the title and the badge --------------------------------------------

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

  // -- A refused move's reason -----------------------------------------------------------
  // #board-message, after the board in the page, stays in the viewport until it is read: just
  // above the docked moves (.board-dock), wherever they are on the screen, or at its bottom
  // (site.css: bottom: var(--dock-space)). It goes with the next move, or with its close
  // button. Pushes never replace it; an answer over the socket does.

  function messageBox() { return document.getElementById("board-message"); }
  function clearMessage() {
    var box = messageBox();
    if (box && box.firstChild) box.innerHTML = "";
  }
  function placeMessage() {
    var table = page(), box = messageBox();
    if (!table || !box || !box.firstChild) return;
    var dock = document.querySelector("#board .board-dock"), space = 0;
    if (dock) {
      var top = dock.getBoundingClientRect().top;
      if (top > 0) space = Math.max(0, Math.min(window.innerHeight, window.innerHeight - top));
    }
    // The CSSOM, not a style attribute (which the CSP forbids): a custom property only.
    table.style.setProperty("--dock-space", Math.round(space) + "px");
  }
  function showMessage() {
    var table = page(), box = messageBox();
    if (!table || !box) return;
    var message = box.querySelector(".message");
    if (message && !box.querySelector(".message-close")) {
      var close = document.createElement("button");
      close.type = "button";
      close.className = "message-close";
      close.setAttribute("aria-label", table.dataset.closeLabel || "×"); // its × is site.css's
      box.appendChild(close);
    }
    placeMessage();
  }
  function placeSoon() {
    if (placing) return;
    placing = true;
    requestAnimationFrame(function () { placing = false; placeMessage(); });
  }
  window.addEventListener("scroll", placeSoon, { passive: true });
  window.addEventListener("resize", placeSoon);
  document.addEventListener("DOMContentLoaded", showMessage);
  document.addEventListener("htmx:afterSettle", showMessage);
  document.addEventListener("htmx:oobAfterSwap", showMessage);
  document.addEventListener("htmx:wsAfterMessage", showMessage);
  document.addEventListener("click", function (event) {
    var close = event.target.closest && event.target.closest(".message-close");
    if (!close || !close.closest("#board-message")) return;
    clearMessage();
    var board = document.getElementById("board");
    if (board) board.focus({ preventScroll: true });
  });

  // A refused move (4xx) is an answer for #board-message, not an error page: keep it from
  // django-htmx's debug script (DEBUG on), which listens on the document.
  document.addEventListener("DOMContentLoaded", function () {
    document.body.addEventListener("htmx:beforeOnLoad", function (event) {
      var xhr = event.detail.xhr;
      if (xhr && xhr.getResponseHeader("X-Refusal")) event.stopPropagation();
    });
  });

  // -- The socket, and the board's poll while it is down ---------------------------------

  // A move on its way: the board shows it, and its buttons wait for the answer.
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
  function pollNow() {
    var pub = document.getElementById("board-public");
    var url = pub && pub.getAttribute("hx-get");
    if (url && window.htmx) htmx.ajax("GET", url, { source: pub, target: "#board", swap: "outerHTML" });
  }

  // The socket opened (or reopened after a drop): say which board the page shows, so that a
  // move made before it connected arrives at once (games/live/consumers.py, "hello"); ping it
  // every 30 s; and once it has stayed open 5 s, count its drops afresh.
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
    clearTimeout(steady);
    steady = setTimeout(function () { failures = 0; }, 5000);
  });

  // No live updates (Redis down: the server closes the socket with 1013, "try again later";
  // or the connection dropped): the board polls, at once and then every few seconds, and the
  // socket tries again after a pause that grows to 10 s at most, so the page goes live again
  // soon after Redis is back. A socket that stayed open a while starts the count afresh
  // (the ws extension's own count restarts at every open, even one closed at once).
  document.addEventListener("htmx:wsClose", function () {
    var wasLive = window.tableLive;
    window.tableLive = false;
    clearInterval(heartbeat);
    clearTimeout(steady);
    failures += 1;
    setSending(false); // a move sent just before may be lost: its buttons come back
    if (wasLive) pollNow();
  });
  if (window.htmx) {
    htmx.config.wsReconnectDelay = function () {
      var most = Math.min(10000, 1000 * Math.pow(2, failures));
      return most / 2 + Math.random() * most / 2;
    };
  }

  // The board's poll (#board-public's hx-trigger, every TABLE_POLL_MS): while the socket is
  // open, pushes bring every change and only a safety poll every 30 s goes out. A condition
  // in the trigger itself would be eval'd by htmx, which the page's CSP forbids.
  document.addEventListener("htmx:beforeRequest", function (event) {
    var elt = event.detail && event.detail.elt;
    if (!elt || elt.id !== "board-public" || event.detail.requestConfig.verb !== "get") return;
    var now = Date.now();
    if (window.tableLive && now - lastPoll < SAFETY_POLL_MS) { event.preventDefault(); return; }
    lastPoll = now;
  });

  // -- Moves over the socket -------------------------------------------------------------
  // A move goes over the open socket (the ws extension's own, as ws-send would send it): the
  // consumer plays it through the same path as the HTTP post and answers on the socket.
  // Without a socket, the form's hx-post sends it (and without JavaScript, a plain post).
  // (ws-send itself cannot share the form with hx-post: htmx lets one handler per element
  // take each submit.)
  document.addEventListener("submit", function (event) {
    var form = event.target, button = event.submitter;
    if (form && form.id === "board-form") clearMessage(); // the next move: the last refusal goes
    if (!form || form.id !== "board-form" || !window.tableLive || !socket) return;
    if (!button || button.name !== "action") return;
    event.preventDefault();
    event.stopPropagation(); // captured above the form: htmx's hx-post does not see it
    var version = form.elements.namedItem("version");
    socket.send(JSON.stringify({ action: button.value, version: version ? version.value : "" }), form);
    setSending(true);
  }, true);
  document.addEventListener("htmx:wsAfterMessage", function () { setSending(false); });

  // -- Never an older board over a newer one ---------------------------------------------
  // An HTTP answer can arrive after a push that brought a later version (the server's
  // sockets skip older versions the same way).
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

  // -- The invite link selects itself, ready to copy -------------------------------------
  document.addEventListener("focusin", function (event) {
    if (event.target.classList && event.target.classList.contains("invite")) event.target.select();
  });

  // -- "Confirm my moves" ----------------------------------------------------------------
  // The player's setting, on .table-page's data-confirm: on, off, or auto, which is on for a
  // touch screen. A first click (or Enter, or Space) on a move only chooses it, and Play, or
  // the same move again, plays it. Playing is a click on the chosen move's own button, so a
  // move leaves by the one path every move takes (the submit above, or htmx's hx-post). A
  // button with data-confirms is itself the second step of a choice made before (Point City's
  // payments, after two cards were picked): it plays at once.
  function confirming() {
    var table = page(), mode = table ? table.dataset.confirm : "off";
    return mode === "on" || (mode === "auto" && !!coarse && coarse.matches);
  }
  function markConfirming() {
    var table = page();
    if (table) table.dataset.confirming = confirming() ? "1" : "";
  }
  function isMove(button) {
    return !!button && button.name === "action" && !!button.form && button.form.id === "board-form" &&
      !button.hasAttribute("data-confirms");
  }
  function moveName(button) {
    var label = button.getAttribute("aria-label");
    if (label) return label;
    var copy = button.cloneNode(true);
    copy.querySelectorAll("[aria-hidden='true']").forEach(function (node) { node.remove(); });
    return copy.textContent.replace(/\s+/g, " ").trim();
  }
  function unchoose() {
    if (!chosen) return;
    chosen.removeAttribute("aria-pressed");
    chosen.classList.remove("move-chosen");
    document.querySelectorAll(".move-confirm").forEach(function (bar) { bar.remove(); });
    chosen = null;
  }
  function choose(button) {
    unchoose();
    var table = page();
    chosen = button;
    button.setAttribute("aria-pressed", "true");
    button.classList.add("move-chosen");
    var bar = document.createElement("div");
    bar.className = "move-confirm";
    var what = document.createElement("span");
    what.className = "move-chosen-name";
    what.textContent = (table.dataset.chosenLabel || "") + " " + moveName(button);
    var play = document.createElement("button");
    play.type = "button";
    play.className = "move-play";
    play.textContent = table.dataset.playLabel || "Play";
    var cancel = document.createElement("button");
    cancel.type = "button";
    cancel.className = "move-cancel secondary";
    cancel.textContent = table.dataset.cancelLabel || "Cancel";
    bar.append(what, play, cancel);
    // In the docked moves when the move is one of them or shares their section, else at the
    // end of the move's section (where site.css holds the bar in the viewport).
    var section = button.closest("section");
    var home = button.closest(".board-dock") || (section && section.querySelector(".board-dock")) ||
      section || button.form;
    home.appendChild(bar);
    placeMessage();
  }
  // A new private part brings new moves: a choice among the old ones is gone with them.
  function forgetGoneChoice() {
    if (chosen && !document.body.contains(chosen)) { chosen = null; }
  }
  document.addEventListener("DOMContentLoaded", markConfirming);
  if (coarse && coarse.addEventListener) coarse.addEventListener("change", markConfirming);
  document.addEventListener("click", function (event) {
    var button = event.target.closest && event.target.closest("button");
    if (!button) return;
    if (button.classList.contains("move-play") && chosen) {
      event.stopPropagation(); // htmx's form would take this button for the one that submits
      var move = chosen;
      unchoose();
      if (document.body.contains(move) && !move.disabled) {
        playing = move;
        try { move.click(); } finally { playing = null; }
      }
      return;
    }
    if (button.classList.contains("move-cancel")) {
      event.stopPropagation();
      var was = chosen;
      unchoose();
      if (was && document.body.contains(was)) was.focus();
      return;
    }
    if (button === playing || !isMove(button) || !confirming()) return;
    if (button === chosen) { unchoose(); return; } // chosen already: this click plays it
    event.preventDefault(); // no submit: only chosen
    choose(button);
  }, true);
  document.addEventListener("keydown", function (event) {
    if (event.key !== "Escape" || !chosen) return;
    var was = chosen;
    unchoose();
    if (document.body.contains(was)) was.focus();
  });
  document.addEventListener("htmx:afterSettle", forgetGoneChoice);
  document.addEventListener("htmx:oobAfterSwap", forgetGoneChoice);

  // -- Keyboard players: the focus stays on the board ------------------------------------
  // A new board replaces the old one and the focus with it; when the focus was on the board,
  // put it back on the new one, so the next Tab reaches its moves.
  function refocusBoard() {
    var board = document.getElementById("board");
    var lost = !document.activeElement || document.activeElement === document.body;
    if (focusOnBoard && lost && board) board.focus({ preventScroll: true });
  }
  document.addEventListener("focusin", function (event) {
    focusOnBoard = !!(event.target.closest && event.target.closest("#board"));
  });
  document.addEventListener("htmx:afterSettle", refocusBoard);
  document.addEventListener("htmx:oobAfterSwap", refocusBoard);
  document.addEventListener("htmx:wsAfterMessage", refocusBoard);
})();
