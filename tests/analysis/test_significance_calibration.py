"""The robust test's confidence is what docs/diff.md says (issue 20, "N vs N done right"): with
runs that differ only by noise, a row is called slower (and, the mirror test, faster) in at
most 1 - confidence of the cases, for few runs too. Student's t quantile, which the test used
before, let 7.7 % of unchanged rows through at 5 + 5 runs and 10 % at 3 + 3 (the MAD-based
spread of a handful of runs is far less steady than a standard deviation)."""

from __future__ import annotations

import numpy as np
import pytest

from traceview.analysis.significance import compare, critical, dof, t_quantile

DRAWS = 40_000  # null rows per case: the observed rate to about ±0.3 % (1 σ at 5 %)


@pytest.mark.parametrize(
    ("nb", "nc", "skewed"),
    [(2, 2, False), (3, 3, False), (5, 5, False), (1, 5, False), (3, 5, False), (10, 10, False),
     (3, 3, True), (5, 5, True)],
)  # fmt: skip
@pytest.mark.parametrize("confidence", [0.95, 0.90])
def test_unchanged_rows_pass_at_the_documented_rate(
    nb: int, nc: int, skewed: bool, confidence: float
) -> None:
    rng = np.random.default_rng([7, nb, nc])  # not the calibration's own draws
    shape = (nb + nc, DRAWS)
    # normal noise, or skewed as run times often are (equal sides: a lone run of skewed
    # noise tilts the two tails by a couple of percent, docs/diff.md)
    noise = (rng.lognormal(0, 0.2, shape) if skewed else rng.normal(1, 0.1, shape)) * 5e6
    crit = critical(confidence, nb, nc)
    assert crit is not None
    ch = compare(noise[:nb], noise[nb:], crit, 1000.0)
    alpha = 1 - confidence
    for rate in (np.mean(ch.t > crit), np.mean(ch.t < -crit)):
        assert rate == pytest.approx(alpha, abs=0.012)


def test_many_runs_meet_students_t() -> None:
    crit = critical(0.95, 30, 30)
    assert crit == pytest.approx(t_quantile(0.95, dof(30, 30)), rel=0.02)


def test_critical_values_are_deterministic_and_need_a_spread() -> None:
    assert critical(0.95, 1, 1) is None
    assert critical(0.95, 5, 5) == critical(0.95, 5, 5)
    # more runs, a steadier spread: a lower bar
    c3, c5, c10 = (critical(0.95, n, n) for n in (3, 5, 10))
    assert c3 is not None and c5 is not None and c10 is not None
    t10 = t_quantile(0.95, dof(10, 10))
    assert t10 is not None
    assert c3 > c5 > c10 > t10
