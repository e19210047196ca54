// The plain SVG flame graph's part of its script (exporters/svg.py), run after flamesvg.js:
// the axis is the query's clock, a frame's details its time, share, self time and calls.
var flame = flameSvg("flame-data", function (data) {
  var total = Math.max(data.total, 1);
  function ms(ns) {
    return (ns / 1e6).toLocaleString("en-US", { minimumFractionDigits: 3, maximumFractionDigits: 3 }) + " ms";
  }
  function pct(ns, of) { return (100 * ns / Math.max(of, 1)).toFixed(2) + " %"; }
  return {
    xs: function () { return data.x; },
    ws: function () { return data.w; },
    total: function () { return total; },
    of: function () { return ""; },
    describe: function (i) {
      var name = data.names[data.n[i]];
      var text = name + " — " + ms(data.w[i]) + " " + data.clock + " (" + pct(data.w[i], total) + ")";
      if (!data.t[i]) {
        text += ", self " + ms(data.s[i]) + ", " + data.c[i].toLocaleString("en-US") + " calls";
      }
      return text;
    },
  };
});
document.documentElement.flamegraph = { zoom: flame.zoom, search: flame.search, clear: flame.clear };
