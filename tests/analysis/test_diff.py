"""`analysis.diff` over sessions in memory: planted slowdowns are found (and nothing else) at the
documented confidence, one run per side, methods on one side only, name matching after a
renaming, per-thread rows, and the statistic's pieces (analysis/significance.py)."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from support.plant import ALWAYS, NOISY, SOMETIMES, planted_runs
from support.tracebuild import make_trace
from traceview.analysis import Session, View
from traceview.analysis.diff import DiffView, Thresholds, diff, name_filter
from traceview.analysis.query import Rename
from traceview.analysis.significance import compare, dof, t_cdf, t_quantile
from traceview.model import MethodTable, Trace


def views(traces: list[Trace], rename: Rename | None = None) -> list[View]:
    out = []
    for t in traces:
        s = Session(t)
        out.append(View(s, s.query(rename=rename)))
    return out


def names(dv: DiffView, rows: list[int]) -> set[str]:
    return {dv.methods.full_name(i) for i in rows}


def row(dv: DiffView, name: str) -> int:
    return next(i for i in range(len(dv.methods)) if dv.methods.full_name(i) == name)


@pytest.fixture(scope="module")
def planted() -> tuple[list[Trace], list[Trace]]:
    return planted_runs()


def test_planted_regressions_are_found_and_nothing_else(
    planted: tuple[list[Trace], list[Trace]],
) -> None:
    base, cand = planted
    dv = diff(views(base), views(cand))
    assert names(dv, dv.regressions) == {SOMETIMES, ALWAYS}
    # 95 % one-sided, 5 + 5 runs: t > 2.296 (the null quantile of the statistic; Student's t
    # with 8 degrees of freedom would say 1.860 and pass 7.7 % of unchanged rows)
    assert dv.dof == 8 and dv.critical == pytest.approx(2.296, abs=1e-3)
    ex = dv.methods.excl
    for name, rel in ((SOMETIMES, 0.3), (ALWAYS, 1.0)):
        i = row(dv, name)
        assert ex.rel[i] == pytest.approx(rel, abs=0.03)
        assert ex.t[i] > dv.critical and ex.significant[i]
    # the noisy method moved past the threshold but not past its run-to-run spread
    i = row(dv, NOISY)
    assert ex.rel[i] > 0.10 and not ex.significant[i] and 0 < ex.t[i] < dv.critical
    assert dv.methods.status[i] == "noise"
    assert not names(dv, dv.rows("new")) and not names(dv, dv.rows("gone"))
    # no method has a changed call count
    assert np.array_equal(dv.methods.calls.base, dv.methods.calls.cand)


def test_inclusive_gate_also_flags_the_callers(planted: tuple[list[Trace], list[Trace]]) -> None:
    base, cand = planted
    dv = diff(views(base), views(cand), Thresholds(metric="incl"))
    found = names(dv, dv.regressions)
    assert {SOMETIMES, ALWAYS} <= found
    assert NOISY not in found
    assert len(found) > 2  # the callers of the slower methods grew too


def test_thresholds_and_patterns(planted: tuple[list[Trace], list[Trace]]) -> None:
    base, cand = planted
    b, c = views(base), views(cand)
    half = diff(b, c, Thresholds(fail_above=0.5))
    assert names(half, half.regressions) == {ALWAYS}
    big = diff(b, c, Thresholds(min_time_ns=10_000_000))  # isBoring: 4.5 -> 8.9 ms
    assert names(big, big.regressions) == {SOMETIMES}
    only = diff(b, c, Thresholds(methods=("android.widget.*",)))
    assert names(only, only.regressions) == {SOMETIMES}
    assert not only.methods.gated[row(only, ALWAYS)]
    rx = diff(b, c, Thresholds(methods=(r"re:\.isBoring\(",)))
    assert names(rx, rx.regressions) == {ALWAYS}
    # a stricter confidence still finds both (their t is far above any critical value)
    strict = diff(b, c, Thresholds(confidence=0.999))
    assert names(strict, strict.regressions) == {SOMETIMES, ALWAYS}


def test_one_run_per_side_has_no_spread(planted: tuple[list[Trace], list[Trace]]) -> None:
    base, cand = planted
    dv = diff(views(base[:1]), views(cand[:1]))
    assert dv.critical is None and not dv.spread_known and dv.dof == 0
    assert all(math.isnan(x) for x in dv.methods.excl.t)
    assert dv.notes and "no run-to-run spread" in dv.notes[0]
    # the threshold alone decides: the noisy method (+15 % in these two runs) is flagged too
    assert names(dv, dv.regressions) == {SOMETIMES, ALWAYS, NOISY}


def test_one_run_against_many_uses_the_other_sides_spread(
    planted: tuple[list[Trace], list[Trace]],
) -> None:
    base, cand = planted
    dv = diff(views(base[:1]), views(cand))
    assert dv.dof == 4 and dv.critical == pytest.approx(2.891, abs=1e-3)
    assert names(dv, dv.regressions) == {SOMETIMES, ALWAYS}


EVENTS_A = [
    (1, "enter", "com.a.Main.run", 0, 0),
    (1, "enter", "com.a.Old.work", 100, 100),
    (1, "exit", "com.a.Old.work", 5100, 5100),
    (1, "enter", "com.a.Main.tiny", 5200, 5200),
    (1, "exit", "com.a.Main.tiny", 5300, 5300),
    (1, "exit", "com.a.Main.run", 6000, 6000),
]


def test_methods_on_one_side_only_are_listed() -> None:
    old = make_trace(EVENTS_A, names={1: "main"})
    new_events = [
        (t, a, m.replace("Old", "New").replace("tiny", "tiny2"), c, w) for t, a, m, c, w in EVENTS_A
    ]
    new = make_trace(new_events, names={1: "main"})
    dv = diff(views([old]), views([new]))
    m = dv.methods
    assert names(dv, dv.rows("gone")) == {"com.a.Main.tiny"}
    assert names(dv, dv.rows("new")) == {"com.a.Main.tiny2"}
    # a new method above --min-time is a regression, a vanished one an improvement
    assert names(dv, dv.regressions) == {"com.a.New.work"}
    assert names(dv, dv.rows("improvement")) == {"com.a.Old.work"}
    i = row(dv, "com.a.New.work")
    assert not m.on_base[i] and m.on_cand[i] and m.excl.rel[i] == math.inf


@dataclass(frozen=True)
class Deobfuscate:
    """A test renaming: obfuscated class names -> real ones."""

    classes: tuple[tuple[str, str], ...]

    def methods(self, table: MethodTable, /) -> MethodTable:
        mapping = dict(self.classes)
        return replace(table, class_name=tuple(mapping.get(c, c) for c in table.class_name))


def test_methods_match_on_the_shown_names_after_renaming() -> None:
    plain = make_trace(EVENTS_A, names={1: "main"})
    obfuscated = make_trace(
        [(t, a, m.replace("com.a.Old", "a.b"), c, w) for t, a, m, c, w in EVENTS_A],
        names={1: "main"},
    )
    rename = Deobfuscate((("a.b", "com.a.Old"),))
    dv = diff(views([plain]), views([obfuscated], rename=rename))
    assert not dv.rows("new") and not dv.rows("gone")
    assert names(dv, dv.rows("unchanged")) >= {"com.a.Old.work"}


def test_threads_match_by_name_not_id() -> None:
    a = make_trace(EVENTS_A, names={1: "main"})
    b = make_trace([(7, *e[1:]) for e in EVENTS_A], names={7: "main"})
    dv = diff(views([a]), views([b]))
    assert dv.threads.name == ("main",)
    assert dv.threads.total.base[0] == dv.threads.total.cand[0] == 6_000_000
    assert not dv.rows("new") and not dv.rows("regression")


def test_runs_must_share_a_clock() -> None:
    a = make_trace(EVENTS_A)
    s = Session(a)
    with pytest.raises(ValueError, match="one clock"):
        diff([View(s, s.query(clock="cpu"))], [View(s, s.query(clock="wall"))])
    with pytest.raises(ValueError, match="at least one run"):
        diff([], [View(s, s.query())])


def test_bad_thresholds() -> None:
    with pytest.raises(ValueError, match="regular expression"):
        Thresholds(methods=("re:(",))
    with pytest.raises(ValueError, match="metric"):
        Thresholds(metric="total")
    with pytest.raises(ValueError, match="confidence"):
        Thresholds(confidence=1.0)


def test_name_filter_globs_and_regexes() -> None:
    keep = name_filter(["com.a.*", "re:^org\\.b\\.C\\.run\\(I\\)"])
    assert keep("com.a.X.y", "()V")
    assert not keep("com.ab.X.y", "()V")  # com.a.* needs the dot
    assert keep("org.b.C.run", "(I)V")
    assert not keep("org.b.C.run", "(J)V")
    assert keep("x.Y.z", "()V") is False
    assert name_filter([])("anything", "")


def test_t_quantiles_match_the_tables() -> None:
    for df, expected in ((1, 6.314), (2, 2.920), (4, 2.132), (8, 1.860), (30, 1.697)):
        assert t_quantile(0.95, df) == pytest.approx(expected, abs=1e-3)
    assert t_quantile(0.99, 5) == pytest.approx(3.365, abs=1e-3)
    assert t_quantile(0.95, 0) is None
    assert t_cdf(0.0, 3) == 0.5 and t_cdf(-2.0, 7) == pytest.approx(1 - t_cdf(2.0, 7))


def test_compare_is_robust_to_a_minority_of_outliers() -> None:
    base = np.array([[100.0e6], [101.0e6], [99.0e6], [100.5e6], [99.5e6]])
    # two of five candidate runs are as before, three are 30 % slower: the median moved
    cand = np.array([[100.2e6], [99.8e6], [130.0e6], [130.5e6], [129.5e6]])
    ch = compare(base, cand, t_quantile(0.95, 8), 1000.0)
    assert ch.rel[0] == pytest.approx(0.30, abs=0.01) and ch.significant[0]
    # one outlier run in the baseline does not move its median or its spread much
    base_out = base.copy()
    base_out[1, 0] = 300e6
    assert compare(base_out, base, t_quantile(0.95, 8), 1000.0).significant[0] == np.False_


@settings(max_examples=60, deadline=None)
@given(
    st.integers(1, 6),
    st.integers(1, 6),
    st.integers(0, 2**32),
    st.floats(0.5, 4.0),
)
def test_compare_is_antisymmetric_and_scale_free(nb: int, nc: int, seed: int, k: float) -> None:
    rng = np.random.default_rng(seed)
    base = rng.uniform(1e6, 2e6, (nb, 4)).round()
    cand = rng.uniform(1e6, 3e6, (nc, 4)).round()
    crit = t_quantile(0.95, dof(nb, nc))
    ab, ba = compare(base, cand, crit, 1.0), compare(cand, base, crit, 1.0)
    assert np.allclose(ab.delta, -ba.delta)
    assert ab.known == ba.known == (nb + nc > 2)
    if ab.known:
        assert np.allclose(ab.t, -ba.t)
        assert np.array_equal(ab.significant, ba.significant)
        scaled = compare(base * k, cand * k, crit, 1.0)  # the floor (1 ns) stays below σ̂
        assert np.allclose(scaled.rel, ab.rel) and np.allclose(scaled.t, ab.t)
    else:
        assert np.isnan(ab.t).all() and not ab.significant.any()
