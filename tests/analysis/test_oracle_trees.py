"""Property tests: the merged top-down and bottom-up trees (`analysis.calltree`) equal the
slow reference built from tests/oracle.py's calls, node by node, on generated traces."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from support.engine_checks import SETTINGS, traces
from support.oracle import oracle, oracle_bottom_up, oracle_top_down
from support.tree_paths import tree_paths
from traceview.analysis.calls import build_calls
from traceview.analysis.calltree import bottom_up, top_down
from traceview.model import Trace


def check_trees(trace: Trace, threads: list[int] | None, max_depth: int) -> None:
    trace.validate()
    o = oracle(trace)
    calls = build_calls(trace)
    got = tree_paths(top_down(calls, threads))
    want = oracle_top_down(o, threads)
    assert got == {k: [n, dict(i), dict(e)] for k, (n, i, e) in want.items()}
    got = tree_paths(bottom_up(calls, threads, max_depth=max_depth))
    want = oracle_bottom_up(o, threads, max_depth)
    assert got == {k: [n, dict(x), dict(x)] for k, (n, x) in want.items()}


@settings(SETTINGS, max_examples=80)
@given(traces(messy=True), st.sampled_from([64, 3, 0]), st.booleans())
def test_oracle_trees(trace: Trace, max_depth: int, some: bool) -> None:
    threads = list(range(0, len(trace.threads), 2)) if some else None
    check_trees(trace, threads, max_depth)
