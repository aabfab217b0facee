// Side-by-side report: both panes open at their first copied passage, and clicking a
// highlighted passage scrolls the other pane to its paired passage.
(function () {
  "use strict";
  var other = { q: "s", s: "q" };

  function reveal(mark) {
    var pane = mark.closest(".text");
    if (!pane) { return; }
    var top = mark.getBoundingClientRect().top - pane.getBoundingClientRect().top;
    pane.scrollTo({ top: pane.scrollTop + top - pane.clientHeight / 3, behavior: "smooth" });
    mark.classList.add("focus");
    setTimeout(function () { mark.classList.remove("focus"); }, 1500);
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
      ["q-", "s-"].forEach(function (prefix) {
        var mark = document.getElementById(prefix + link.dataset.pair);
        if (mark) { reveal(mark); }
      });
      var panes = document.querySelector(".side-by-side");
      if (panes) { panes.scrollIntoView({ behavior: "smooth" }); }
    });
  });

  document.querySelectorAll(".side-by-side mark[data-pair]").forEach(function (mark) {
    mark.addEventListener("click", function () {
      var side = mark.closest("#query-text") ? "q" : "s";
      var target = document.getElementById(other[side] + "-" + mark.dataset.pair);
      if (target) { reveal(target); }
    });
  });
})();
