"""The vectorised scan that tells time LEBs from method LEBs in a low-overhead dump's entry
blocks (format.md §1.8), and the end of a block whose size field is not written.

Only an entry's time is followed by a method LEB, so which LEB is which is a running parity:
a prefix scan over per-LEB state transitions, never a per-event loop.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from traceview.readers.v2.leb128 import decode

__all__ = ["block_end", "states_before"]


# Per-LEB state transitions. A state is (the next LEB is a time) with the running time-action
# value even (0) or odd (1), or (the next LEB is a method) (2, the value is then even). After a
# time LEB of parity v the value's parity flips by v: odd (an exit) -> a time LEB follows,
# even (an entry) -> its method LEB; after a method LEB a time LEB follows.
# A transition is a function of the 3 states, coded f(0)*9 + f(1)*3 + f(2) (27 codes), so a
# prefix scan composes codes through one 27x27 table instead of gathering per state.
_EVEN, _ODD = (2, 1, 0), (1, 2, 0)


def _code(f: tuple[int, int, int]) -> int:
    return f[0] * 9 + f[1] * 3 + f[2]


def _compose_table() -> npt.NDArray[np.uint8]:
    """`table[g, f]` = the code of g after f."""
    funcs = [(c // 9, c // 3 % 3, c % 3) for c in range(27)]
    out = np.zeros((27, 27), dtype=np.uint8)
    for gc, g in enumerate(funcs):
        for fc, f in enumerate(funcs):
            out[gc, fc] = _code((g[f[0]], g[f[1]], g[f[2]]))
    return out


_COMPOSE = _compose_table()
# Per LEB parity: its transition; at a block start: the constant from state 0.
_STEP = np.array([_code(_EVEN), _code(_ODD)], dtype=np.uint8)
_RESET = np.array([_code((_EVEN[0],) * 3), _code((_ODD[0],) * 3)], dtype=np.uint8)


def states_before(
    parity: npt.NDArray[np.uint8], first: npt.NDArray[np.bool_]
) -> npt.NDArray[np.uint8]:
    """The state before each LEB, every block starting in (time, even): an inclusive prefix
    scan (Hillis-Steele doubling) of the per-LEB transitions, as long as the longest block."""
    n = len(parity)
    code = np.where(first, _RESET[parity], _STEP[parity]).astype(np.uint8)
    starts = np.flatnonzero(first)
    longest = int(np.diff(np.r_[starts, n]).max()) if n else 0
    k = 1
    while k < longest:
        code[k:] = _COMPOSE[code[k:], code[:-k]]
        k *= 2
    after = code // 9  # each prefix applied to state 0
    before = np.empty(n, dtype=np.uint8)
    if n:
        before[0] = 0
        before[1:] = after[:-1]
        before[first] = 0
    return before


def block_end(buf: npt.NDArray[np.uint8], start: int, n: int) -> int | None:
    """Where the `n` events from `start` end (an all-methods block has no size), or None when
    the file ends first. Decodes a window of LEBs at once, widened until it holds n events."""
    width = 8 * n + 16
    while True:
        stop = min(start + width, len(buf))
        lebs = decode(buf[start:stop])
        ends = lebs.start + lebs.length
        good = ends <= stop - start
        value = lebs.signed()[good]
        first = np.zeros(len(value), dtype=bool)
        first[:1] = True
        before = states_before((value & 1).astype(np.uint8), first)
        times = np.flatnonzero(before < 2)
        if len(times) > n:  # the (n+1)-th time LEB starts where the block ends
            return start + int(lebs.start[good][times[n]])
        if len(times) == n and n:
            last = int(times[-1])
            is_exit = (int(before[last]) ^ int(value[last] & 1)) == 1
            closes = last if is_exit else last + 1
            if closes < len(value):
                return start + int(ends[good][closes])
        if stop == len(buf):
            return None
        width *= 4
