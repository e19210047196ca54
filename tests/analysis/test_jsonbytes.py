"""The compiled JSON writer (kernels/jsonbytes.py) against Python's own formatting: integers
as `str()` gives them, ns as exact µs with three decimals (negative ones too), texts copied
byte for byte, records in order across chunks and worker threads, and bytes reaching a text
stream exactly once, in order with the text written around them."""

from __future__ import annotations

import io
from decimal import Decimal

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from traceview.analysis.kernels import jsonbytes
from traceview.analysis.kernels.jsonbytes import INT, MICROS, TEXT, Template

I64_MIN, I64_MAX = -(2**63), 2**63 - 1
int64s = st.integers(I64_MIN, I64_MAX)
# the first call loads (or compiles) the kernel: no per-example deadline
kernel = settings(deadline=None)


def micros(ns: int) -> str:
    """ns as µs with three decimals, exactly (the reference)."""
    sign = "-" if ns < 0 else ""
    whole, frac = divmod(abs(ns), 1000)
    return f"{sign}{whole}.{frac:03d}"


def one_per_line(kind: int, values: list[int]) -> list[str]:
    text = Template([b"", b"\n"], [kind]).format(np.array([values], dtype=np.int64))
    return text.decode().splitlines()


@kernel
@given(st.lists(int64s, min_size=1, max_size=50))
@example([0, 9, 10, 99, 100, 101, 999, 1000, 2**62, I64_MAX, -1, -9, -10, -100, I64_MIN])
@example([10**k for k in range(19)] + [10**k - 1 for k in range(1, 19)])
def test_integers_are_written_as_str_writes_them(values: list[int]) -> None:
    assert one_per_line(INT, values) == [str(v) for v in values]


@kernel
@given(st.lists(int64s, min_size=1, max_size=50))
@example([0, 1, 9, 10, 999, 1000, 1001, 123456789, -1, -999, -1000, -1001, I64_MIN, I64_MAX])
def test_micros_are_exact_with_three_decimals(values: list[int]) -> None:
    got = one_per_line(MICROS, values)
    assert got == [micros(v) for v in values]
    assert [Decimal(t) * 1000 for t in got] == [Decimal(v) for v in values]


texts = st.lists(st.text(max_size=12).map(lambda s: s.encode("utf-8", "surrogatepass")), max_size=6)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.sampled_from([INT, MICROS, TEXT]), max_size=5),
    st.data(),
)
def test_records_are_the_pieces_around_the_fields(kinds: list[int], data: st.DataObject) -> None:
    pieces = data.draw(
        st.lists(st.binary(max_size=8), min_size=len(kinds) + 1, max_size=len(kinds) + 1)
    )
    words = data.draw(texts)
    if TEXT in kinds and not words:
        words = [b"x"]
    n = data.draw(st.integers(0, 20))
    rows = []
    for k in kinds:
        values = st.integers(0, len(words) - 1) if k == TEXT else int64s
        rows.append(data.draw(st.lists(values, min_size=n, max_size=n)))
    cols = np.array(rows, dtype=np.int64).reshape(len(kinds), n)
    want = b""
    for r in range(n):
        for f, k in enumerate(kinds):
            v = int(cols[f, r])
            want += pieces[f]
            want += words[v] if k == TEXT else (str(v) if k == INT else micros(v)).encode()
        want += pieces[-1]
    template = Template(pieces, kinds, words)
    assert template.format(cols) == want
    assert len(want) <= template.size(cols)


@pytest.mark.parametrize("workers", [1, 2, 3])
@pytest.mark.parametrize("chunk", [1, 7, 1000])
def test_chunks_come_in_order_whatever_the_threads(workers: int, chunk: int) -> None:
    rng = np.random.default_rng(workers * 1000 + chunk)
    names = [f'"m{i}é"'.encode() for i in range(50)]
    template = Template([b"{", b",", b",", b"}\n"], [MICROS, TEXT, INT], names)
    n = 500
    cols = np.stack(
        [rng.integers(-(10**12), 10**12, n), rng.integers(0, 50, n), rng.integers(0, 10**6, n)]
    )
    seen: list[tuple[int, int]] = []

    def columns(lo: int, hi: int) -> np.ndarray:
        seen.append((lo, hi))
        return cols[:, lo:hi]

    got = b"".join(bytes(c) for c in jsonbytes.formatted(template, columns, n, workers, chunk))
    assert got == template.format(cols)
    assert sorted(seen) == [(lo, min(lo + chunk, n)) for lo in range(0, n, chunk)]
    assert list(jsonbytes.formatted(template, columns, 0, workers, chunk)) == []


def test_bad_templates_and_fields_are_refused() -> None:
    with pytest.raises(ValueError, match="one piece more"):
        Template([b"a"], [INT])
    template = Template([b"", b""], [TEXT], [b"a", b"b"])
    with pytest.raises(IndexError):
        template.format(np.array([[2]]))
    with pytest.raises(IndexError):
        template.format(np.array([[-1]]))
    with pytest.raises(ValueError, match="rows of fields"):
        template.format(np.zeros((2, 3), dtype=np.int64))
    with pytest.raises(ValueError, match="too small"):
        template.fill(np.empty(0, dtype=np.uint8), np.array([[1]]))
    with pytest.raises(ValueError, match="one piece more"):
        template.with_pieces([b"x"])
    other = template.with_pieces([b"<", b">"])
    assert other.format(np.array([[1, 0]])) == b"<b><a>"
    assert template.format(np.array([[1, 0]])) == b"ba"


@pytest.mark.parametrize("encoding", ["utf-8", "UTF8", "latin-1", "utf-16"])
def test_bytes_reach_a_text_stream_once_in_order(encoding: str) -> None:
    raw = io.BytesIO()
    out = io.TextIOWrapper(raw, encoding=encoding)
    out.write("before é ")
    write = jsonbytes.byte_writer(out)
    write(memoryview("bytes é ".encode()))
    write(memoryview(b"more "))
    out.write("after")
    out.flush()
    assert raw.getvalue().decode(encoding) == "before é bytes é more after"
    text = io.StringIO()
    text.write("a")
    jsonbytes.byte_writer(text)(memoryview("é".encode()))
    assert text.getvalue() == "aé"
