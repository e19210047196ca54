// The flame painter both flame panels share (the Flame Chart and compare mode's differential
// flame graph): nodes as an icicle (roots on top) over a view [v0, v1] of their x axis, and
// the node under a point. `look` says how each node looks; nothing here knows where nodes
// come from.

export const FRAME_H = 17;

/** Paint the nodes `N` (columns x, width, depth) over `W` px of `ctx` at the view [v0, v1];
 * `look`: fill(i), text(i, n) (label, fitted to n characters when it can), dim(i) (faded), selected(i), dashed(i) (a dashed outline:
 * on one side only), textColor(fill), faded(fill), and the theme's colours `c`. */
export function paintFlame(ctx, N, view, W, look) {
  const c = look.c;
  const [v0, v1] = view;
  const scale = W / (v1 - v0);
  ctx.font = c.font;
  ctx.textBaseline = "middle";
  for (let i = 0; i < N.x.length; i++) {
    const x0 = (N.x[i] - v0) * scale;
    const w = N.width[i] * scale;
    if (x0 + w < 0 || x0 > W || w < 0.3) continue;
    const y = N.depth[i] * FRAME_H + 2;
    const col = look.fill(i);
    const dim = look.dim(i);
    ctx.fillStyle = dim ? look.faded(col) : col;
    const xa = Math.max(x0, -1);
    const wa = Math.min(x0 + w, W + 1) - xa;
    ctx.fillRect(xa, y, Math.max(wa - 1, 0.5), FRAME_H - 1);
    if (look.dashed(i) && wa > 3) {
      ctx.save();
      ctx.setLineDash([3, 2]);
      ctx.strokeStyle = c.text;
      ctx.lineWidth = 1;
      ctx.strokeRect(xa + 0.5, y + 0.5, Math.max(wa - 2, 1), FRAME_H - 2);
      ctx.restore();
    }
    if (look.selected(i)) {
      ctx.strokeStyle = c.sel;
      ctx.lineWidth = 2;
      ctx.strokeRect(xa + 1, y + 1, Math.max(wa - 3, 1), FRAME_H - 3);
    }
    if (wa > 28) {
      const n = Math.floor((wa - 6) / c.charW);
      let text = look.text(i, n);
      if (text.length > n) text = text.slice(0, Math.max(n - 1, 0)) + "…";
      if (n >= 3) {
        ctx.fillStyle = dim ? c.dimText : look.textColor(col);
        ctx.fillText(text, xa + 3, y + FRAME_H / 2);
      }
    }
  }
}

/** The canvas height the nodes need. */
export function flameHeight(N) {
  let maxDepth = 0;
  for (const d of N.depth) if (d > maxDepth) maxDepth = d;
  return N.x.length ? (maxDepth + 1) * FRAME_H + 4 : 10;
}

/** The node at canvas point (x, y) of a `width` px canvas showing [v0, v1], or -1. */
export function hitFlame(N, view, width, x, y) {
  const depth = Math.floor((y - 2) / FRAME_H);
  const [v0, v1] = view;
  const t = v0 + (x * (v1 - v0)) / width;
  for (let i = 0; i < N.x.length; i++) {
    if (N.depth[i] === depth && N.x[i] <= t && t < N.x[i] + N.width[i]) return i;
  }
  return -1;
}
