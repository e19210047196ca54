"""`Source.clip_fill_run` looks at strided samples and scans exactly only around runs of fill
samples: it must stop where one exact scan of every byte (`FillRun`) stops, on any bytes."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from traceview.readers.source import FillRun, Source

LIMIT = 4096  # a small limit: the same arithmetic as 1 MiB, on small inputs


@st.composite
def planted(draw: st.DrawFn) -> bytes:
    """Random bytes with runs of 0x00 / 0xFF around the limit's length planted in them."""
    size = draw(st.integers(0, 40_000))
    data = bytearray(draw(st.binary(min_size=size, max_size=size)))
    for _ in range(draw(st.integers(0, 4))):
        length = draw(st.integers(LIMIT - 40, LIMIT + 40))
        at = draw(st.integers(0, max(0, size - 1)))
        fill = draw(st.sampled_from([0, 0xFF]))
        data[at : at + length] = bytes([fill]) * len(data[at : at + length])
    return bytes(data)


def exact(data: bytes, start: int, until: int | None, floor: int = 32) -> int | None:
    end = len(data) if until is None else min(len(data), until)
    found = FillRun(start, LIMIT).feed(data[start:end])
    return None if found is None else max(found, min(floor, len(data)))


@settings(max_examples=300, deadline=None)
@given(planted(), st.integers(0, 64), st.one_of(st.none(), st.integers(0, 40_000)))
def test_sampled_scan_equals_the_exact_scan(data: bytes, start: int, until: int | None) -> None:
    start = min(start, len(data))
    got = Source(data).clip_fill_run(start=start, until=until, limit=LIMIT)
    assert got == exact(data, start, until)


def test_a_file_source_is_sampled_through_a_map(tmp_path: Path) -> None:
    data = b"\x01\x02" * 5000 + b"\0" * (LIMIT + 100) + b"\x03" * 100
    path = tmp_path / "t.bin"
    path.write_bytes(data)
    with path.open("rb") as f:
        src = Source(file=f)
        assert src.clip_fill_run(limit=LIMIT) == exact(data, 0, None) == 10_000
        assert src.size == 10_000


@settings(max_examples=60, deadline=None)
@given(planted(), st.integers(0, 64))
def test_a_file_is_sampled_window_by_window(data: bytes, start: int) -> None:
    """Files are mapped a window at a time (a 2 GB file must not need 2 GB of address space):
    with one-page windows the result is the same."""
    import tempfile

    from traceview.readers import source

    start = min(start, len(data))
    saved = source._WINDOW
    source._WINDOW = mmap_page = 4096  # one page
    try:
        with tempfile.TemporaryFile() as f:
            f.write(data)
            f.flush()
            got = Source(file=f).clip_fill_run(start=start, limit=LIMIT)
    finally:
        source._WINDOW = saved
    assert mmap_page and got == exact(data, start, None)
