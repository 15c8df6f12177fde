// The table's chat (templates/community/chat/panel.html). A line goes over the table's open
// socket (community/live.py), as the board's moves do (static/js/table.js), else by the form's
// hx-post; lines arrive over the socket, or by each room's poll while it is closed. Once a line
// is stored its field empties, unless a next line was typed before the answer came; a room's
// log keeps to its newest line unless its reader scrolled up; older lines come when scrolled
// to, without the log jumping; and the lobby is told the new lines were seen.
(function () {
  "use strict";

  var socket = null; // the table's socket while it is open
  var seenTimer = null;

  document.addEventListener("htmx:wsOpen", function (event) { socket = event.detail.socketWrapper; });
  document.addEventListener("htmx:wsClose", function () { socket = null; });
  function live() { return !!socket && window.tableLive !== false; }

  function roomOf(node) { return node && node.closest ? node.closest(".chat-room") : null; }

  // -- Writing ---------------------------------------------------------------------------
  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!form.classList || !form.classList.contains("chat-form")) return;
    // What was sent: its answer empties the field only if the field still holds it (a next
    // line typed before the answer came stays).
    form.dataset.sent = form.elements.namedItem("chat_text").value;
    if (!live()) return;
    event.preventDefault();
    event.stopPropagation(); // captured above the form: htmx's hx-post does not see it
    socket.send(JSON.stringify({
      chat_text: form.elements.namedItem("chat_text").value,
      room: form.elements.namedItem("room").value
    }), form);
  }, true);

  // -- The logs: newest line in view, older lines on scroll ------------------------------
  function nearBottom(scroller) {
    return scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight < 40;
  }
  function keepToNewest() {
    document.querySelectorAll(".chat-scroll").forEach(function (scroller) {
      if (scroller.dataset.reading !== "1") scroller.scrollTop = scroller.scrollHeight;
    });
  }
  document.addEventListener("scroll", function (event) {
    var scroller = event.target;
    if (scroller.classList && scroller.classList.contains("chat-scroll")) {
      scroller.dataset.reading = nearBottom(scroller) ? "" : "1";
    }
  }, true);

  // A stored line's answer (community/chat/posted.html) marks its room's status line.
  function afterAnswer() {
    document.querySelectorAll(".chat-status[data-posted]").forEach(function (status) {
      status.removeAttribute("data-posted");
      var room = roomOf(status);
      var field = room && room.querySelector("input[name=chat_text]");
      if (field && field.form && field.value === field.form.dataset.sent) field.value = "";
    });
    keepToNewest();
  }

  // A line can come twice: a poll that set out before the line posted over HTTP came back, or
  // two polls at once on a slow connection, each asked for the lines after the same one. Each
  // line shows once: the first copy stays.
  function dropRepeatedLines(list) {
    var seen = {};
    list.querySelectorAll(".chat-line[data-id]").forEach(function (line) {
      if (seen[line.dataset.id]) line.remove();
      else seen[line.dataset.id] = true;
    });
  }
  function dropRepeatedLinesEverywhere() {
    document.querySelectorAll(".chat-lines").forEach(dropRepeatedLines);
  }

  var heightBefore = null;
  document.addEventListener("htmx:beforeSwap", function (event) {
    var target = event.detail.target;
    if (target && target.classList && target.classList.contains("chat-more")) {
      var scroller = target.closest(".chat-scroll");
      heightBefore = scroller ? { scroller: scroller, height: scroller.scrollHeight, top: scroller.scrollTop } : null;
    }
  });
  document.addEventListener("htmx:afterSwap", function (event) {
    if (heightBefore) { // older lines came above: the lines being read stay where they were
      var grown = heightBefore.scroller.scrollHeight - heightBefore.height;
      heightBefore.scroller.scrollTop = heightBefore.top + grown;
      heightBefore = null;
      return;
    }
    dropRepeatedLinesEverywhere();
    var elt = event.detail.elt;
    if (elt && elt.classList && elt.classList.contains("chat-lines")) keepToNewest();
  });

  // -- New lines: seen, and the poll while the socket is closed --------------------------
  function newLines() {
    keepToNewest();
    if (!live() || document.visibilityState !== "visible" || seenTimer) return;
    seenTimer = setTimeout(function () {
      seenTimer = null;
      if (live()) socket.send(JSON.stringify({ chat_seen: 1 }));
    }, 3000);
  }
  document.addEventListener("htmx:oobAfterSwap", function (event) {
    var target = event.detail.target;
    dropRepeatedLinesEverywhere();
    if (target && target.classList && target.classList.contains("chat-lines")) newLines();
    afterAnswer();
  });
  document.addEventListener("htmx:wsAfterMessage", afterAnswer);

  document.addEventListener("htmx:configRequest", function (event) {
    var elt = event.detail.elt;
    if (!elt || !elt.classList || !elt.classList.contains("chat-lines")) return;
    var lines = elt.querySelectorAll(".chat-line");
    event.detail.parameters.after = lines.length ? lines[lines.length - 1].dataset.id : "0";
  });
  document.addEventListener("htmx:beforeRequest", function (event) {
    var elt = event.detail.elt;
    if (elt && elt.classList && elt.classList.contains("chat-lines") && live()) event.preventDefault();
  });

  document.addEventListener("DOMContentLoaded", keepToNewest);
})();
