// Follows unfinished documents and shows their results: a document's page polls its own
// status; a collection's page polls the status of all its unfinished rows in one request
// (GET /api/collections/<id>/progress/?ids=...), not one request per row, and keeps its rows
// and its summary line as a reload would render them.
(function () {
  "use strict";
  var FINISHED = { done: true, failed: true };
  var FAILURE_LENGTH = 160;  // the template's truncatechars:160

  // Results are in: reload to show them, unless the page carries messages (what an upload
  // answered, the files a ZIP batch skipped): they are shown once, so a reload would lose
  // them. Then a link offers the reload, saying how many documents failed.
  function resultsReady(failed) {
    var message = document.querySelector(".messages li");
    if (!message) { window.location.reload(); return; }
    if (document.getElementById("results-ready")) { return; }
    var note = document.createElement("p");
    note.id = "results-ready";
    note.className = "card";
    var link = document.createElement("a");
    link.href = window.location.href;
    link.textContent = failed
      ? "Results are ready (" + failed + " failed): show them"
      : "Results are ready: show them";
    note.appendChild(link);
    message.parentNode.parentNode.insertBefore(note, message.parentNode.nextSibling);
  }

  function poll(url, onUpdate) {
    fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (data) {
        if (data && onUpdate(data)) { setTimeout(function () { poll(url, onUpdate); }, 1500); }
      })
      .catch(function () { setTimeout(function () { poll(url, onUpdate); }, 3000); });
  }

  function show(element, data) {
    var bar = element.querySelector("progress");
    var label = element.querySelector(".status");
    if (bar) { bar.value = data.progress; }
    if (label) { label.textContent = data.status_label; }
    element.dataset.status = data.status;
  }

  // A failed row shows its reason where the progress bar was, and in full on its status.
  function showFailure(row, error) {
    row.querySelector(".status").title = error;
    var bar = row.querySelector("progress");
    if (!bar) { return; }
    var failure = document.createElement("span");
    failure.className = "error failure";
    failure.textContent = error.length > FAILURE_LENGTH
      ? error.slice(0, FAILURE_LENGTH - 1) + "…"
      : error;
    bar.parentNode.replaceChild(failure, bar);
  }

  // A done row links its similarity to its report; a template's cell (no report URL) keeps
  // its tag: it is never checked itself.
  function showSimilarity(row, item) {
    var cell = row.querySelector("td[data-report-url]");
    if (!cell) { return; }
    var link = cell.querySelector("a");
    if (!link) {
      link = document.createElement("a");
      link.href = cell.dataset.reportUrl;
      cell.appendChild(link);
    }
    link.textContent = item.similarity_label;
  }

  function showRow(row, item) {
    show(row, item);
    if (item.status === "failed") { showFailure(row, item.error); }
    if (item.status === "done") { showSimilarity(row, item); }
  }

  // The summary line above the table, worded as the template words it.
  function showCounts(counts) {
    var line = document.getElementById("status-counts");
    if (!line) { return; }
    var total = counts.queued + counts.processing + counts.done + counts.failed;
    var text = total + " document" + (total === 1 ? "" : "s");
    if (total) {
      text += ": " + counts.done + " done";
      if (counts.queued) { text += ", " + counts.queued + " queued"; }
      if (counts.processing) { text += ", " + counts.processing + " processing"; }
    }
    line.textContent = text;
    if (total && counts.failed) {
      var failed = document.createElement("span");
      failed.className = "error";
      failed.textContent = counts.failed + " failed";
      line.append(", ", failed);
    }
    line.append(".");
  }

  var single = document.getElementById("document-status");
  if (single && !FINISHED[single.dataset.status]) {
    poll(single.dataset.statusUrl, function (data) {
      show(single, data);
      if (FINISHED[data.status]) { resultsReady(0); return false; }
      return true;
    });
  }

  // An archive's bulk imports: their status and counts while one is queued or running.
  var imports = document.getElementById("imports");
  var followed = {};  // the imports unfinished when the page was rendered
  if (imports) {
    imports.querySelectorAll("li[data-import]").forEach(function (item) {
      if (!FINISHED[item.dataset.status]) { followed[item.dataset.import] = item; }
    });
  }
  if (Object.keys(followed).length) {
    poll(imports.dataset.importsUrl, function (jobs) {
      var running = 0;
      var failed = 0;
      jobs.forEach(function (job) {
        var item = followed[job.id];
        if (!item) { return; }
        item.dataset.status = job.status;
        item.querySelector(".status").textContent = job.status_label;
        item.querySelector(".import-summary").textContent = job.summary;
        if (!FINISHED[job.status]) { running += 1; }
        failed += job.failed;
      });
      if (!running) { resultsReady(failed); }
      return running > 0;
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
      var announced = false;
      poll(url, function (data) {
        showCounts(data.counts);
        var pending = 0;
        var failed = 0;
        data.documents.forEach(function (item) {
          var row = rows[item.id];
          if (!row) { return; }
          showRow(row, item);
          if (item.status === "failed") { failed += 1; }
          if (!FINISHED[item.status]) { pending += 1; }
        });
        // Ready once every row followed is finished (a row missing from the answer was
        // deleted meanwhile), not at the first one: the rest of an upload is still queued.
        if (!pending && !announced) {
          announced = true;
          resultsReady(failed);
        }
        // Documents on other pages (an upload longer than a page) keep the line moving.
        return pending > 0 || data.counts.queued + data.counts.processing > 0;
      });
    }
  }
})();
