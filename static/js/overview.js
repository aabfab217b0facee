// Match overview: the checked text with every source's passages in the source's colour.
// Next/previous match from the keyboard (j n → / k p ←) or the buttons: the current match is
// outlined and scrolled into view, its source marked in the list; Enter (or a click on a
// passage) opens the side-by-side view with that source at that passage.
//
// Markup (documents/highlight.py, side "o"): match k has one element with id "o-k" at its
// start, and every mark lists in data-pairs the matches covering it. #overview-data holds
// {"sources": [{id, title, passages}], "matches": [{source, passage, excluded, kind, score}]}
// by k, "kinds": {kind: [name, meaning]} and "reasons": {excluded: why, as words}.
(function () {
  "use strict";
  var pane = document.getElementById("overview-text");
  var holder = document.getElementById("overview-data");
  if (!pane || !holder) { return; }
  var data = JSON.parse(holder.textContent);
  var status = document.getElementById("match-status");
  var order = readingOrder();
  var position = -1;

  function numberOf(el) { return Number(el.id.slice(2)); }

  // "Edited copy, 74% alike" (documents/templatetags/report_format.py says the same).
  function kindOf(match) {
    var kind = (data.kinds || {})[match.kind];
    var name = kind ? kind[0] : match.kind;
    return match.score == null ? name : name + ", " + Math.round(match.score * 100) + "% alike";
  }

  // The counted matches in reading order: by where they start in the text (an empty
  // span.anchor stands where the next mark starts), matches starting together by number,
  // i.e. their source's rank. Excluded matches are skipped.
  function readingOrder() {
    var found = [], place = 0;
    pane.querySelectorAll('[id^="o-"]').forEach(function (el) {
      var match = data.matches[numberOf(el)];
      if (match && !match.excluded) { found.push({ el: el, place: place }); }
      if (!el.classList.contains("anchor")) { place++; }
    });
    found.sort(function (a, b) { return a.place - b.place || numberOf(a.el) - numberOf(b.el); });
    return found.map(function (item) { return item.el; });
  }

  function sideBySide(k) {
    var match = data.matches[k];
    var source = data.sources[match.source];
    return "?source=" + source.id + "#q-" + match.passage;
  }

  function show(index) {
    if (!order.length) { return; }
    position = (index + order.length) % order.length;
    var k = numberOf(order[position]);
    var match = data.matches[k];
    var source = data.sources[match.source];
    pane.querySelectorAll("mark.current").forEach(function (m) { m.classList.remove("current"); });
    pane.querySelectorAll('mark[data-pairs~="' + k + '"]').forEach(function (m) {
      m.classList.add("current");
    });
    document.querySelectorAll("#overview-sources li").forEach(function (li) {
      li.classList.toggle("current", li.dataset.source === String(source.id));
    });
    var target = order[position];
    var top = target.getBoundingClientRect().top - pane.getBoundingClientRect().top;
    pane.scrollTo({ top: pane.scrollTop + top - pane.clientHeight / 3, behavior: "smooth" });
    if (status) {
      status.textContent = "Match " + (position + 1) + " of " + order.length + " · " +
        source.title + ", passage " + (match.passage + 1) + " of " + source.passages + " · " +
        kindOf(match);
      status.dataset.match = String(k);
    }
  }

  function step(by) { show(position < 0 && by < 0 ? -1 : position + by); }

  document.addEventListener("keydown", function (event) {
    if (event.altKey || event.ctrlKey || event.metaKey) { return; }
    var tag = (event.target.tagName || "").toLowerCase();
    if (["input", "textarea", "select"].indexOf(tag) >= 0 || event.target.isContentEditable) {
      return;
    }
    if (["j", "n", "ArrowRight"].indexOf(event.key) >= 0) {
      step(1);
    } else if (["k", "p", "ArrowLeft"].indexOf(event.key) >= 0) {
      step(-1);
    } else if (event.key === "Enter" && position >= 0 && tag !== "a" && tag !== "button") {
      window.location.href = sideBySide(numberOf(order[position]));
    } else {
      return;
    }
    event.preventDefault();
  });

  var next = document.getElementById("match-next");
  var previous = document.getElementById("match-previous");
  if (next) { next.addEventListener("click", function () { step(1); }); }
  if (previous) { previous.addEventListener("click", function () { step(-1); }); }

  // A passage leads to its source side by side (a stretch in several sources: the first,
  // whose colour it shows); hovering names every source it was found in.
  pane.querySelectorAll("mark[data-pairs]").forEach(function (mark) {
    var pairs = mark.dataset.pairs.split(" ").filter(Boolean).map(Number);
    var counted = pairs.filter(function (k) { return !data.matches[k].excluded; });
    var titles = [];
    pairs.forEach(function (k) {
      var match = data.matches[k];
      var title = data.sources[match.source].title + ": " + kindOf(match) +
        (match.excluded ? " (not counted: " +
        ((data.reasons || {})[match.excluded] || match.excluded) + ")" : "");
      if (titles.indexOf(title) < 0) { titles.push(title); }
    });
    mark.title = titles.join("\n");
    mark.addEventListener("click", function () {
      window.location.href = sideBySide(counted.length ? counted[0] : pairs[0]);
    });
  });
})();
