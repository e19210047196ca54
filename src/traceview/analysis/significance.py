"""Run-to-run noise for `analysis.diff` and `analysis.compare`: a robust spread per side, a
Student-t test of the change of medians against it, and each row's state (`judge`),
vectorised over the compared rows (methods, threads or call paths).

The statistic (docs/diff.md, "How a change is judged"): on each side, per row, the runs'
median and σ̂ = 1.4826 × MAD (the median absolute deviation scaled to estimate the standard
deviation of normal noise; up to half the runs may be outliers without moving it). The two
sides' σ̂ are pooled with weights n - 1, floored at `floor` (the timer's resolution), and the
change of medians is divided by its standard error, 1.2533 × σ̂ × √(1/n_b + 1/n_c) (the median
of n normal values varies π/2 times as much as their mean). That t is compared with the
one-sided Student-t quantile at the chosen confidence with Σ(n - 1) degrees of freedom. With
one run per side there are no degrees of freedom: no spread is known and `known` is False.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

F64 = npt.NDArray[np.float64]
I8 = npt.NDArray[np.int8]
Bools = npt.NDArray[np.bool_]
# what a compared row did (`judge`): absent from the baseline, absent from the candidate,
# slower or faster past the thresholds and the spread, or within noise
STATES = ("new", "gone", "slower", "faster", "noise")

MAD_TO_SIGMA = 1.4826  # 1 / Φ⁻¹(3/4): σ̂ of normal noise from the median absolute deviation
MEDIAN_SE = math.sqrt(math.pi / 2)  # 1.2533: se(median) / se(mean) for normal noise
NULL_DRAWS = 100_000  # simulated null comparisons per run count: quantiles to about ±1 %
STUDENT_FROM = 40  # runs on both sides from which Student's t is used (20 + 20 at 95 %:
# simulated 1.703, Student 1.686)


@dataclass(frozen=True, eq=False)
class Change:
    """One measure compared on every row: each side's median and σ̂ (NaN with one run), the
    change (candidate - baseline) and relative change (NaN when both are 0, ±inf when only the
    baseline is 0), t = change / its standard error (NaN when no spread is known), and
    `significant`: |t| above the one-sided critical value (False when no spread is known)."""

    base: F64
    cand: F64
    base_spread: F64
    cand_spread: F64
    delta: F64
    rel: F64
    t: F64
    significant: Bools
    known: bool

    def __len__(self) -> int:
        return len(self.base)


def compare(base: F64, cand: F64, critical: float | None, floor: float) -> Change:
    """Compare per-run values (`base`: runs × rows, `cand`: runs × rows) column by column;
    `critical` is `t_quantile(confidence, dof(...))` (None: no spread known); σ̂ is floored at
    `floor`."""
    nb, nc = base.shape[0], cand.shape[0]
    mb, mc = np.median(base, axis=0), np.median(cand, axis=0)
    sb, sc = mad_sigma(base, mb), mad_sigma(cand, mc)
    delta = mc - mb
    with np.errstate(divide="ignore", invalid="ignore"):
        rel = np.where(mb > 0, delta / np.where(mb > 0, mb, 1.0), np.sign(delta) * np.inf)
    rel[(mb == 0) & (mc == 0)] = np.nan
    df = dof(nb, nc)
    if critical is None or df == 0:
        t = np.full(len(mb), np.nan)
        sig = np.zeros(len(mb), dtype=bool)
        return Change(mb, mc, sb, sc, delta, rel, t, sig, False)
    pooled = np.zeros(len(mb))
    for n, s in ((nb, sb), (nc, sc)):
        if n >= 2:
            pooled += (n - 1) * s * s
    sigma = np.maximum(np.sqrt(pooled / df), floor)
    se = MEDIAN_SE * sigma * math.sqrt(1 / nb + 1 / nc)
    t = delta / se
    return Change(mb, mc, sb, sc, delta, rel, t, np.abs(t) > critical, True)


def judge(ch: Change, on_base: Bools, on_cand: Bools, gated: Bools, fail_above: float) -> I8:
    """Each row's state as an index into `STATES`: `new` / `gone` only when the row is absent
    from every run of a side; `slower` / `faster` when gated and its relative change is past
    `fail_above` and, when a spread is known, past the spread; `noise` (within noise)
    otherwise. A zero baseline of a present row is an infinite change, never `new`."""
    rel = np.nan_to_num(ch.rel, nan=0.0)
    beyond = ch.significant if ch.known else np.ones(len(rel), dtype=bool)
    out = np.full(len(rel), STATES.index("noise"), dtype=np.int8)
    out[gated & beyond & (rel > fail_above)] = STATES.index("slower")
    out[gated & beyond & (rel < -fail_above)] = STATES.index("faster")
    out[~on_cand] = STATES.index("gone")
    out[~on_base] = STATES.index("new")
    return out


def mad_sigma(runs: F64, median: F64) -> F64:
    """σ̂ = 1.4826 × median |x - median| per column (NaN with fewer than two runs)."""
    if runs.shape[0] < 2:
        return np.full(runs.shape[1], np.nan)
    mad: F64 = np.median(np.abs(runs - median), axis=0)
    return MAD_TO_SIGMA * mad


def dof(nb: int, nc: int) -> int:
    """Degrees of freedom of the pooled spread: Σ (n - 1) over both sides."""
    return max(nb - 1, 0) + max(nc - 1, 0)


def t_cdf(t: float, df: int) -> float:
    """P(T ≤ t) for Student's t with integer `df` ≥ 1 (the closed form for integer degrees of
    freedom, Abramowitz & Stegun 26.7.3-4)."""
    theta = math.atan(abs(t) / math.sqrt(df))
    s, c2 = math.sin(theta), math.cos(theta) ** 2
    if df % 2:  # odd: (2/π)(θ + sinθ cosθ (1 + 2/3 cos²θ + 2·4/(3·5) cos⁴θ + ...))
        term, acc = 1.0, 1.0 if df > 1 else 0.0
        for k in range(1, (df - 1) // 2):
            term *= c2 * (2 * k) / (2 * k + 1)
            acc += term
        inside = 2 / math.pi * (theta + s * math.cos(theta) * acc)
    else:  # even: sinθ (1 + 1/2 cos²θ + 1·3/(2·4) cos⁴θ + ...)
        term, acc = 1.0, 1.0
        for k in range(1, df // 2):
            term *= c2 * (2 * k - 1) / (2 * k)
            acc += term
        inside = s * acc
    return 0.5 + math.copysign(inside / 2, t)


def t_quantile(confidence: float, df: int) -> float | None:
    """The one-sided critical value: t with P(T ≤ t) = `confidence` (None when `df` is 0)."""
    if df <= 0:
        return None
    if not 0.5 <= confidence < 1:
        raise ValueError(f"confidence must be in [50 %, 100 %), not {confidence:.4g}")
    lo, hi = 0.0, 1.0
    while t_cdf(hi, df) < confidence:
        hi *= 2
    for _ in range(100):  # bisection to double precision
        mid = (lo + hi) / 2
        if t_cdf(mid, df) < confidence:
            lo = mid
        else:
            hi = mid
    return hi


@functools.lru_cache(maxsize=64)
def critical(confidence: float, nb: int, nc: int) -> float | None:
    """The one-sided critical value of `compare`'s t at `confidence` for `nb` + `nc` runs
    (None with one run per side: no spread known): the `confidence` quantile of t for runs
    that differ only by normal noise, found by simulation (`NULL_DRAWS` draws from a seed
    fixed per run count, so the same runs always get the same verdict). From
    `STUDENT_FROM` runs on, Student's t with Σ(n - 1) degrees of freedom, which the statistic
    then follows within 2 %. Below that Student's t is wrong for a spread from the MAD of a
    handful of runs: at 95 % it let 7.7 % of unchanged rows through at 5 + 5 runs, 10 % at
    3 + 3 (and 3 % at 2 + 2)."""
    df = dof(nb, nc)
    if df <= 0:
        return None
    if not 0.5 <= confidence < 1:
        raise ValueError(f"confidence must be in [50 %, 100 %), not {confidence:.4g}")
    if nb + nc >= STUDENT_FROM:
        return t_quantile(confidence, df)
    return float(np.quantile(_null_t(nb, nc), confidence))


@functools.lru_cache(maxsize=8)
def _null_t(nb: int, nc: int) -> F64:
    """t of `NULL_DRAWS` comparisons of standard normal runs, and their mirror images (the
    null distribution is symmetric: negating every run negates t)."""
    rng = np.random.default_rng([20, nb, nc])
    ch = compare(
        rng.standard_normal((nb, NULL_DRAWS)), rng.standard_normal((nc, NULL_DRAWS)), 1.0, 1e-12
    )
    t = ch.t[np.isfinite(ch.t)]
    out: F64 = np.concatenate((t, -t))
    return out
