// The differential flame graph's part of its script (exporters/diffsvg.py writes every word of
// the details), run after flamesvg.js: a frame's details are both sides' numbers, its change
// and significance; "Widths" switches the axis between the candidate's and the baseline's.
var side;  // "candidate" or "baseline": whose widths are drawn
var flame = flameSvg("diff-data", function (data) {
  side = data.side;
  return {
    xs: function () { return side === "candidate" ? data.xc : data.xb; },
    ws: function () { return side === "candidate" ? data.wc : data.wb; },
    total: function () { return Math.max(side === "candidate" ? data.total_c : data.total_b, 1); },
    of: function () { return " of the " + side; },
    describe: function (i) { return data.tip[i]; },
  };
});
var sideButton = document.getElementById("side");

function setSide(s) {
  side = s;
  sideButton.textContent = "Widths: " + side;
  document.documentElement.setAttribute("data-side", side);
  flame.zoom(flame.zoomed());
}

sideButton.addEventListener("click", function () {
  setSide(side === "candidate" ? "baseline" : "candidate");
});
document.documentElement.diffflame = { zoom: flame.zoom, side: setSide, search: flame.search, clear: flame.clear };
