// Clicking a highlighted passage scrolls the other side to its paired passage.
(function () {
  "use strict";
  var other = { q: "s", s: "q" };
  document.querySelectorAll(".side-by-side mark[data-pair]").forEach(function (mark) {
    mark.addEventListener("click", function () {
      var side = mark.closest("#query-text") ? "q" : "s";
      var target = document.getElementById(other[side] + "-" + mark.dataset.pair);
      if (!target) { return; }
      target.scrollIntoView({ behavior: "smooth", block: "center" });
      target.classList.add("focus");
      setTimeout(function () { target.classList.remove("focus"); }, 1500);
    });
  });
})();
