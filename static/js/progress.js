// Follows unfinished documents and shows their results: a document's page polls its own
// status; a collection's page polls the status of all its unfinished rows in one request
// (GET /api/collections/<id>/progress/?ids=...), not one request per row.
(function () {
  "use strict";
  var FINISHED = { done: true, failed: true };

  // Results are in: reload to show them, unless the page carries messages (what an upload
  // answered, the files a ZIP batch skipped): they are shown once, so a reload would lose
  // them. Then a link offers the reload, and returns true: the caller keeps polling.
  function refresh() {
    var message = document.querySelector(".messages li");
    if (!message) { window.location.reload(); return false; }
    if (!document.getElementById("results-ready")) {
      var note = document.createElement("p");
      note.id = "results-ready";
      note.className = "card";
      var link = document.createElement("a");
      link.href = window.location.href;
      link.textContent = "Results are ready: show them";
      note.appendChild(link);
      message.parentNode.parentNode.insertBefore(note, message.parentNode.nextSibling);
    }
    return true;
  }

  function poll(url, onUpdate) {
    fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (data) {
        if (data && onUpdate(data)) { setTimeout(function () { poll(url, onUpdate); }, 1500); }
      })
      .catch(function () { setTimeout(function () { poll(url, onUpdate); }, 3000); });
  }

  function show(row, data) {
    var bar = row.querySelector("progress");
    var label = row.querySelector(".status");
    if (bar) { bar.value = data.progress; }
    if (label) { label.textContent = data.status; }
    row.dataset.status = data.status;
  }

  var single = document.getElementById("document-status");
  if (single && !FINISHED[single.dataset.status]) {
    poll(single.dataset.statusUrl, function (data) {
      show(single, data);
      if (FINISHED[data.status]) { refresh(); return false; }
      return true;
    });
  }

  var table = document.getElementById("documents");
  if (table) {
    var rows = {};
    table.querySelectorAll("tr[data-document]").forEach(function (row) {
      if (!FINISHED[row.dataset.status]) { rows[row.dataset.document] = row; }
    });
    var ids = Object.keys(rows);
    if (ids.length) {
      var url = table.dataset.progressUrl + "?ids=" + ids.join(",");
      poll(url, function (data) {
        var finished = false;
        var seen = {};
        var pending = 0;
        data.documents.forEach(function (item) {
          var row = rows[item.id];
          if (!row) { return; }
          seen[item.id] = true;
          show(row, item);
          if (FINISHED[item.status]) { finished = true; } else { pending += 1; }
        });
        // A row missing from the answer was deleted meanwhile: the page is out of date too.
        if (ids.some(function (id) { return !seen[id]; })) { finished = true; }
        if (!finished) { return true; }
        return refresh() && pending > 0;  // with messages kept: follow the other rows on
      });
    }
  }
})();
