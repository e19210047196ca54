"""V2-γ exits carry no method id: the reader's vectorised stack matching against a plain
per-record model of Perfetto's rule (pop the thread's stack; on an empty stack, the last
entry method of the block), on random unbalanced hand-packed blocks."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from support.v2bytes import gamma_block, header, method_info, summary, thread_info
from traceview.readers.v2 import read

IDS = [0x7100_0000 + 32 * k for k in range(5)]
INFOS = b"".join(method_info(i, f"p.C\tm{k}\t()V\tC.java\n".encode()) for k, i in enumerate(IDS))

event = st.tuples(st.integers(1, 3), st.sampled_from([0, 0, 1, 2]), st.integers(0, 4))
blocks = st.lists(st.lists(event, min_size=1, max_size=12), min_size=1, max_size=8)


def model(chunks: list[list[tuple[int, int, int]]]) -> list[tuple[int, int, int]]:
    """(tid, action, method id) per record, following Perfetto's tokenizer."""
    stacks: dict[int, list[int]] = {}
    out = []
    for chunk in chunks:
        tid = chunk[0][0]
        stack = stacks.setdefault(tid, [])
        prev = 0
        for _, action, k in chunk:
            if action == 0:
                prev = IDS[k]
                stack.append(prev)
                out.append((tid, 0, prev))
            else:
                out.append((tid, action, stack.pop() if stack else prev))
    return out


@settings(max_examples=120, deadline=None)
@given(blocks, st.booleans())
def test_exit_methods_match_the_model(chunks: list[list[tuple[int, int, int]]], dual: bool) -> None:
    data = header(0xF5 if dual else 0xF4, tsc_freq=10**9) + INFOS
    data += b"".join(thread_info(t, f"t{t}".encode()) for t in (1, 2, 3))
    ts = 0
    for chunk in chunks:
        tid = chunk[0][0]
        recs = []
        for _, action, k in chunk:
            ts += 3
            recs.append((IDS[k] if action == 0 else 0, action, ts, ts // 2 if dual else None))
        data += gamma_block(tid, recs)
    opts = {"clock": "dual" if dual else "wall", "elapsed-time-nsec": "1"}
    trace = read(data + summary(opts, 5 if dual else 4))
    trace.validate()
    assert trace.header.entry_format == "gamma"
    ev = trace.events
    got = [
        (
            int(trace.threads.id[int(ev.thread[i])]),
            int(ev.action[i]),
            int(trace.methods.id[int(ev.method[i])]),
        )
        for i in range(len(ev))
    ]
    assert got == model(chunks)
