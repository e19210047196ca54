"""The service keeps a dataset (issue 21, service/history.py): each upload is added with its
labels (uploaded again with other labels: added again with them); labels the dataset cannot
take are refused in one line; a method's page charts its median exclusive and inclusive time
per build with every run as a point — numbers equal to the traces' own profiles, an SVG drawn
by the page itself (no script, nothing fetched elsewhere), names escaped."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from starlette.testclient import TestClient
from test_service_routes import WRITE, make_client

from support.datasets import read_tables
from support.plant import ALWAYS, planted_bytes
from traceview.analysis import Session
from traceview.api.keys import method_key
from traceview.readers import load
from traceview.writer import write

pytest.importorskip("pyarrow")
pytest.importorskip("duckdb")

Runs = tuple[list[bytes], list[bytes]]
Served = tuple[TestClient, Path]


@pytest.fixture(scope="module")
def runs() -> Runs:
    return planted_bytes(runs=2)


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    root = tmp_path / "data" / "dataset"
    with make_client(tmp_path / "data", dataset=root) as c:
        yield c, root


def post(client: TestClient, data: bytes, name: str, **labels: str) -> Any:
    query = "&".join(f"{k}={v}" for k, v in labels.items())
    return client.post(f"/api/traces?{query}", content=data, headers={**WRITE, "X-Filename": name})


def test_uploads_go_to_the_dataset_with_their_labels(served: Served, runs: Runs) -> None:
    client, root = served
    assert post(client, runs[0][0], "b0.trace", app="com.example", build="100").status_code == 201
    assert post(client, runs[1][0], "c0.trace", app="com.example", build="101").status_code == 201
    traces = read_tables(root)["traces"].to_pylist()
    assert sorted((t["name"], t["app"], t["build"]) for t in traces) == [
        ("b0.trace", "com.example", "100"),
        ("c0.trace", "com.example", "101"),
    ]
    # the same bytes with another build: the run moves to it, once
    assert post(client, runs[0][0], "b0.trace", build="99", device="px7").status_code == 200
    traces = read_tables(root)["traces"].to_pylist()
    assert sorted((t["build"], t["device"]) for t in traces) == [("101", None), ("99", "px7")]
    assert len(read_tables(root)["calls"].column("trace_id").unique()) == 2
    r = post(client, runs[0][1], "x.trace", app="my app")  # a folder name the dataset refuses
    assert r.status_code == 400 and "\n" not in r.json()["error"] and "app" in r.json()["error"]


def test_a_method_page_charts_its_median_per_build(served: Served, runs: Runs) -> None:
    client, _ = served
    want: dict[str, list[tuple[int, int]]] = {}
    for build, side in (("100", runs[0]), ("101", runs[1])):
        for i, data in enumerate(side):
            assert (
                post(
                    client, data, f"r{build}-{i}<b>.trace", app="com.example", build=build
                ).status_code
                == 201
            )
            s = Session(load(data))
            prof = s.profile(s.query())
            me = s.trace.methods
            (row,) = [m for m in range(len(me)) if f"{me.class_name[m]}.{me.name[m]}" == ALWAYS]
            want.setdefault(build, []).append(
                (int(prof.excl["wall"][row]), int(prof.incl["wall"][row]))
            )
            key = method_key(me.class_name[row], me.name[row], me.signature[row])
    got = client.get(f"/api/methods/{key}?app=com.example").json()
    assert got["method"]["key"] == key and got["method"]["name"] == ALWAYS.rsplit(".", 1)[1]
    assert [b["build"] for b in got["builds"]] == ["100", "101"]
    for b in got["builds"]:
        points = want[b["build"]]
        assert sorted((r["excl_ns"], r["incl_ns"]) for r in b["runs"]) == sorted(points)
        assert b["median_excl_ns"] == float(np.median([e for e, _ in points]))
        assert b["median_incl_ns"] == float(np.median([i for _, i in points]))
    assert got["builds"][1]["median_excl_ns"] > 1.5 * got["builds"][0]["median_excl_ns"]  # 2x
    page = client.get(f"/methods/{key}?app=com.example")
    assert page.status_code == 200 and "<svg" in page.text and "<polyline" in page.text
    assert page.text.count("<circle") == 2 * 4  # every run, exclusive and inclusive
    assert "<script" not in page.text and not re.search(r"(src|href)=['\"]https?:", page.text)
    assert "&lt;b&gt;" in page.text and "<b>.trace" not in page.text  # names escaped
    found = client.get("/methods?app=com.example&q=isBoring")
    assert f"/methods/{key}?app=com.example" in found.text
    assert client.get("/api/methods/123?app=com.example").status_code == 404
    assert client.get(f"/api/methods/{key}?app=com.example&clock=nope").status_code == 400


@pytest.mark.parametrize(
    "bad",
    [
        "branch=feature%2Fx",
        "device=a%5Cb",
        "branch=..",
        "branch=x%2F..%2Fy",
        "device=a%00b",
        "device=a%1B%5B31m",
        "branch=" + "x" * 129,
        "build=" + "9" * 65,
        "app=..",
        "app=a%2Fb",
    ],
)
def test_uploads_with_bad_labels_are_refused_in_one_line(
    served: Served, runs: Runs, bad: str
) -> None:
    """The dataset's one rule of labels (dataset/labels.py), as `dataset add` applies it."""
    client, root = served
    r = client.post(f"/api/traces?{bad}", content=runs[0][0], headers=WRITE)
    assert r.status_code == 400, (bad, r.text)
    assert "\n" not in r.json()["error"] and "label" in r.json()["error"]
    assert client.get("/api/traces").json()["traces"] == []  # refused before storing
    assert not (root / "traces").exists()


def _without_date(tables: dict[str, Any]) -> dict[str, Any]:
    """The tables without the `date` partition (the day of a file's mtime for a trace that
    names none)."""
    return {k: t.drop_columns(["date"]) for k, t in tables.items()}


def test_a_mapping_given_or_removed_later_replaces_the_runs_rows(
    served: Served, tmp_path: Path
) -> None:
    """PUT /api/traces/<id>/mapping after the upload: the run's rows in the dataset become
    those `dataset add --mapping` writes (original names, their method_keys), once; DELETE
    of the mapping: the obfuscated rows again, as first added."""
    from support.obfuscate import KEPT, obfuscate
    from traceview.analysis.rename import MappingRename
    from traceview.dataset.add import Reading, add
    from traceview.readers.mapping import read_mapping
    from traceview.synth import generate

    client, root = served
    trace = generate(records=3000, threads=2, seed=7)
    obf, mapping = obfuscate(trace, "q")
    folder = tmp_path / "files"
    folder.mkdir()
    data, text = folder / "app.trace", folder / "mapping.txt"
    write(obf, str(data))
    text.write_text(mapping)
    labels = {"app": "com.example", "build": "7"}
    plain, mapped = tmp_path / "plain", tmp_path / "mapped"  # what dataset add writes
    add(plain, [data], labels)
    add(mapped, [data], labels, Reading(rename=MappingRename(read_mapping(text))))
    want_plain, want_mapped = (_without_date(read_tables(r)) for r in (plain, mapped))
    originals = {
        method_key(c, n, s)
        for c, n, s in zip(
            trace.methods.class_name, trace.methods.name, trace.methods.signature, strict=True
        )
        if not c.startswith(KEPT)  # renamed by the obfuscation
    }
    assert originals <= set(want_mapped["methods"].column("method_key").to_pylist())
    assert not originals & set(want_plain["methods"].column("method_key").to_pylist())

    trace_id = post(client, data.read_bytes(), "app.trace", **labels).json()["id"]
    got = _without_date(read_tables(root))
    assert all(got[t].equals(want_plain[t]) for t in want_plain)
    url = f"/api/traces/{trace_id}/mapping"
    assert client.put(url, content=mapping.encode(), headers=WRITE).status_code == 200
    got = _without_date(read_tables(root))
    assert all(got[t].equals(want_mapped[t]) for t in want_mapped)
    # the same bytes uploaded again keep the names (the mapping stays with the trace)
    assert post(client, data.read_bytes(), "app.trace", **labels).status_code == 200
    assert all(_without_date(read_tables(root))[t].equals(want_mapped[t]) for t in want_mapped)
    r = client.delete(url, headers=WRITE)
    assert r.status_code == 200 and r.json() == {"id": trace_id, "mapping": False}
    got = _without_date(read_tables(root))
    assert all(got[t].equals(want_plain[t]) for t in want_plain)
    assert client.delete(url, headers=WRITE).status_code == 404  # no mapping left
    assert not any((root / "_staging").iterdir()) and not any((root / "_claims").iterdir())


def test_a_deleted_upload_leaves_the_dataset(served: Served, runs: Runs) -> None:
    """DELETE /api/traces/<id>: the run's rows leave every table of the service's dataset
    (they stayed, charting a run its owner had deleted); the other runs keep theirs."""
    client, root = served
    gone = post(client, runs[0][0], "b0.trace", app="com.example", build="100").json()["id"]
    kept = post(client, runs[1][0], "c0.trace", app="com.example", build="101").json()["id"]
    assert client.delete(f"/api/traces/{gone}", headers=WRITE).status_code == 200
    tables = read_tables(root)
    for name, table in tables.items():
        assert gone not in set(table.column("trace_id").to_pylist()), name
    assert set(tables["calls"].column("trace_id").to_pylist()) == {kept}
    assert client.delete(f"/api/traces/{gone}", headers=WRITE).status_code == 404


def test_many_uploads_of_one_build_keep_few_parts(served: Served, tmp_path: Path) -> None:
    """Each upload adds a part per table to its build's folders; past `FANIN` of them the
    feed's adds merge them (dataset/compact.py), and every run stays in every table."""
    from support.datasets import write_traces
    from traceview.dataset.compact import FANIN
    from traceview.dataset.layout import ALL_TABLES, table_files

    client, root = served
    paths = write_traces(tmp_path / "t", list(range(FANIN + 2)), records=400)
    for p in paths:
        assert post(client, p.read_bytes(), p.name, app="com.example", build="7").status_code == 201
    per_folder: dict[Path, int] = {}
    for table in ALL_TABLES:
        for f in table_files(root, table):
            per_folder[f.parent] = per_folder.get(f.parent, 0) + 1
    assert per_folder and max(per_folder.values()) < FANIN, per_folder
    tables = read_tables(root)
    assert tables["traces"].num_rows == len(paths)
    for name in ("threads", "methods", "calls", "profile"):
        assert len(tables[name].column("trace_id").unique()) == len(paths), name
