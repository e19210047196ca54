"""One way from a user's words to a query (analysis/ask.py, `Session.resolve`): the same words
through CLI arguments, URL parameters and Python keywords give equal queries and notes (or the
same one-line error); the rules around it stay in the session: a flame graph of an unknown
kind is refused, a per-thread forest is one cache entry, dmtracedump's numbers are kept in the
session and no module of the engine keeps a cache of its own or imports a front end."""

from __future__ import annotations

import argparse
import ast
import contextlib
import io
from dataclasses import replace
from pathlib import Path
from typing import Literal, TypedDict
from urllib.parse import parse_qsl, urlencode

import numpy as np
import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from support.engine_checks import SETTINGS, traces
from support.tracebuild import make_trace
from traceview.analysis import Query, Session, View
from traceview.analysis.ask import Ask, duration_ns
from traceview.analysis.dmtracedump import numbers
from traceview.api import Session as ApiSession
from traceview.cli import options
from traceview.cli.options import CliError
from traceview.exporters.stacks import forest
from traceview.model import ThreadTable, Trace
from traceview.viewer import params

ANALYSIS = Path(__file__).resolve().parents[2] / "src" / "traceview" / "analysis"
FRONT_ENDS = ("api", "cli", "viewer", "service", "exporters", "capture")
NAMES = ["main", "worker", "worker", "pool-1", None]  # "worker" often names several threads


@st.composite
def named_traces(draw: st.DrawFn) -> Trace:
    """A generated trace whose threads get names from `NAMES` (shared names, unnamed ones)."""
    trace = draw(traces(messy=False, threads=(1, 5)))
    names = tuple(draw(st.sampled_from(NAMES)) for _ in range(len(trace.threads)))
    return replace(trace, threads=ThreadTable(trace.threads.id, names))


class Words(TypedDict):
    threads: list[str]
    clock: str | None
    start: int | None
    end: int | None
    my_code: list[str]
    t_in_us: bool


@st.composite
def words(draw: st.DrawFn, trace: Trace) -> Words:
    """What a user may ask of `trace`: thread names or ids (sometimes unknown), a clock
    (sometimes missing), a range in µs from the start (either end open, sometimes reversed)
    and "my code" prefixes."""
    specs = [n for n in trace.threads.name if n] + [str(int(i)) for i in trace.threads.id]
    specs += ["nosuch", "99999"]
    us = st.one_of(st.none(), st.integers(0, 400))
    return {
        "threads": draw(st.lists(st.sampled_from(specs), max_size=3)),
        "clock": draw(st.sampled_from([None, "cpu", "wall"])),
        "start": draw(us),
        "end": draw(us),
        "my_code": draw(st.lists(st.sampled_from(["a", "b.B", "c/C/", "a.A"]), max_size=2)),
        "t_in_us": draw(st.booleans()),  # the viewer's t0/t1 and Python's int ns, or "Nus"
    }


Outcome = tuple[Query, tuple[str, ...]] | str


def by_cli(s: Session, w: Words) -> Outcome:
    parser = argparse.ArgumentParser()
    options.add_selection(parser)
    argv: list[str] = []
    for spec in w["threads"]:
        argv += ["--thread", spec]
    if w["clock"]:
        argv += ["--clock", str(w["clock"])]
    if w["start"] is not None:
        argv += ["--from", f"{w['start']}us"]
    if w["end"] is not None:
        argv += ["--to", f"{w['end']}us"]
    if w["my_code"]:
        argv += ["--my-code", *w["my_code"]]
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err):
            q = options.query(parser.parse_args(argv), s)
    except CliError as exc:
        return str(exc)
    notes = tuple(line.removeprefix("traceview: note: ") for line in err.getvalue().splitlines())
    return q, notes


def by_url(s: Session, w: Words) -> Outcome:
    raw: dict[str, str] = {"thread": ",".join(w["threads"])}
    raw["clock"] = str(w["clock"] or "")
    ends: tuple[tuple[Literal["start", "end"], str, str], ...] = (
        ("start", "from", "t0"),
        ("end", "to", "t1"),
    )
    for end, name, us in ends:
        if w[end] is not None:
            raw[us if w["t_in_us"] else name] = f"{w[end]}" if w["t_in_us"] else f"{w[end]}us"
    raw["mycode"] = ",".join(w["my_code"])
    p = params.known(dict(parse_qsl(urlencode(raw))), params.SELECTION)
    try:
        q = params.query(s, p)
    except ValueError as exc:
        return str(exc)
    return q, s.resolve(params.ask(p)).notes


def by_python(s: ApiSession, w: Words) -> Outcome:
    def at(value: int | None) -> str | int | None:
        if value is None:
            return None
        return int(value) * 1000 if w["t_in_us"] else f"{value}us"

    try:
        sel = s.select(
            thread=w["threads"] or None,
            clock=w["clock"],
            start=at(w["start"]),
            end=at(w["end"]),
            my_code=w["my_code"] or None,
        )
    except ValueError as exc:
        return str(exc)
    return sel.query, sel.notes


@settings(SETTINGS, max_examples=80)
@given(st.data())
def test_the_same_words_give_the_same_query_everywhere(data: st.DataObject) -> None:
    trace = data.draw(named_traces())
    w = data.draw(words(trace))
    s = ApiSession(trace)
    cli, url, python = (said(f(s, w)) for f in (by_cli, by_url, by_python))
    assert cli == url == python, (w, cli, url, python)
    if isinstance(cli, str):
        event(f"refused: {cli.split(' ')[0]}")
    else:
        event(f"threads: {'all' if cli[0].threads is None else 'some'}, notes: {len(cli[1])}")
        event(f"range: {cli[0].time_range is not None}, my code: {bool(cli[0].my_code)}")


def said(outcome: Outcome) -> Outcome:
    """An outcome to compare: a reversed range's message quotes the ends as each front end
    spelled them ("400us", or 400000 ns), the rest of it is the same."""
    if isinstance(outcome, str) and "ends before it starts" in outcome:
        return outcome.split(" (")[0]
    return outcome


def test_words_resolve_by_the_spine_rules() -> None:
    ev = [
        (t, a, "a.A.f", 10 * i, 10 * i) for t in (1, 2, 3) for i, a in enumerate(("enter", "exit"))
    ]
    trace = make_trace(ev, names={1: "main", 2: "w", 3: "w"})
    s = Session(trace)
    shared = s.resolve(Ask(threads=("w",)))
    assert shared.query.threads == (1, 2) and len(shared.notes) == 1
    assert "'w' names 2 threads (ids 2, 3)" in shared.notes[0]
    assert s.resolve(Ask(main=True)).query.threads == (s.main_thread(),)
    assert s.resolve(Ask(threads=("3",), main=True)).query.threads == (2,)
    assert s.resolve(Ask()).query == s.query()
    r = s.resolve(Ask(start="5us", end=15_000, my_code=("b/B/,a",)))
    assert r.query.time_range is not None and r.query.my_code == ("a", "b.B")
    assert (r.query.time_range.lo, r.query.time_range.hi) == (s.origin + 5000, s.origin + 15_000)
    with pytest.raises(ValueError, match="no thread named or numbered 'mian'; did you mean"):
        s.resolve(Ask(threads=("mian",)))
    with pytest.raises(ValueError, match="ends before it starts"):
        s.resolve(Ask(start="2s", end="1s"))
    with pytest.raises(TypeError, match="range start"):
        s.resolve(Ask(start=1.5))  # type: ignore[arg-type]  # deliberate: a float is refused
    # narrowing (the Python API's steps): threads and ranges intersect, packages add up
    within = s.resolve(Ask(threads=("w",), start="0", end="15us", my_code=("a",))).query
    narrow = s.resolve(Ask(threads=("3", "main"), start="5us", my_code=("b",)), within).query
    assert narrow.threads == (2,) and narrow.my_code == ("a", "b")
    assert narrow.time_range is not None
    assert (narrow.time_range.lo, narrow.time_range.hi) == (s.origin + 5000, s.end)
    with pytest.raises(ValueError, match="selects none of the threads already selected"):
        s.resolve(Ask(threads=("main",)), within)


def test_the_cli_default_main_thread_and_durations_are_the_spines() -> None:
    ev = [(t, a, "a.A.f", i, i) for t in (7, 9) for i, a in enumerate(("enter", "exit"))]
    s = Session(make_trace(ev, names={7: "bg", 9: "main"}))
    parser = argparse.ArgumentParser()
    options.add_selection(parser)
    args = parser.parse_args([])
    assert options.query(args, s, default_main=True).threads == (1,)
    assert options.query(args, s).threads is None
    assert options.duration_ns("1.5s") == duration_ns("1.5s") == 1_500_000_000
    with pytest.raises(CliError, match="bad duration"):
        parser.parse_args(["--from", "1.5 parsecs"])


def test_flame_refuses_an_unknown_kind() -> None:
    """Before: `Session.flame(q, "sideways")` laid the tree out as if the kind existed."""
    ev = [(1, "enter", "a.A.f", 0, 0), (1, "exit", "a.A.f", 5, 5)]
    s = Session(make_trace(ev))
    with pytest.raises(ValueError, match="unknown flame kind 'sideways'"):
        s.flame(s.query(), "sideways")
    assert s.flame(s.query(), "bottomup").kind == "bottomup"


def test_a_per_thread_forest_keeps_the_sessions_other_views() -> None:
    """Before: `stacks.forest` cached one tree per thread in the session's 8-entry LRU, so a
    forest of 10 threads evicted every tree the viewer had asked for."""
    ev = [
        (t, a, m, 10 * t + i, 10 * t + i)
        for t in range(1, 11)
        for i, (a, m) in enumerate(
            [("enter", "a.A.f"), ("enter", "b.B.g"), ("exit", "b.B.g"), ("exit", "a.A.f")]
        )
    ]
    trace = make_trace(ev)
    s = Session(trace)
    q = s.query()
    whole = s.top_down(q)
    parts = forest(View(s, q), merge=False)
    assert [p.threads for p in parts] == [(t,) for t in range(10)]
    assert s.top_down(q) is whole
    fresh = Session(trace)
    for part in parts:
        alone = fresh.top_down(fresh.query(threads=part.threads))
        assert np.array_equal(part.tree.method, alone.method)
        assert np.array_equal(part.tree.incl["cpu"], alone.incl["cpu"])
    assert forest(View(s, q), merge=False)[3].tree is parts[3].tree  # one entry, kept


def test_dmtracedump_numbers_are_kept_in_the_session(monkeypatch: pytest.MonkeyPatch) -> None:
    ev = [(1, "exit", "a.A.f", 3, 3), (1, "enter", "a.A.g", 4, 4), (1, "exit", "a.A.g", 9, 9)]
    trace = make_trace(ev)
    built: list[int] = []
    real = numbers._legacy_profile

    def counting(session: Session, q: Query, policy: str) -> numbers.LegacyProfile:
        built.append(1)
        return real(session, q, policy)

    monkeypatch.setattr(numbers, "_legacy_profile", counting)
    s = Session(trace)
    q = s.query(clock=numbers.report_clock(s.clocks, None))
    first = numbers.legacy_profile(s, q)  # the report ...
    assert numbers.legacy_profile(s, q) is first  # ... and its call graph share it
    assert built == [1]

    def never() -> numbers.LegacyProfile:
        raise AssertionError("not kept in the session")

    assert s.memo("dmtracedump", (q, "dmtracedump"), never) is first
    other = Session(trace)
    assert numbers.legacy_profile(other, other.query(clock=q.clock)) is not first
    assert first.excl.tolist() == numbers.legacy_profile(other, q).excl.tolist()


def test_dmtracedump_clock_rule() -> None:
    assert numbers.report_clock(("cpu", "wall"), None) == "cpu"
    assert numbers.report_clock(("wall",), None) == "wall"
    assert numbers.report_clock(("cpu", "wall"), "wall") == "wall"
    with pytest.raises(ValueError, match="this trace has no wall clock"):
        numbers.report_clock(("cpu",), "wall")


def _modules() -> list[tuple[Path, ast.Module]]:
    return [(p, ast.parse(p.read_text(encoding="utf-8"))) for p in sorted(ANALYSIS.rglob("*.py"))]


def test_no_engine_module_keeps_a_cache_of_its_own() -> None:
    """Before: analysis/dmtracedump/numbers.py kept its numbers in a module-global
    WeakKeyDictionary, outside the session. A module-level empty container, a weak dict or an
    lru_cache/cache decorator is a cache that outlives the session (a memo of a function of
    plain numbers only, such as a critical value, holds no trace and is allowed)."""
    found = []
    for path, tree in _modules():
        # memos of pure number functions (critical values): no trace state
        numeric: set[int] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and all(
                a.annotation is not None and ast.unparse(a.annotation) in ("int", "float")
                for a in node.args.args
            ):
                numeric.update(id(d) for dec in node.decorator_list for d in ast.walk(dec))
        for node in ast.walk(tree):
            if id(node) in numeric:
                continue
            if isinstance(node, ast.Name) and node.id in ("lru_cache", "cache"):
                found.append(f"{path.name}: {node.id}")
            if isinstance(node, ast.Attribute) and node.attr in ("lru_cache", "cache"):
                found.append(f"{path.name}: {node.attr}")
        for stmt in tree.body:
            value = stmt.value if isinstance(stmt, ast.Assign | ast.AnnAssign) else None
            text = ast.unparse(value) if value is not None else ""
            if text in ("{}", "[]", "set()", "dict()") or "WeakKeyDictionary" in text:
                found.append(f"{path.name}: {ast.unparse(stmt)}")
            if any(w in text for w in ("OrderedDict(", "defaultdict(", "WeakValueDictionary")):
                found.append(f"{path.name}: {ast.unparse(stmt)}")
    assert found == []


def test_no_engine_module_imports_a_front_end() -> None:
    found = []
    for path, tree in _modules():
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            for name in names:
                parts = name.split(".")
                if parts[0] == "traceview" and len(parts) > 1 and parts[1] in FRONT_ENDS:
                    found.append(f"{path.relative_to(ANALYSIS)}: {name}")
    assert found == []
