"""`GenerateArgs`: `traceview.synth.generate`'s arguments, for helpers that forward them."""

from __future__ import annotations

from typing import TypedDict

from traceview.model import Clock


class GenerateArgs(TypedDict, total=False):
    """Every argument of `generate`, by name."""

    records: int
    threads: int
    seed: int
    clock: Clock
    style: str
    balanced: bool
    sampled: bool
    sampling_interval_us: int
    duration_us: int | None
    version: int | None
    order: str
    chunk_records: int
    thread_ids: str
    overflow_records: int | None
    main_share: float | None
    methods: int | None
