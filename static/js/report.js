// Side-by-side report: both panes open at their first copied passage, and clicking a
// highlighted passage scrolls the other pane to its paired passage.
//
// Markup (documents/highlight.py): every passage n has one element with id "q-n" / "s-n" at
// its start (a mark, or an empty span.anchor when several passages start at one place), and
// every mark lists in data-pairs all the passages covering it — one source paragraph copied
// twice is one mark on the source side that belongs to two passages.
(function () {
  "use strict";
  var other = { q: "s", s: "q" };
  var current = null; // the passage shown last, as a string

  function passagesOf(mark) {
    return (mark.dataset.pairs || "").split(" ").filter(Boolean);
  }

  function reveal(side, pair) {
    var target = document.getElementById(side + "-" + pair);
    var pane = target && target.closest(".text");
    if (!pane) { return; }
    var top = target.getBoundingClientRect().top - pane.getBoundingClientRect().top;
    pane.scrollTo({ top: pane.scrollTop + top - pane.clientHeight / 3, behavior: "smooth" });
    // Outline every piece of the passage: its anchor may be an empty span.
    pane.querySelectorAll('mark[data-pairs~="' + pair + '"]').forEach(function (mark) {
      mark.classList.add("focus");
      setTimeout(function () { mark.classList.remove("focus"); }, 1500);
    });
  }

  ["q-0", "s-0"].forEach(function (id) {
    var first = document.getElementById(id);
    var pane = first && first.closest(".text");
    if (pane) {
      var top = first.getBoundingClientRect().top - pane.getBoundingClientRect().top;
      pane.scrollTop = Math.max(0, top - 40);
    }
  });

  // The passage list: show the passage on both sides at once.
  document.querySelectorAll("a.jump[data-pair]").forEach(function (link) {
    link.addEventListener("click", function (event) {
      event.preventDefault();
      current = link.dataset.pair;
      reveal("q", current);
      reveal("s", current);
      var panes = document.querySelector(".side-by-side");
      if (panes) { panes.scrollIntoView({ behavior: "smooth" }); }
    });
  });

  // A mark of several passages shows them in turn: each click moves on from the passage
  // shown last, so every passage of a repeated copy can be reached from either side.
  document.querySelectorAll(".side-by-side mark[data-pairs]").forEach(function (mark) {
    mark.addEventListener("click", function () {
      var side = mark.closest("#query-text") ? "q" : "s";
      var pairs = passagesOf(mark);
      if (!pairs.length) { return; }
      current = pairs[(pairs.indexOf(current) + 1) % pairs.length];
      reveal(other[side], current);
    });
  });
})();
