// Polls the JSON status of unfinished documents and reloads the page once they finish.
(function () {
  "use strict";
  var FINISHED = { done: true, failed: true };

  function poll(url, onUpdate) {
    fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (data) {
        if (!data) { return; }
        onUpdate(data);
        if (!FINISHED[data.status]) { setTimeout(function () { poll(url, onUpdate); }, 1000); }
      })
      .catch(function () { setTimeout(function () { poll(url, onUpdate); }, 3000); });
  }

  function watch(element, url) {
    if (FINISHED[element.dataset.status]) { return; }
    poll(url, function (data) {
      var bar = element.querySelector("progress");
      var label = element.querySelector(".status");
      if (bar) { bar.value = data.progress; }
      if (label) { label.textContent = data.status; }
      if (FINISHED[data.status]) { window.location.reload(); }
    });
  }

  var single = document.getElementById("document-status");
  if (single) { watch(single, single.dataset.statusUrl); }
  var table = document.getElementById("documents");
  if (table) {
    var template = table.dataset.statusUrl; // ends in /0/
    table.querySelectorAll("tr[data-document]").forEach(function (row) {
      watch(row, template.replace(/0\/$/, row.dataset.document + "/"));
    });
  }
})();
