// Collusion view: an assignment's documents as a graph (cytoscape.js), linked by the passages
// they share, from GET /api/collections/<id>/graph/. Line width by the larger share, an arrow
// from the copy to the original when the submission times tell, a threshold slider hiding
// weaker links at once, clusters (connected documents above the threshold) coloured and
// listed. A click on a line opens the pair side by side, on a circle the document's report.
(function () {
  "use strict";
  var container = document.getElementById("graph");
  if (!container || typeof cytoscape === "undefined") { return; }
  var slider = document.getElementById("threshold");
  var shown = document.getElementById("threshold-value");
  var counter = document.getElementById("edge-count");
  var list = document.getElementById("clusters");
  var none = document.getElementById("clusters-empty");
  var COLOURS = ["#d97706", "#2563eb", "#16a34a", "#db2777", "#7c3aed", "#0891b2", "#dc2626",
    "#65a30d", "#9333ea", "#0d9488"];
  var LONE = "#9ca3af";
  var MAX_FIT = 1.2;

  function percent(share) { return share === null ? "–" : (share * 100).toFixed(1) + "%"; }

  function elements(graph) {
    var nodes = graph.nodes.map(function (node, order) {
      return { group: "nodes", data: {
        id: String(node.id), label: node.title, url: node.url, colour: LONE, order: order,
      } };
    });
    var edges = graph.edges.map(function (edge) {
      return { group: "edges", data: {
        id: edge.id, source: String(edge.source), target: String(edge.target),
        share: edge.share, directed: edge.directed, url: edge.url, colour: LONE,
        label: Math.round(edge.share * 100) + "%",
      } };
    });
    return nodes.concat(edges);
  }

  var STYLE = [
    { selector: "node", style: {
      "background-color": "data(colour)", "label": "data(label)", "font-size": 12,
      "color": "#1f2933", "text-valign": "bottom", "text-margin-y": 4, "width": 24,
      "height": 24, "text-wrap": "ellipsis", "text-max-width": 150,
      "text-outline-color": "#fff", "text-outline-width": 2,
    } },
    { selector: "node.lone", style: { "opacity": 0.45 } },
    { selector: "edge", style: {
      "width": "mapData(share, 0, 1, 1.5, 14)", "line-color": "data(colour)",
      "curve-style": "bezier", "opacity": 0.8, "label": "data(label)", "font-size": 10,
      "color": "#374151", "text-background-color": "#fff", "text-background-opacity": 0.85,
      "text-background-padding": 1, "target-arrow-shape": "none",
    } },
    { selector: "edge[?directed]", style: {
      "target-arrow-shape": "triangle", "target-arrow-color": "data(colour)", "arrow-scale": 0.8,
    } },
    { selector: "edge.hover, node.hover", style: { "opacity": 1, "z-index": 10 } },
    { selector: ".hidden", style: { "display": "none" } },
  ];

  var running = null; // the layout under way: a new one (the slider moved again) replaces it

  function layout(cy, animate) {
    if (running) { running.stop(); }
    var visible = cy.elements().not(".hidden");
    container.dataset.layout = "running";
    var mine = running = visible.layout({
      name: "cose", animate: animate ? "end" : false, animationDuration: 400, fit: true,
      padding: 30,
      nodeDimensionsIncludeLabels: true, randomize: !animate,
      idealEdgeLength: function (edge) { return 150 - 70 * edge.data("share"); },
      nodeRepulsion: function () { return 12000; }, componentSpacing: 90, nodeOverlap: 20,
    });
    mine.one("layoutstop", function () {
      if (running !== mine) { return; }
      // A few documents fitted to the box would be drawn huge: no closer than 1:1.2.
      if (cy.zoom() > MAX_FIT) { cy.zoom(MAX_FIT); cy.center(visible); }
      container.dataset.layout = "done";
    });
    mine.run();
  }

  function clusters(cy) {
    var found = cy.elements().not(".hidden").components().filter(function (part) {
      return part.nodes().length > 1;
    });
    found.sort(function (a, b) { return b.nodes().length - a.nodes().length; });
    cy.batch(function () {
      cy.elements().data("colour", LONE);
      cy.nodes().addClass("lone");
      found.forEach(function (part, number) {
        part.data("colour", COLOURS[number % COLOURS.length]);
        part.nodes().removeClass("lone");
      });
    });
    list.innerHTML = "";
    found.forEach(function (part, number) {
      var item = document.createElement("li");
      var shares = part.edges().map(function (edge) { return edge.data("share"); });
      var strongest = Math.max.apply(null, shares);
      item.dataset.cluster = String(number + 1);
      item.innerHTML = '<span class="swatch"></span> <b></b> <span class="muted"></span><ul></ul>';
      item.querySelector(".swatch").style.background = COLOURS[number % COLOURS.length];
      item.querySelector("b").textContent = part.nodes().length + " documents";
      item.querySelector(".muted").textContent = "up to " + percent(strongest) + " shared";
      part.nodes().sort(function (a, b) { return a.data("order") - b.data("order"); })
        .forEach(function (node) {
          var entry = document.createElement("li");
          var link = document.createElement("a");
          link.href = node.data("url");
          link.textContent = node.data("label");
          entry.appendChild(link);
          item.querySelector("ul").appendChild(entry);
        });
      list.appendChild(item);
    });
    none.hidden = found.length > 0;
  }

  function filter(cy) {
    var threshold = Number(slider.value) / 100;
    shown.textContent = slider.value + "%";
    cy.batch(function () {
      cy.edges().forEach(function (edge) {
        edge.toggleClass("hidden", edge.data("share") < threshold);
      });
    });
    var visible = cy.edges().not(".hidden").length;
    counter.textContent = visible + " of " + cy.edges().length + " links shown";
    container.dataset.edgesShown = String(visible);
    clusters(cy);
  }

  function draw(graph) {
    if (!graph.edges.length) {
      container.hidden = true;
      document.getElementById("graph-empty").hidden = false;
      counter.textContent = graph.documents + " documents, no links";
      return;
    }
    var cy = cytoscape({
      container: container, elements: elements(graph), style: STYLE,
      minZoom: 0.2, maxZoom: 3, wheelSensitivity: 0.3,
    });
    window.collusion = { cy: cy, graph: graph };
    filter(cy);
    layout(cy, false);
    slider.addEventListener("input", function () { filter(cy); });
    slider.addEventListener("change", function () { layout(cy, true); });
    cy.on("tap", "edge, node", function (event) {
      window.location.href = event.target.data("url");
    });
    cy.on("mouseover", "edge, node", function (event) {
      event.target.addClass("hover");
      container.style.cursor = "pointer";
    });
    cy.on("mouseout", "edge, node", function (event) {
      event.target.removeClass("hover");
      container.style.cursor = "";
    });
    container.dataset.ready = "1";
  }

  fetch(container.dataset.graphUrl, { credentials: "same-origin",
    headers: { Accept: "application/json" } })
    .then(function (response) {
      if (!response.ok) { throw new Error("HTTP " + response.status); }
      return response.json();
    })
    .then(draw)
    .catch(function (error) {
      counter.textContent = "The graph could not be loaded (" + error.message + ").";
    });
})();
