"""The writer: `write(trace, out, variant=...)` turns a Trace back into any on-disk variant
(tests, `traceview convert`, the synthetic traces of `traceview.synth`).

It imports only the model. V1 variants live in `writer.v1`; ART V2 in `writer.v2` and the
Android 16 low-overhead dump in `writer.lowoverhead`, loaded only when asked for.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import BinaryIO, Literal

from traceview.model import Clock, Trace, Variant

Style = Literal["art", "dalvik"]
V1_VARIANTS: tuple[Variant, ...] = (
    "regular",
    "split",
    "data-only",
    "streaming",
    "streaming-nosummary",
)
VARIANTS: tuple[Variant, ...] = (*V1_VARIANTS, "v2", "v2-streaming", "low-overhead")

__all__ = ["VARIANTS", "split_paths", "with_clock", "write"]


def split_paths(out: str | Path) -> tuple[Path, Path]:
    """`base.key` and `base.data` for an output path (a `.key/.data/.trace` suffix is dropped)."""
    path = Path(out)
    base = path.with_suffix("") if path.suffix in (".key", ".data", ".trace") else path
    return base.with_name(base.name + ".key"), base.with_name(base.name + ".data")


def write(
    trace: Trace,
    out: str | Path | BinaryIO,
    *,
    variant: Variant | None = None,
    version: int | None = None,
    clock: Clock | None = None,
    style: Style | None = None,
    record_size: int | None = None,
    data_offset: int = 32,
    overflow: bool | None = None,
    renumber: bool | None = None,
    generation: str = "beta",
) -> list[Path]:
    """Write `trace` as `variant` (default: the variant it was read from, else regular).

    `version` is the V1 version 1-3 (default: the trace's when its clock allows, else 3 for
    dual and 2 for one clock); `clock` may drop one clock of a dual trace; `style` picks
    Dalvik (`0x%08x` ids, slash class names, line numbers, vm=dalvik) or ART (`%#x`, dotted,
    5 fields) key lines; `record_size` pads v3 records; `data_offset` is 32 (VMs) or 16
    (createtesttrace); `overflow` sets data-file-overflow; `renumber` rewrites method ids as
    index << 2 (default: only when they do not fit 32 bits); `generation` is the V2 entry-block
    layout (alpha, beta, gamma). V1 stores µs (floored), wrapped to 32 bits.
    Returns the files written (none when `out` is an open file).
    """
    if variant is None:  # as read; a split pair can only go to a path, else regular
        variant = trace.header.variant if trace.header.variant in VARIANTS else "regular"
        if variant == "split" and not isinstance(out, str | Path):
            variant = "regular"
    if variant not in VARIANTS:
        raise ValueError(f"unknown variant {variant!r}; one of {', '.join(VARIANTS)}")
    timeless = trace.header.axis == "order"
    if timeless and variant != "low-overhead":
        raise ValueError(
            f"this trace has no times (an Android 16 all-methods dump: the order of events "
            f"only); a {variant} trace needs them, and traceview does not invent them"
        )
    if variant in ("v2", "v2-streaming"):
        return _write_v2(trace, out, variant, clock, generation)
    if variant == "low-overhead":
        from traceview.writer.lowoverhead import write_lowoverhead  # Android 16 dumps

        with _opened(out) as (fh, paths):
            write_lowoverhead(trace, fh, mode="all" if timeless else "long-running")
        return paths
    from traceview.writer import v1

    p = v1.plan(
        trace,
        version=version,
        clock=clock,
        style=style,
        record_size=record_size,
        data_offset=data_offset,
        overflow=overflow,
        renumber=renumber,
    )
    if variant == "split":
        if not isinstance(out, str | Path):
            raise ValueError("a split trace needs a path (it writes base.key and base.data)")
        key, data = split_paths(out)
        key.write_bytes(v1.key_bytes(trace, p, streaming=False))
        with data.open("wb") as fh:
            v1.write_data(trace, p, fh)
        return [key, data]
    with _opened(out) as (fh, paths):
        if variant == "regular":
            v1.write_regular(trace, p, fh)
        elif variant == "data-only":
            v1.write_data(trace, p, fh)
        else:
            v1.write_streaming(trace, p, fh, summary=variant == "streaming")
    return paths


def _write_v2(
    trace: Trace, out: str | Path | BinaryIO, variant: str, clock: Clock | None, generation: str
) -> list[Path]:
    from traceview.writer import v2  # ART V2, loaded only when asked for

    if clock == "global":
        raise ValueError("V2 has no global clock: use dual, wall or thread-cpu")
    with _opened(out) as (fh, paths):
        v2.write_v2(
            trace, fh, streaming=variant == "v2-streaming", generation=generation, clock=clock
        )
    return paths


def with_clock(trace: Trace, clock: Clock) -> Trace:
    """The same trace keeping only the columns `clock` names (ValueError if one is missing)."""
    from dataclasses import replace

    ev = trace.events
    keep = {"dual": ("cpu", "wall"), "thread-cpu": ("cpu",), "wall": ("wall",)}.get(clock)
    keep = keep or ev.clocks[:1]
    missing = [c for c in keep if c not in ev.clocks]
    if missing:
        raise ValueError(f"clock={clock} needs the {' and '.join(missing)} clock")
    events = replace(
        ev,
        cpu=ev.cpu if "cpu" in keep else None,
        wall=ev.wall if "wall" in keep else None,
    )
    options = {**trace.header.options, "clock": clock}
    header = replace(trace.header, clock=clock, options=options)
    return replace(trace, header=header, events=events)


class _opened:
    """Context manager: a path is opened for writing (and reported), a file is used as is."""

    def __init__(self, out: str | Path | BinaryIO) -> None:
        self.out = out
        self.fh: BinaryIO | None = None

    def __enter__(self) -> tuple[BinaryIO, list[Path]]:
        if isinstance(self.out, str | Path):
            self.fh = Path(self.out).open("wb")
            return self.fh, [Path(self.out)]
        if isinstance(self.out, io.TextIOBase):
            raise TypeError("write() needs a binary file")
        return self.out, []

    def __exit__(self, kind: type[BaseException] | None, *exc: object) -> None:
        if self.fh is not None:
            self.fh.close()
            if kind is not None:  # leave no half-written file behind
                Path(self.fh.name).unlink(missing_ok=True)
