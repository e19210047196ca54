// Interaction both SVG flame graphs share (exporters/flamesvg.py writes the frames; this script
// only repositions and recolours them): hover shows a frame's details, click zooms to it,
// "Search" highlights frames whose name matches a regular expression and gives their share.
// exporters/flamesvg.py runs it and then the format's own part (flamegraph.js, diffflame.js)
// in one function scope. Names are only ever set as text (textContent), never parsed as markup.

// The graph of the data in script element `dataId`; `lookFor(data)` gives what differs by
// format: xs() and ws() (each frame's x and width on the axis drawn), total() (the axis'
// width), describe(i) (the details line of frame i) and of() (words after the matched share).
function flameSvg(dataId, lookFor) {
  var svg = document.documentElement;
  var data = JSON.parse(document.getElementById(dataId).textContent);
  var look = lookFor(data);
  var W = +svg.getAttribute("data-width");
  var PAD = +svg.getAttribute("data-pad");
  var CHAR = +svg.getAttribute("data-char");
  var groups = Array.prototype.slice.call(document.querySelectorAll("#frames > g"));
  var details = document.getElementById("details");
  var matched = document.getElementById("matched");
  var reset = document.getElementById("reset");
  var clear = document.getElementById("clear");
  var fills = groups.map(function (g) { return g.querySelector("rect").getAttribute("fill"); });
  var zoomed = -1;
  var searching = null;

  function fit(name, width) {
    var chars = Math.floor((width - 6) / CHAR);
    if (chars < 3) return "";
    return name.length <= chars ? name : name.slice(0, chars - 2) + "..";
  }

  // place every frame for the zoom on frame z (-1: the whole graph); a frame of width 0 is
  // not on the axis drawn (the other side's only, in a differential graph)
  function place(z) {
    var X = look.xs(), Wd = look.ws();
    if (z >= 0 && Wd[z] <= 0) z = -1;
    var x0 = 0, w0 = look.total(), d0 = -1;
    if (z >= 0) { x0 = X[z]; w0 = Math.max(Wd[z], 1); d0 = data.d[z]; }
    var scale = W / w0;
    for (var i = 0; i < groups.length; i++) {
      var g = groups[i], x = X[i], w = Wd[i], d = data.d[i];
      var rect = g.querySelector("rect"), label = g.querySelector("text");
      var eps = w0 * 1e-9;  // widths of a differential graph are medians, not whole ns
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

  function search(pattern) {
    var re;
    try { re = new RegExp(pattern); } catch (e) { matched.textContent = "bad pattern: " + e.message; return; }
    searching = pattern;
    var X = look.xs(), Wd = look.ws();
    var sum = 0, end = -1, hits = 0;
    // count each stretch of time once: in x order (outer frames first at equal x), a match
    // inside the span of an earlier match adds nothing
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
    matched.textContent = "Matched: " + (100 * sum / look.total()).toFixed(2) + " %" + look.of() + " (" + hits + " frames)";
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
    g.addEventListener("mouseover", function () { details.textContent = look.describe(i); });
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
  return {
    data: data,
    zoom: place,
    zoomed: function () { return zoomed; },
    search: search,
    clear: unsearch,
  };
}
