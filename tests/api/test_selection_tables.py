"""The Python API's tables and selections: every table agrees with `Session.profile` (Σ of the
calls' exclusive times per method is the profile's exclusive, edges summed over threads are
its edges, thread totals are its totals) on generated and corpus traces, with threads, time
ranges and "my code"; selections compose (threads and ranges intersect, method patterns only
choose rows); tables convert to pandas and Arrow, or say how to install them."""

from __future__ import annotations

import sys
from functools import cache
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import traceview
from support.corpus import readable
from support.tracebuild import make_trace
from traceview.analysis import Query, View
from traceview.api import Session, Table
from traceview.api.tables import calls_table, edges_table, tables, threads_table
from traceview.model import Clock
from traceview.synth import demo_path, generate


@cache
def generated(seed: int, clock: Clock = "dual") -> Session:
    return Session(generate(records=6_000, threads=4, seed=seed, clock=clock))


@cache
def demo() -> Session:
    return traceview.session(demo_path())


def column(table: Table, name: str) -> np.ndarray:
    """`table[name]`, which this test knows the trace records (not None)."""
    col = table[name]
    assert col is not None, name
    return col


def per_method(n: int, method: np.ndarray, values: np.ndarray) -> np.ndarray:
    out = np.zeros(n, dtype=np.int64)
    np.add.at(out, method, values)
    return out


def check_against_profile(session: Session, q: Query) -> None:
    """The four tables of `q` against `session.profile(q)`."""
    view = View(session, q)
    prof = session.profile(q)
    n = len(session.trace.methods)
    calls = calls_table(view)
    method = calls["method"]
    assert method is not None
    counts = per_method(n, method, np.ones(len(calls), dtype=np.int64))
    assert np.array_equal(counts, prof.calls + prof.recursive_calls)
    outer = ~column(calls, "recursive")
    for c in session.clocks:
        excl, incl = calls[f"excl_{c}_ns"], calls[f"incl_{c}_ns"]
        assert excl is not None and incl is not None
        assert np.array_equal(per_method(n, method, excl), prof.excl[c]), c
        assert np.array_equal(per_method(n, method[outer], incl[outer]), prof.incl[c]), c
        assert (incl >= excl).all() and (excl >= 0).all()
        if q.time_range is not None:
            tr = q.time_range
            zero = tr.lo - session.origin
            if c == tr.clock:
                start, end = calls[f"start_{c}_ns"], calls[f"end_{c}_ns"]
                assert start is not None and end is not None
                assert (start >= zero).all()
                assert (end <= tr.hi - session.origin).all()
    for c in ("cpu", "wall"):
        if c not in session.clocks:
            assert calls[f"excl_{c}_ns"] is None
    edges = edges_table(view)
    got: dict[tuple[int, ...], list[int]] = {}
    for r in edges.rows():
        key = (r["caller"], r["callee"], r["caller_recursive"], r["callee_recursive"])
        acc = got.setdefault(key, [0] * (1 + len(session.clocks)))
        acc[0] += r["calls"]
        for i, c in enumerate(session.clocks):
            acc[1 + i] += r[f"incl_{c}_ns"]
    e = prof.edges
    want = {}
    for i in range(len(e)):
        if e.calls[i]:
            pair = (int(e.parent[i]), int(e.child[i]))
            flags = (bool(e.parent_recursive[i]), bool(e.child_recursive[i]))
            want[(*pair, *flags)] = [int(e.calls[i]), *(int(e.incl[c][i]) for c in session.clocks)]
    assert got == want
    threads = threads_table(view)
    sel = np.array(prof.threads, dtype=np.int64)
    for c in session.clocks:
        total = threads[f"total_{c}_ns"]
        assert total is not None
        assert np.array_equal(total[sel], prof.thread_total[c])
    assert column(threads, "selected")[sel].all()
    calls_per_thread = threads["calls"]
    assert calls_per_thread is not None
    assert np.array_equal(calls_per_thread[sel], prof.thread_calls)
    assert int(calls_per_thread.sum()) == int(prof.thread_calls.sum())  # none elsewhere


@pytest.mark.parametrize("seed", [1, 2])
def test_tables_agree_with_the_profile_on_generated_traces(seed: int) -> None:
    s = generated(seed)
    span = s.end - s.origin
    main = s.main_thread()
    queries = [
        s.query(),
        s.query(threads=[main]),
        s.query(time_range=s.time_range(span // 5, span // 2)),
        s.query(threads=[main, 1], time_range=s.time_range(span // 3, span // 3 + span // 50)),
        s.query(my_code="com.example"),
        s.query(my_code="com.example", time_range=s.time_range(span // 4, span // 2)),
    ]
    for q in queries:
        check_against_profile(s, q)


@pytest.mark.parametrize("clock", ["cpu", "wall"])
def test_single_clock_traces_have_null_columns(clock: str) -> None:
    s = generated(3, "thread-cpu" if clock == "cpu" else clock)
    check_against_profile(s, s.query())
    t = s.select().calls()
    other = "wall" if clock == "cpu" else "cpu"
    assert t[f"start_{other}_ns"] is None and t[f"start_{clock}_ns"] is not None
    pytest.importorskip("pyarrow")
    pytest.importorskip("pandas")
    arrow = t.to_arrow()
    assert arrow.column(f"excl_{other}_ns").null_count == len(t)
    frame = t.to_pandas()
    assert frame[f"excl_{other}_ns"].isna().all()
    assert str(frame[f"excl_{other}_ns"].dtype) == "Int64"


def test_tables_agree_with_the_profile_on_corpus_traces() -> None:
    paths = readable()
    if not paths:
        pytest.skip("corpus not available")
    for path in paths:
        s = traceview.session(path)
        check_against_profile(s, s.query())
        if len(s.trace.events):
            span = s.end - s.origin
            check_against_profile(s, s.query(time_range=s.time_range(span // 4, 3 * span // 4)))


def test_edge_case_tables_empty_and_hand_made() -> None:
    trace = make_trace(
        [
            (1, "enter", "com.a.Foo.run", 0, 0),
            (1, "enter", "com.a.Foo.run", 1, 2),
            (1, "exit", "com.a.Foo.run", 3, 5),
            (1, "exit", "com.a.Foo.run", 5, 9),
        ],
        clock="dual",
    )
    s = Session(trace)
    check_against_profile(s, s.query())
    calls = s.select().calls()
    assert column(calls, "recursive").tolist() == [False, True]
    assert column(calls, "parent").tolist() == [-1, 0]
    assert column(calls, "excl_wall_ns").tolist() == [6000, 3000]
    none = s.select(start="20us", end="30us")
    assert len(none.calls()) == 0 and len(none.profile()) == 0 and len(none.edges()) == 0
    assert set(tables(none.view)) == {"calls", "methods", "threads", "edges", "profile"}


# -- selections ------------------------------------------------------------------------------


def test_select_composes_into_the_sessions_query() -> None:
    s = demo()
    main = s.main_thread()
    sel = s.select(thread="main").range("100ms", "300ms")
    want = s.query(threads=[main], time_range=s.time_range(100_000_000, 300_000_000))
    assert sel.query == want
    assert s.select(thread="main", start="100ms", end="300ms").query == want
    # a second range intersects the first; threads intersect too
    assert sel.range("200ms", None).query.time_range == s.time_range(200_000_000, 300_000_000)
    assert sel.range(0, "150ms").query.time_range == s.time_range(100_000_000, 150_000_000)
    tid = int(s.trace.threads.id[main])
    assert s.select(thread=["main", "RenderThread"]).thread(tid).query.threads == (main,)
    with pytest.raises(ValueError, match="none of the threads"):
        s.select(thread="main").thread("RenderThread")
    assert s.select(clock="wall").query.clock == "wall"
    assert s.select().clock("wall").my_code("com.example").query.my_code == ("com.example",)
    # the selection's numbers are the session's
    prof = sel.profile()
    p = s.profile(want)
    for row in prof.rows():
        m = row["method"]
        assert row["excl_wall_ns"] == p.excl["wall"][m] and row["calls"] == p.calls[m]


def test_select_errors_are_plain_values_errors() -> None:
    s = demo()
    with pytest.raises(ValueError, match="no thread named"):
        s.select(thread="mian")
    with pytest.raises(ValueError, match="bad duration"):
        s.select(start="1.5 seconds")
    with pytest.raises(TypeError, match="int ns"):
        s.select().range(1.5)  # type: ignore[arg-type]  # deliberate: a float is refused
    with pytest.raises(ValueError, match="ends before"):
        s.select().range("2s", "1s")
    with pytest.raises(ValueError, match="no cpu clock"):
        generated(3, "wall").select(clock="cpu")


def test_method_patterns_choose_rows_never_numbers() -> None:
    s = demo()
    sel = s.select(thread="main", clock="wall")
    matched = sel.methods("com.example.*")
    whole = {r["method"]: r for r in sel.profile().rows()}
    rows = matched.profile().rows()
    assert rows and len(rows) < len(whole)
    names = s.trace.methods
    for r in rows:
        assert names.class_name[r["method"]].startswith("com.example.")
        assert r == whole[r["method"]]
    # patterns within one call are ORed, successive calls ANDed; labels with signatures match
    either = sel.methods("*.onBindViewHolder", "*.bind").profile()
    both = sel.methods("*.onBindViewHolder", "*.bind").methods("*Search*").profile()
    assert set(column(both, "method").tolist()) < set(column(either, "method").tolist())
    assert len(sel.methods("*.bind (*)V").profile()) > 0
    calls = matched.calls()
    assert set(column(calls, "method").tolist()) <= set(r["method"] for r in rows)
    edges = matched.edges()
    hit = matched.matching()
    for r in edges.rows():
        assert (r["caller"] >= 0 and hit[r["caller"]]) or hit[r["callee"]]
    assert len(matched.method_table()) == int(hit.sum())
    assert "methods=com.example.*" in repr(matched)


def test_one_line_top_20_by_exclusive_wall_time_on_the_main_thread() -> None:
    top = traceview.session(demo_path()).select(thread="main").profile().top(20, "excl_wall_ns")
    s = demo()
    prof = s.profile(s.query(threads=[s.main_thread()]))
    want = np.sort(prof.excl["wall"][prof.excl["wall"] > 0])[::-1][:20]
    assert column(top, "excl_wall_ns").tolist() == want.tolist()


# -- tables ----------------------------------------------------------------------------------


def test_table_sort_head_where_rows_and_repr() -> None:
    names = np.empty(4, dtype=object)
    names[:] = ["b", "a\x1b[31m", "c", "a"]
    t = Table({"x": np.array([2, 1, 2, 3]), "name": names, "none": None})
    assert t.columns == ("x", "name", "none") and len(t) == 4
    assert column(t.sort("x"), "x").tolist() == [3, 2, 2, 1]
    assert column(t.sort("x"), "name").tolist()[1:3] == ["b", "c"]  # stable
    assert column(t.sort("x", descending=False), "x").tolist() == [1, 2, 2, 3]
    assert column(t.sort("name", descending=False), "name").tolist()[0] == "a"
    assert t.top(2, "x").rows() == [
        {"x": 3, "name": "a", "none": None},
        {"x": 2, "name": "b", "none": None},
    ]
    assert len(t.where(column(t, "x") == 2)) == 2
    with pytest.raises(ValueError, match="does not record"):
        t.sort("none")
    with pytest.raises(KeyError, match="no column 'y'"):
        t["y"]
    text = repr(t)
    assert "\x1b" not in text and "[4 rows x 3 columns]" in text
    html = Table({"name": np.array(["<b>&", None], dtype=object)})._repr_html_()
    assert "&lt;b&gt;&amp;" in html and "<b>" not in html and "2 rows x 1 columns" in html
    with pytest.raises(ValueError, match="different lengths"):
        Table({"a": np.zeros(2), "b": np.zeros(3)})


def test_every_table_converts_to_arrow_and_pandas() -> None:
    pa = pytest.importorskip("pyarrow")
    pytest.importorskip("pandas")
    sel = demo().select(thread="main")
    for t in (sel.profile(), sel.calls(), sel.threads(), sel.edges(), sel.method_table()):
        arrow = t.to_arrow()
        frame = t.to_pandas()
        assert arrow.num_rows == len(frame) == len(t)
        assert list(frame.columns) == list(arrow.column_names) == list(t.columns)
    assert sel.method_table().to_arrow().schema.field("label").type == pa.string()


def test_conversions_say_how_to_install_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    t = Table({"x": np.arange(3)})
    missing: dict[str, Any] = {"pandas": None, "pyarrow": None}
    monkeypatch.setattr(sys, "modules", {**sys.modules, **missing})
    with pytest.raises(ImportError, match=r"pip install 'traceview\[data\]'"):
        t.to_pandas()
    with pytest.raises(ImportError, match=r"to_arrow\(\) needs pyarrow"):
        t.to_arrow()


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(1, 2),
    a=st.floats(0, 1),
    b=st.floats(0, 1),
    threads=st.sets(st.integers(0, 3), max_size=3),
    my_code=st.booleans(),
)
def test_tables_agree_with_the_profile_on_random_selections(
    seed: int, a: float, b: float, threads: set[int], my_code: bool
) -> None:
    s = generated(seed)
    span = s.end - s.origin
    lo, hi = sorted((int(a * span), int(b * span)))
    q = s.query(
        threads=sorted(threads) or None,
        time_range=s.time_range(lo, hi),
        my_code="com.example" if my_code else None,
    )
    check_against_profile(s, q)
