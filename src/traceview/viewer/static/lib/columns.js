// Resizable table columns: a grip at the right edge of each header cell but the last (which
// takes the rest); dragging it sets the column's width in the grid template shared by the
// header and the rows (a CSS variable on the table's root).

/** Make `head`'s cells resizable: `widths` px of every column but the last (changed in place),
 * written to `root` as `--cols` (the rows' `grid-template-columns: var(--cols)`); `changed()`
 * runs after each move. */
export function resizableColumns(root, head, widths, last, changed = () => {}) {
  const apply = () => root.style.setProperty("--cols", widths.map((w) => w + "px").join(" ") + " " + last);
  apply();
  [...head.children].slice(0, widths.length).forEach((cell, i) => {
    const grip = document.createElement("span");
    grip.className = "col-grip";
    grip.title = "Drag to resize the column";
    grip.addEventListener("click", (e) => e.stopPropagation());
    grip.addEventListener("mousedown", (e) => {
      e.preventDefault();
      e.stopPropagation();
      const x0 = e.clientX;
      const w0 = widths[i];
      const move = (ev) => {
        widths[i] = Math.max(28, Math.round(w0 + ev.clientX - x0));
        apply();
        changed();
      };
      const up = () => {
        window.removeEventListener("mousemove", move);
        window.removeEventListener("mouseup", up);
      };
      window.addEventListener("mousemove", move);
      window.addEventListener("mouseup", up);
    });
    cell.style.position = "relative";
    cell.appendChild(grip);
  });
  return apply;
}
