"""Property tests: the vectorised call table and profile equal the slow reference in
tests/oracle.py exactly, on generated event sequences (balanced nesting, deep direct and mutual
recursion, interleaved threads, exits with no enter, open calls, unrolls, mismatched exits,
equal timestamps; single- and dual-clock)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings

from support.engine_checks import (
    SETTINGS,
    check_all,
    traces,
)
from traceview.model import Trace


@settings(SETTINGS, max_examples=150)
@given(traces(messy=False))
def test_oracle_balanced_traces(trace: Trace) -> None:
    check_all(trace)


@SETTINGS
@given(traces(messy=True))
def test_oracle_messy_traces(trace: Trace) -> None:
    check_all(trace)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(traces(messy=True, clock="dual"))
def test_oracle_dual_clock_messy(trace: Trace) -> None:
    check_all(trace)


@settings(SETTINGS, max_examples=30)
@given(traces(messy=True, threads=(65, 70)))
def test_oracle_many_threads(trace: Trace) -> None:
    check_all(trace)
