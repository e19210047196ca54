// Interaction for traceview's differential flame graph SVG (exporters/diffsvg.py writes the
// frames and every word of their details; this script only repositions and recolours them):
// hover shows a frame's baseline and candidate numbers, its change and significance; click
// zooms to the frame; "Widths" switches between the candidate's and the baseline's widths;
// "Search" highlights frames whose name matches a regular expression. Names are only ever set
// as text (textContent), never parsed as markup.
(function () {
  "use strict";
  var svg = document.documentElement;
  var data = JSON.parse(document.getElementById("diff-data").textContent);
  var W = +svg.getAttribute("data-width");
  var PAD = +svg.getAttribute("data-pad");
  var CHAR = +svg.getAttribute("data-char");
  var groups = Array.prototype.slice.call(document.querySelectorAll("#frames > g"));
  var details = document.getElementById("details");
  var matched = document.getElementById("matched");
  var reset = document.getElementById("reset");
  var clear = document.getElementById("clear");
  var sideButton = document.getElementById("side");
  var fills = groups.map(function (g) { return g.querySelector("rect").getAttribute("fill"); });
  var side = data.side;  // "candidate" or "baseline": whose widths are drawn
  var zoomed = -1;
  var searching = null;

  function xs() { return side === "candidate" ? data.xc : data.xb; }
  function ws() { return side === "candidate" ? data.wc : data.wb; }
  function total() { return Math.max(side === "candidate" ? data.total_c : data.total_b, 1); }

  function fit(name, width) {
    var chars = Math.floor((width - 6) / CHAR);
    if (chars < 3) return "";
    return name.length <= chars ? name : name.slice(0, chars - 2) + "..";
  }

  // place every frame for the zoom on frame z (-1: the whole graph), on the current side
  function place(z) {
    var X = xs(), Wd = ws();
    if (z >= 0 && Wd[z] <= 0) z = -1;  // a frame the other side does not have
    var x0 = 0, w0 = total(), d0 = -1;
    if (z >= 0) { x0 = X[z]; w0 = Math.max(Wd[z], 1); d0 = data.d[z]; }
    var scale = W / w0;
    for (var i = 0; i < groups.length; i++) {
      var g = groups[i], x = X[i], w = Wd[i], d = data.d[i];
      var rect = g.querySelector("rect"), label = g.querySelector("text");
      var eps = w0 * 1e-9;
      var inside = x >= x0 - eps && x + w <= x0 + w0 + eps && d >= d0;
      var above = z >= 0 && d < d0 && x <= x0 + eps && x + w >= x0 + w0 - eps;
      if (w > 0 && (z < 0 || inside || above)) {
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

  function setSide(s) {
    side = s;
    sideButton.textContent = "Widths: " + side;
    svg.setAttribute("data-side", side);
    place(zoomed);
  }

  function search(pattern) {
    var re;
    try { re = new RegExp(pattern); } catch (e) { matched.textContent = "bad pattern: " + e.message; return; }
    searching = pattern;
    var X = xs(), Wd = ws();
    var sum = 0, end = -1, hits = 0;
    // each stretch of time once: in x order (outer frames first), a match inside the span of
    // an earlier match adds nothing
    var order = groups.map(function (_, i) { return i; }).sort(function (a, b) {
      return X[a] - X[b] || data.d[a] - data.d[b];
    });
    for (var k = 0; k < order.length; k++) {
      var i = order[k];
      var hit = re.test(data.names[data.n[i]]);
      groups[i].querySelector("rect").setAttribute("fill", hit ? "rgb(230,0,230)" : fills[i]);
      groups[i].classList.toggle("match", hit);
      if (hit && Wd[i] > 0) {
        hits++;
        if (X[i] >= end) { sum += Wd[i]; end = X[i] + Wd[i]; }
      }
    }
    matched.textContent = "Matched: " + (100 * sum / total()).toFixed(2) + " % of the " + side + " (" + hits + " frames)";
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
    g.addEventListener("mouseover", function () { details.textContent = data.tip[i]; });
    g.addEventListener("mouseout", function () { details.textContent = " "; });
    g.addEventListener("click", function () { place(i === zoomed ? -1 : i); });
  });
  reset.addEventListener("click", function () { place(-1); });
  clear.addEventListener("click", unsearch);
  sideButton.addEventListener("click", function () {
    setSide(side === "candidate" ? "baseline" : "candidate");
  });
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
  svg.diffflame = { zoom: place, side: setSide, search: search, clear: unsearch };
})();
