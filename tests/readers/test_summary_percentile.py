"""`summary.percentile` is `np.percentile` (linear interpolation), to the same float, on
integer and float steps of any length and any percentile."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from traceview.readers.summary import percentile

values = st.one_of(
    arrays(np.int64, st.integers(1, 300), elements=st.integers(-(2**40), 2**40)),
    arrays(np.float64, st.integers(1, 300), elements=st.floats(-1e12, 1e12)),
    arrays(np.int64, st.integers(1, 300), elements=st.integers(0, 3)),  # many ties
)


@settings(max_examples=400, deadline=None)
@given(values, st.floats(0, 100))
def test_same_as_numpy(a: np.ndarray, q: float) -> None:
    assert percentile(a, q) == float(np.percentile(a, q))


def test_the_sampling_quantiles() -> None:
    rng = np.random.default_rng(3)
    for n in (1, 2, 5, 21, 1000, 200_000):
        a = rng.integers(1, 5000, n)
        for q in (10, 20, 50):
            assert percentile(a, q) == float(np.percentile(a, q))
