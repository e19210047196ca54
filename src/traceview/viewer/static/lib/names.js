// Method names fitted to a width: the signature goes first, then the middle of the package,
// then the start of the class; the method name stays whole as long as it fits at all.

const ELL = "…";

/** The parts of a label "pkg.Class.method (sig)": [package with its last dot, "Class", "method",
 * " (sig)"]; a label without dots is all method. */
export function nameParts(label) {
  const text = String(label);
  const space = text.indexOf(" ");
  const name = space < 0 ? text : text.slice(0, space);
  const sig = space < 0 ? "" : text.slice(space);
  const dot = name.lastIndexOf(".");
  if (dot < 0) return ["", "", name, sig];
  const owner = name.slice(0, dot);
  const method = name.slice(dot + 1);
  const cut = Math.max(owner.lastIndexOf("."), owner.lastIndexOf("/"));
  return [owner.slice(0, cut + 1), owner.slice(cut + 1), method, sig];
}

/** `label` in at most `max` characters: whole when it fits; else without the signature; else
 * the package's middle elided ("android.…widget.TextView.onDraw"), keeping its first segment
 * and as many trailing segments as fit; else "…" and the end of the class before the method;
 * else the method alone, cut at its end. */
export function elideName(label, max) {
  const text = String(label);
  if (text.length <= max) return text;
  const [pkg, cls, method, sig] = nameParts(text);
  const tail = (cls ? cls + "." : "") + method;
  const name = pkg + tail;
  if (name.length <= max) return name + (sig && name.length + 2 <= max ? " " + ELL : "");
  if (tail.length + 1 <= max && pkg) {
    const segs = pkg.split(/(?<=[./])/); // "android.", "widget."
    let head = segs[0];
    if (head.length + 1 + tail.length > max) head = "";
    let back = "";
    for (let i = segs.length - 1; i > (head ? 0 : -1); i--) {
      if (head.length + 1 + segs[i].length + back.length + tail.length > max) break;
      back = segs[i] + back;
    }
    return head + ELL + back + tail;
  }
  if (method.length + 2 <= max && cls) return ELL + cls.slice(cls.length - (max - method.length - 2)) + "." + method;
  if (method.length <= max) return method;
  return method.slice(0, Math.max(max - 1, 0)) + ELL;
}

/** Characters of `width` px at `charW` px each (never negative). */
export function charsIn(width, charW) {
  return Math.max(0, Math.floor(width / charW));
}
