// Interaction for traceview's SVG flame graph (exporters/svg.py writes the frames; this script
// only repositions and recolours them): hover shows a frame's details, click zooms to it,
// "Search" highlights frames whose name matches a regular expression. Names are only ever set
// as text (textContent), never parsed as markup.
(function () {
  "use strict";
  var svg = document.documentElement;
  var data = JSON.parse(document.getElementById("flame-data").textContent);
  var W = +svg.getAttribute("data-width");
  var PAD = +svg.getAttribute("data-pad");
  var CHAR = +svg.getAttribute("data-char");
  var total = Math.max(data.total, 1);
  var groups = Array.prototype.slice.call(document.querySelectorAll("#frames > g"));
  var details = document.getElementById("details");
  var matched = document.getElementById("matched");
  var reset = document.getElementById("reset");
  var clear = document.getElementById("clear");
  var fills = groups.map(function (g) { return g.querySelector("rect").getAttribute("fill"); });
  var zoomed = -1;
  var searching = null;

  function ms(ns) {
    return (ns / 1e6).toLocaleString("en-US", { minimumFractionDigits: 3, maximumFractionDigits: 3 }) + " ms";
  }
  function pct(ns, of) { return (100 * ns / Math.max(of, 1)).toFixed(2) + " %"; }

  function describe(i) {
    var name = data.names[data.n[i]];
    var text = name + " — " + ms(data.w[i]) + " " + data.clock + " (" + pct(data.w[i], total) + ")";
    if (!data.t[i]) {
      text += ", self " + ms(data.s[i]) + ", " + data.c[i].toLocaleString("en-US") + " calls";
    }
    return text;
  }

  function fit(name, width) {
    var chars = Math.floor((width - 6) / CHAR);
    if (chars < 3) return "";
    return name.length <= chars ? name : name.slice(0, chars - 2) + "..";
  }

  // place every frame for the zoom on frame z (-1: the whole graph)
  function place(z) {
    var x0 = 0, w0 = total, d0 = -1;
    if (z >= 0) { x0 = data.x[z]; w0 = Math.max(data.w[z], 1); d0 = data.d[z]; }
    var scale = W / w0;
    for (var i = 0; i < groups.length; i++) {
      var g = groups[i], x = data.x[i], w = data.w[i], d = data.d[i];
      var inside = x >= x0 && x + w <= x0 + w0 && d >= d0;
      var above = z >= 0 && d < d0 && x <= x0 && x + w >= x0 + w0;
      var rect = g.querySelector("rect"), label = g.querySelector("text");
      if (z < 0 || inside || above) {
        var nx = above ? 0 : (x - x0) * scale, nw = above ? W : w * scale;
        if (nw < 0.1) { g.classList.add("hidden"); continue; }
        g.classList.remove("hidden");
        g.classList.toggle("faded", above && i !== z);
        rect.setAttribute("x", (PAD + nx).toFixed(2));
        rect.setAttribute("width", nw.toFixed(2));
        label.setAttribute("x", (PAD + nx + 3).toFixed(2));
        label.textContent = fit(data.names[data.n[i]], nw);
      } else {
        g.classList.add("hidden");
      }
    }
    zoomed = z;
    reset.classList.toggle("hidden", z < 0);
  }

  function search(pattern) {
    var re;
    try { re = new RegExp(pattern); } catch (e) { matched.textContent = "bad pattern: " + e.message; return; }
    searching = pattern;
    var sum = 0, end = -1, hits = 0;
    // count each stretch of time once: in x order (outer frames first at equal x), a match
    // inside the span of an earlier match adds nothing
    var order = groups.map(function (_, i) { return i; }).sort(function (a, b) {
      return data.x[a] - data.x[b] || data.d[a] - data.d[b];
    });
    for (var k = 0; k < order.length; k++) {
      var i = order[k];
      var hit = re.test(data.names[data.n[i]]);
      groups[i].querySelector("rect").setAttribute("fill", hit ? "rgb(230,0,230)" : fills[i]);
      groups[i].classList.toggle("match", hit);
      if (hit) {
        hits++;
        if (data.x[i] >= end) { sum += data.w[i]; end = data.x[i] + data.w[i]; }
      }
    }
    matched.textContent = "Matched: " + pct(sum, total) + " (" + hits + " frames)";
    clear.classList.remove("hidden");
  }

  function unsearch() {
    for (var i = 0; i < groups.length; i++) {
      groups[i].querySelector("rect").setAttribute("fill", fills[i]);
      groups[i].classList.remove("match");
    }
    searching = null;
    matched.textContent = "";
    clear.classList.add("hidden");
  }

  groups.forEach(function (g, i) {
    g.addEventListener("mouseover", function () { details.textContent = describe(i); });
    g.addEventListener("mouseout", function () { details.textContent = " "; });
    g.addEventListener("click", function () { place(i === zoomed ? -1 : i); });
  });
  reset.addEventListener("click", function () { place(-1); });
  clear.addEventListener("click", unsearch);
  document.getElementById("search").addEventListener("click", function () {
    var pattern = window.prompt("Search frames (regular expression)", searching || "");
    if (pattern) search(pattern); else if (pattern === "") unsearch();
  });
  window.addEventListener("keydown", function (e) {
    if ((e.ctrlKey || e.metaKey) && e.key === "f") {
      e.preventDefault();
      document.getElementById("search").dispatchEvent(new MouseEvent("click"));
    } else if (e.key === "Escape") {
      place(-1);
    }
  });
  svg.flamegraph = { zoom: place, search: search, clear: unsearch };
})();
