// Side-by-side report: both panes open at their first copied passage (or at passage n for a
// link ending in #q-n, as the match overview makes), clicking a highlighted passage scrolls
// the other pane to its paired passage, j/k (n/p, →/←) step through the passages, and the
// two panes scroll together (a checkbox turns that off).
//
// Markup (documents/highlight.py): every passage n has one element with id "q-n" / "s-n" at
// its start (a mark, or an empty span.anchor when several passages start at one place), and
// every mark lists in data-pairs all the passages covering it — one source paragraph copied
// twice is one mark on the source side that belongs to two passages.
(function () {
  "use strict";
  var other = { q: "s", s: "q" };
  var current = null; // the passage shown last, as a string
  var query = document.getElementById("query-text");
  var source = document.getElementById("source-text");
  var leader = null; // the pane the reader scrolls; the other one follows it

  function passagesOf(mark) {
    return (mark.dataset.pairs || "").split(" ").filter(Boolean);
  }

  function offsetIn(pane, element) {
    return element.getBoundingClientRect().top - pane.getBoundingClientRect().top + pane.scrollTop;
  }

  function reveal(side, pair) {
    var target = document.getElementById(side + "-" + pair);
    var pane = target && target.closest(".text");
    if (!pane) { return; }
    leader = null; // a scroll made here is not the reader's: the other pane does not follow
    var top = offsetIn(pane, target) - pane.scrollTop;
    pane.scrollTo({ top: pane.scrollTop + top - pane.clientHeight / 3, behavior: "smooth" });
    // Outline every piece of the passage: its anchor may be an empty span.
    pane.querySelectorAll('mark[data-pairs~="' + pair + '"]').forEach(function (mark) {
      mark.classList.add("focus");
      setTimeout(function () { mark.classList.remove("focus"); }, 1500);
    });
  }

  var wanted = /^#q-(\d+)$/.exec(window.location.hash);
  var first = wanted && document.getElementById("q-" + wanted[1]) ? wanted[1] : "0";
  ["q", "s"].forEach(function (side) {
    var anchor = document.getElementById(side + "-" + first);
    var pane = anchor && anchor.closest(".text");
    if (pane) { pane.scrollTop = Math.max(0, offsetIn(pane, anchor) - 40); }
  });
  if (wanted) { // came from the overview for this passage: show it
    current = first;
    var panes = document.querySelector(".side-by-side");
    if (panes) { panes.scrollIntoView(); }
    reveal("q", first);
    reveal("s", first);
  }

  function showBoth(pair) {
    current = pair;
    reveal("q", current);
    reveal("s", current);
  }

  // The passage list: show the passage on both sides at once.
  document.querySelectorAll("a.jump[data-pair]").forEach(function (link) {
    link.addEventListener("click", function (event) {
      event.preventDefault();
      showBoth(link.dataset.pair);
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

  // Next / previous passage from the keyboard.
  var count = query ? query.querySelectorAll('[id^="q-"]').length : 0;
  document.addEventListener("keydown", function (event) {
    if (!count || event.altKey || event.ctrlKey || event.metaKey) { return; }
    var tag = (event.target.tagName || "").toLowerCase();
    if (tag === "input" || tag === "textarea" || tag === "select") { return; }
    var by = ["j", "n", "ArrowRight"].indexOf(event.key) >= 0 ? 1
      : ["k", "p", "ArrowLeft"].indexOf(event.key) >= 0 ? -1 : 0;
    if (!by) { return; }
    event.preventDefault();
    var at = current === null ? (by > 0 ? -1 : 0) : Number(current);
    showBoth(String((at + by + count) % count));
    // The panes may start below the fold (the verdict form and passage list come first):
    // bring them into view, or the passage moves where the reader cannot see it.
    var panes = document.querySelector(".side-by-side");
    var box = panes && panes.getBoundingClientRect();
    if (box && (box.top < 0 || box.bottom > window.innerHeight)) {
      panes.scrollIntoView({ block: "start" });
    }
  });

  // Scrolling together: the pane the reader scrolls leads; the other is placed so that the
  // passages around the leader's reading line (a third down) sit at the same height in
  // both, interpolating between passage starts.
  if (!query || !source) { return; }
  var STORED = "copydetect.scrollTogether";
  var together = window.localStorage.getItem(STORED) !== "off";
  var toggle = document.createElement("label");
  toggle.className = "checkbox sync-toggle";
  toggle.innerHTML = '<input type="checkbox" id="scroll-together"> Scroll the two texts together';
  var box = toggle.querySelector("input");
  box.checked = together;
  box.addEventListener("change", function () {
    together = box.checked;
    window.localStorage.setItem(STORED, together ? "on" : "off");
  });
  var container = query.closest(".side-by-side");
  container.parentNode.insertBefore(toggle, container);

  var points = null; // [[top in leader, top in follower], ...] per direction, cached
  window.addEventListener("resize", function () { points = null; });

  function pairedTops(from, to) {
    var fromSide = from === query ? "q" : "s";
    var found = [[0, 0], [from.scrollHeight, to.scrollHeight]];
    from.querySelectorAll('[id^="' + fromSide + '-"]').forEach(function (anchor) {
      var pair = anchor.id.slice(2);
      var partner = document.getElementById(other[fromSide] + "-" + pair);
      if (partner) { found.push([offsetIn(from, anchor), offsetIn(to, partner)]); }
    });
    return found.sort(function (a, b) { return a[0] - b[0]; });
  }

  function follow(from, to) {
    points = points || {};
    var key = from === query ? "q" : "s";
    points[key] = points[key] || pairedTops(from, to);
    var list = points[key];
    var line = from.scrollTop + from.clientHeight / 3;
    var i = 0;
    while (i < list.length - 2 && list[i + 1][0] <= line) { i++; }
    var a = list[i], b = list[i + 1];
    var span = b[0] - a[0];
    var along = span > 0 ? Math.min(1, Math.max(0, (line - a[0]) / span)) : 0;
    var at = a[1] + (b[1] - a[1]) * along;
    to.scrollTop = at - to.clientHeight / 3;
  }

  [query, source].forEach(function (pane) {
    ["wheel", "pointerdown", "touchstart", "keydown"].forEach(function (name) {
      pane.addEventListener(name, function () { leader = pane; }, { passive: true });
    });
    var pending = false;
    pane.addEventListener("scroll", function () {
      if (!together || leader !== pane || pending) { return; }
      pending = true;
      window.requestAnimationFrame(function () {
        pending = false;
        follow(pane, pane === query ? source : query);
      });
    }, { passive: true });
  });
})();
