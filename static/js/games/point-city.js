// Point City: two-click picking in the market of the seat to play (.pc-market-pick, in
// templates/games/point-city/private.html): a card, then a card beside it; then only that pair's
// payments stay shown (or, for a card alone, its flip). Boards are replaced by HTMX and websocket
// swaps at any moment, so this listens on the document and keeps the picking's state on the
// market itself: a new board starts afresh, as the server rendered it. Without this script, every
// offer is listed and can be played from the list.
(function () {
  "use strict";
  document.documentElement.classList.add("pc-js");

  // The cards each card can be taken with ("02" -> {"03": true, "12": true}).
  function partnersIn(market) {
    var partners = {};
    market.querySelectorAll(".pc-offers li[data-pair]").forEach(function (li) {
      var pair = li.dataset.pair.split(" ");
      (partners[pair[0]] = partners[pair[0]] || {})[pair[1]] = true;
      (partners[pair[1]] = partners[pair[1]] || {})[pair[0]] = true;
    });
    return partners;
  }

  function flippableIn(market) {
    var flippable = {};
    market.querySelectorAll(".pc-flips li[data-cell]").forEach(function (li) {
      flippable[li.dataset.cell] = true;
    });
    return flippable;
  }

  function show(market, first, second) {
    var partners = partnersIn(market), flippable = flippableIn(market);
    var near = first && !second ? partners[first] || {} : {};
    var pair = second ? [first, second].sort().join(" ") : null;
    market.dataset.first = first || "";
    market.dataset.second = second || "";
    market.querySelectorAll("button.pc-cell[data-cell]").forEach(function (cell) {
      var k = cell.dataset.cell;
      cell.disabled = !(partners[k] || flippable[k]);
      cell.setAttribute("aria-pressed", String(k === first || k === second));
      cell.classList.toggle("pc-near", !!near[k]);
    });
    market.querySelectorAll(".pc-offers li[data-pair]").forEach(function (li) {
      li.classList.toggle("pc-shown", li.dataset.pair === pair);
    });
    market.querySelectorAll(".pc-flips li[data-cell]").forEach(function (li) {
      li.classList.toggle("pc-shown", !second && li.dataset.cell === first);
    });
    var hint = market.querySelector(".pc-hint");
    if (hint) {
      hint.textContent = hint.dataset[
        pair ? "confirm" : !first ? "first" : partners[first] ? "second" : "alone"];
    }
  }

  document.addEventListener("click", function (event) {
    var cell = event.target.closest && event.target.closest("button.pc-cell[data-cell]");
    var market = cell && cell.closest(".pc-market-pick");
    if (!market) return;
    var first = market.dataset.first || null, second = market.dataset.second || null;
    var k = cell.dataset.cell;
    if (k === first && !second) first = null;
    else if (first && !second && (partnersIn(market)[first] || {})[k]) second = k;
    else { first = k; second = null; }
    show(market, first, second);
  });
})();
