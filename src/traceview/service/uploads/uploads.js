// The service's start page: upload a trace (picker, drag-and-drop, XHR progress), list the
// recent uploads from GET /api/traces, delete one. Names are set as text, never as HTML.

const $ = (id) => document.getElementById(id);
let tokenRequired = false;

function human(bytes) {
  const units = ["B", "KiB", "MiB", "GiB"];
  let v = bytes;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) { v /= 1024; i += 1; }
  return (i ? v.toFixed(1) : String(v)) + " " + units[i];
}

function duration(us) {
  if (us >= 1e6) return (us / 1e6).toFixed(2) + " s";
  return (us / 1e3).toFixed(1) + " ms";
}

function headers() {
  const h = { "X-Traceview": "1" };
  const token = $("token").value.trim();
  if (token) h.Authorization = "Bearer " + token;
  return h;
}

function status(text, isError) {
  $("status").textContent = text;
  $("status").className = isError ? "error" : "";
}

function cell(row, text, cls) {
  const td = document.createElement("td");
  td.textContent = text;
  if (cls) td.className = cls;
  row.appendChild(td);
  return td;
}

function link(parent, href, text) {
  const a = document.createElement("a");
  a.href = href;
  a.textContent = text;
  parent.appendChild(a);
}

async function refresh() {
  const resp = await fetch("/api/traces");
  const body = await resp.json();
  tokenRequired = body.token_required;
  $("token-row").hidden = !tokenRequired;
  $("limit").textContent = "Up to " + human(body.max_upload) + " per file.";
  const tbody = $("traces").querySelector("tbody");
  tbody.replaceChildren();
  for (const t of body.traces) {
    const tr = document.createElement("tr");
    const name = cell(tr, "", "name");
    link(name, t.url, t.name);
    name.title = t.name + "\n" + t.id;
    cell(tr, human(t.size), "num");
    cell(tr, t.variant);
    cell(tr, String(t.threads), "num");
    cell(tr, duration(t.duration_us), "num");
    cell(tr, Object.entries(t.labels || {}).map(([k, v]) => k + ":" + v).join(", "), "labels");
    cell(tr, new Date(t.uploaded * 1000).toLocaleString());
    const actions = cell(tr, "");
    link(actions, t.url, "viewer");
    link(actions, t.url + "flames", "flame graphs");
    link(actions, t.url + "report.html", "report");
    const del = document.createElement("button");
    del.className = "delete";
    del.textContent = "delete";
    del.addEventListener("click", () => remove(t));
    actions.appendChild(del);
    tbody.appendChild(tr);
  }
  $("empty").hidden = body.traces.length > 0;
}

async function remove(t) {
  if (!confirm("Delete " + t.name + "?")) return;
  const resp = await fetch("/api/traces/" + t.id, { method: "DELETE", headers: headers() });
  if (!resp.ok) {
    const body = await resp.json().catch(() => ({}));
    status("Delete failed: " + (body.error || resp.status), true);
  }
  refresh();
}

/** The labels typed in, as the upload's query (`?build=100&app=x`, empty values left out). */
function labelQuery() {
  const q = new URLSearchParams();
  for (const key of ["app", "build", "branch", "device"]) {
    const v = $("label-" + key).value.trim();
    if (v) q.set(key, v);
  }
  const text = q.toString();
  return text ? "?" + text : "";
}

function upload(file) {
  const xhr = new XMLHttpRequest();
  xhr.open("POST", "/api/traces" + labelQuery());
  for (const [k, v] of Object.entries(headers())) xhr.setRequestHeader(k, v);
  xhr.setRequestHeader("X-Filename", encodeURIComponent(file.name));
  xhr.setRequestHeader("Content-Type", "application/octet-stream");
  $("progress").hidden = false;
  $("bar").removeAttribute("value");
  status("");
  xhr.upload.onprogress = (e) => {
    if (!e.lengthComputable) return;
    $("bar").value = e.loaded / e.total;
    $("progress-text").textContent = human(e.loaded) + " of " + human(e.total);
    if (e.loaded === e.total) $("progress-text").textContent = "analysing…";
  };
  xhr.onload = () => {
    $("progress").hidden = true;
    let body = {};
    try { body = JSON.parse(xhr.responseText); } catch (_e) { /* not JSON */ }
    if (xhr.status === 200 || xhr.status === 201) {
      const mapping = $("mapping").files[0];
      if (!mapping) {
        status("Stored: " + body.name + " — opening…");
        location.href = body.url;
        return;
      }
      status("Stored: " + body.name + " — adding its mapping…");
      addMapping(body, mapping);
    } else {
      status("Upload refused: " + (body.error || xhr.status + " " + xhr.statusText), true);
      refresh();
    }
  };
  xhr.onerror = () => {
    $("progress").hidden = true;
    status("Upload failed: the connection was closed (too large?)", true);
  };
  xhr.send(file);
}

/** PUT the build's mapping.txt for a stored trace, then open the trace. */
async function addMapping(trace, mapping) {
  const resp = await fetch("/api/traces/" + trace.id + "/mapping", {
    method: "PUT",
    headers: { ...headers(), "X-Filename": encodeURIComponent(mapping.name) },
    body: mapping,
  });
  if (resp.ok) {
    location.href = trace.url;
    return;
  }
  let body = {};
  try { body = await resp.json(); } catch (_e) { /* not JSON */ }
  status("Trace stored, mapping refused: " + (body.error || resp.status + " " + resp.statusText), true);
  refresh();
}

$("file").addEventListener("change", (e) => {
  if (e.target.files.length) upload(e.target.files[0]);
});
const drop = $("drop");
drop.addEventListener("dragover", (e) => { e.preventDefault(); drop.classList.add("over"); });
drop.addEventListener("dragleave", () => drop.classList.remove("over"));
drop.addEventListener("drop", (e) => {
  e.preventDefault();
  drop.classList.remove("over");
  if (e.dataTransfer.files.length) upload(e.dataTransfer.files[0]);
});
refresh().catch((err) => status("Could not list the traces: " + err.message, true));
