// Clocks, wherever a page shows one (table, lobby): the server writes only each deadline,
// <time datetime data-deadline>, the same for every viewer; this counts it down in the page's
// language and the viewer's time zone, and says when the time is up. The words come from
// <body data-clock-left data-clock-up data-clock-by> (templates/base.html).
// A past moment, <time datetime data-since> (a lobby row's last move), is said the same way:
// "3 hours ago", "yesterday", the full date in its title.
(function () {
  "use strict";
  var UNITS = [["day", 86400], ["hour", 3600], ["minute", 60], ["second", 1]];
  function unit(name, count, lang) {
    return new Intl.NumberFormat(lang, { style: "unit", unit: name, unitDisplay: "long" }).format(count);
  }
  // The largest unit left and the next one: "2 days 3 hours", "3 hours 5 minutes",
  // "4 minutes 10 seconds" (under ten minutes), "12 minutes", "40 seconds".
  function duration(seconds, lang) {
    for (var i = 0; i < UNITS.length; i++) {
      var size = UNITS[i][1], count = Math.floor(seconds / size);
      if (count === 0 && size > 1) continue;
      var text = unit(UNITS[i][0], count, lang), rest = seconds - count * size;
      var next = UNITS[i + 1];
      if (next && (size > 60 || seconds < 600)) {
        var more = Math.floor(rest / next[1]);
        if (more > 0) text += " " + unit(next[0], more, lang);
      }
      return text;
    }
    return unit("second", 0, lang);
  }
  // The largest unit that fits: "40 seconds ago", "5 minutes ago", "yesterday", "3 days ago".
  function since(seconds, lang) {
    var words = new Intl.RelativeTimeFormat(lang, { numeric: "auto" });
    for (var i = 0; i < UNITS.length - 1; i++) {
      if (seconds >= UNITS[i][1]) return words.format(-Math.floor(seconds / UNITS[i][1]), UNITS[i][0]);
    }
    return words.format(-Math.max(0, seconds), "second");
  }
  function tick() {
    var labels = document.body.dataset;
    var lang = document.documentElement.lang || undefined;
    var when = new Intl.DateTimeFormat(lang, { weekday: "short", day: "numeric", month: "short", hour: "2-digit", minute: "2-digit" });
    document.querySelectorAll("time[data-since]").forEach(function (time) {
      var moment = new Date(time.getAttribute("datetime"));
      if (isNaN(moment)) return;
      time.textContent = since(Math.floor((Date.now() - moment) / 1000), lang);
      time.title = when.format(moment);
    });
    document.querySelectorAll("time[data-deadline]").forEach(function (time) {
      var deadline = new Date(time.getAttribute("datetime"));
      if (isNaN(deadline)) return;
      var left = Math.ceil((deadline - Date.now()) / 1000);
      var clock = time.closest(".clock");
      if (left <= 0) {
        time.textContent = labels.clockUp;
        if (clock) clock.classList.add("up");
      } else {
        time.textContent = labels.clockLeft.replace("{time}", duration(left, lang));
        if (clock) clock.classList.remove("up");
      }
      time.title = labels.clockBy.replace("{date}", when.format(deadline));
    });
  }
  document.addEventListener("DOMContentLoaded", function () { tick(); setInterval(tick, 1000); });
  document.addEventListener("htmx:afterSettle", tick);
  document.addEventListener("htmx:oobAfterSwap", tick);
})();
