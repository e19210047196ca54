"""What V1 and V2 readers conclude alike from a trace's summary options and record times:
the overflow flag, the record count the writer claimed, the elapsed time, and the guess that a
trace was recorded by sampling (format.md §1.9)."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from traceview.model import Diagnostic
from traceview.readers.keytext import INT64_MAX, decimal


def overflow_flag(options: dict[str, str], diags: list[Diagnostic]) -> bool:
    """`data-file-overflow=true`, noted as a diagnostic: the buffer filled, records stop early."""
    overflow = options.get("data-file-overflow", "").strip().lower() == "true"
    if overflow:
        diags.append(
            Diagnostic(
                "data-file-overflow",
                "data-file-overflow=true: the trace buffer filled and later events were dropped",
            )
        )
    return overflow


def check_record_count(
    options: dict[str, str], records: int, where: str, diags: list[Diagnostic]
) -> None:
    """Note when `num-method-calls` (the writer's record count) differs from what was read."""
    claimed = options.get("num-method-calls", "").strip()
    number = decimal(claimed)
    if number is not None and number >= 0 and number != records:
        diags.append(
            Diagnostic(
                "record-count-mismatch",
                f"num-method-calls={claimed} but {where} hold{'s' if 'section' in where else ''} "
                f"{records} records",
                count=records,
            )
        )


def elapsed_ns(options: dict[str, str]) -> int | None:
    """`elapsed-time-nsec`, else `elapsed-time-usec` × 1000, else None."""
    ns = to_int(options.get("elapsed-time-nsec"))
    if ns is not None:
        return ns
    us = to_int(options.get("elapsed-time-usec"))
    return us * 1000 if us is not None and abs(us) <= INT64_MAX // 1000 else None


def guess_sampling(
    steps_us: npt.NDArray[np.floating] | npt.NDArray[np.integer],
) -> tuple[bool, float | None]:
    """(sampled, interval µs) from a thread's consecutive time steps in µs.

    The records of one sample share one clock reading (ties) and samples are >= ~100 µs apart;
    instrumented traces have few ties and µs-sized steps. The interval is the median of the
    steps near the 10th percentile (the regular sampling gap, overhead included).
    """
    if len(steps_us) < 20:
        return False, None
    nonzero = steps_us[steps_us > 0]
    ties = float(np.mean(steps_us == 0))
    if len(nonzero) < 5:
        # only ties: one sample of every stack (e.g. a sampled trace whose buffer filled at once)
        return ties >= 0.9, None
    if ties < 0.2 or percentile(nonzero, 20) < 100:
        return False, None
    p10 = percentile(nonzero, 10)
    near = nonzero[nonzero <= 1.5 * p10]
    return True, round(float(np.median(near)), 1)


def percentile(values: npt.NDArray[np.floating] | npt.NDArray[np.integer], q: float) -> float:
    """`np.percentile(values, q)` of non-empty `values` (its default, linear interpolation;
    the same float: tests/readers/test_summary_percentile.py) by one partition. numpy's own
    took 15–35 ms on its first call in a process, and `guess_sampling` runs on every V1 trace
    opened."""
    n = len(values)
    at = q / 100 * (n - 1)
    lo = int(np.floor(at))
    hi = min(lo + 1, n - 1)
    part = np.partition(values, [lo, hi])
    a, b, t = float(part[lo]), float(part[hi]), at - lo
    d = b - a
    return a + d * t if t < 0.5 else b - d * (1 - t)  # (numpy's lerp, both halves)


def to_int(text: str | None) -> int | None:
    """An option's integer value (ASCII decimal within int64), or None when absent or not
    such a number."""
    return decimal(text)
