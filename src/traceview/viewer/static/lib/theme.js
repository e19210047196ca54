// Light/dark theme: CSS variables for the DOM, and the same colours read back for canvases.

import { emit } from "./state.js";

let cached = null;

/** Canvas colours of the current theme (from the CSS variables in style.css). */
export function colors() {
  if (cached) return cached;
  const cs = getComputedStyle(document.documentElement);
  const v = (name) => cs.getPropertyValue(name).trim();
  const font = "11px " + (v("--font") || "system-ui, sans-serif");
  const probe = document.createElement("canvas").getContext("2d");
  probe.font = font;
  const sample = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOP.";
  cached = {
    bg: v("--canvas-bg"),
    alt: v("--canvas-alt"),
    axisBg: v("--panel"),
    text: v("--text"),
    dimText: v("--muted"),
    grid: v("--border"),
    merged: v("--merged"),
    sel: v("--select"),
    edge: v("--strip-edge"),
    shade: v("--shade"),
    rangeEdge: v("--accent"),
    rangeFill: v("--range-fill"),
    frame: v("--frame"),
    frameBg: v("--frame-bg"),
    found: v("--mark-strong") || "#e8a400",
    font,
    charW: probe.measureText(sample).width / sample.length,
  };
  fadeCache.clear();
  return cached;
}

const fadeCache = new Map();

function rgb(hex) {
  const h = hex.replace("#", "");
  const n = parseInt(h.length === 3 ? h.replace(/./g, "$&$&") : h, 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

/** The faded variant of a palette colour (traceview's 150 + c/4), blended toward the
 * background `bg` (the theme's `colors().bg`). */
export function faded(hex, bg) {
  const key = hex + "/" + bg;
  let hit = fadeCache.get(key);
  if (!hit) {
    const b = rgb(bg || "#ffffff");
    const c = rgb(hex);
    hit = "rgb(" + c.map((x, i) => Math.round(x * 0.25 + b[i] * 0.75)).join(",") + ")";
    fadeCache.set(key, hit);
  }
  return hit;
}

const textCache = new Map();

/** Black or white, whichever reads better on `hex`. */
export function textColorOn(hex) {
  let hit = textCache.get(hex);
  if (!hit) {
    const [r, g, b] = rgb(hex);
    hit = 0.299 * r + 0.587 * g + 0.114 * b > 140 ? "#111" : "#fff";
    textCache.set(hex, hit);
  }
  return hit;
}

/** Switch theme ("light" | "dark"), remember it, and repaint the canvases. */
export function setTheme(name) {
  document.documentElement.dataset.theme = name;
  try {
    localStorage.setItem("traceview.theme", name);
  } catch (_e) {
    /* storage unavailable */
  }
  cached = null;
  emit("theme");
}

export function savedTheme() {
  try {
    return localStorage.getItem("traceview.theme") || "light";
  } catch (_e) {
    return "light";
  }
}
