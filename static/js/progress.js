// Follows unfinished documents and reloads the page once one of them finishes: a document's
// page polls its own status; a collection's page polls the status of all its unfinished rows
// in one request (GET /api/collections/<id>/progress/?ids=...), not one request per row.
(function () {
  "use strict";
  var FINISHED = { done: true, failed: true };

  // Reload to show the results, unless the page carries warnings or errors the user has not
  // read yet (e.g. the files a ZIP batch skipped): they are shown once, so a reload would
  // lose them. Then a link offers the reload instead.
  function refresh() {
    var unread = document.querySelector(".messages li.warning, .messages li.error");
    if (!unread) { window.location.reload(); return; }
    if (document.getElementById("results-ready")) { return; }
    var note = document.createElement("p");
    note.id = "results-ready";
    note.className = "card";
    var link = document.createElement("a");
    link.href = window.location.href;
    link.textContent = "Results are ready: show them";
    note.appendChild(link);
    unread.parentNode.parentNode.insertBefore(note, unread.parentNode.nextSibling);
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
      poll(table.dataset.progressUrl + "?ids=" + ids.join(","), function (data) {
        var finished = false;
        var seen = {};
        data.documents.forEach(function (item) {
          var row = rows[item.id];
          if (!row) { return; }
          seen[item.id] = true;
          show(row, item);
          if (FINISHED[item.status]) { finished = true; }
        });
        // A row missing from the answer was deleted meanwhile: the page is out of date too.
        if (ids.some(function (id) { return !seen[id]; })) { finished = true; }
        if (finished) { refresh(); return false; }
        return true;
      });
    }
  }
})();
