"""`Table`: named, equal-length numpy columns — what the Python API hands to a notebook.

Every table of the Python API (`Selection.profile()`, `calls()`, `threads()`, `edges()`, the
method table) is a `Table`; `api/tables.py` builds them from a `View`, and the Parquet
and SQL outputs convert them. A column is a numpy array (int64 ns for times, object arrays of
`str` for names) or None for a clock the trace does not record (a column of nulls in Arrow and
pandas). `to_arrow()` and `to_pandas()` import pyarrow / pandas when called: they are the
optional extra `data`, never needed to load or analyse a trace.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from html import escape
from importlib import import_module
from typing import Any

import numpy as np
import numpy.typing as npt

from traceview.model import printable, visible

Column = npt.NDArray[Any] | None
EXTRA = "pip install 'traceview[data]'"
SHOWN = 10  # rows `repr` prints


def optional(module: str, what: str) -> Any:
    """Import an optional dependency (the `data` extra) or say how to install it."""
    try:
        return import_module(module)
    except ImportError:
        raise ImportError(f"{what} needs {module.partition('.')[0]}: {EXTRA}") from None


class Table:
    """Equal-length columns in a fixed order. Immutable: `sort`, `head`, `top` and `where`
    return new tables (the columns are shared or copied, never changed in place)."""

    __slots__ = ("_cols", "_n")

    def __init__(self, columns: Mapping[str, Column], length: int | None = None) -> None:
        sizes = {len(v) for v in columns.values() if v is not None}
        if len(sizes) > 1:
            raise ValueError(f"columns of different lengths: {sorted(sizes)}")
        n = sizes.pop() if sizes else (length or 0)
        if length is not None and n != length:
            raise ValueError(f"columns have {n} rows, expected {length}")
        self._cols: dict[str, Column] = dict(columns)
        self._n = n

    # -- reading ------------------------------------------------------------------------------

    @property
    def columns(self) -> tuple[str, ...]:
        """The column names, in order."""
        return tuple(self._cols)

    def __len__(self) -> int:
        return self._n

    def __contains__(self, name: object) -> bool:
        return name in self._cols

    def __getitem__(self, name: str) -> Column:
        """A column (None for a clock the trace does not record)."""
        try:
            return self._cols[name]
        except KeyError:
            raise KeyError(f"no column {name!r} (columns: {', '.join(self._cols)})") from None

    def items(self) -> Iterator[tuple[str, Column]]:
        """(name, column) pairs in order."""
        return iter(self._cols.items())

    def rows(self) -> list[dict[str, Any]]:
        """The rows as dicts of Python values (None where a column is null)."""
        cols = {k: (v.tolist() if v is not None else [None] * self._n) for k, v in self.items()}
        return [dict(zip(cols, vals, strict=True)) for vals in zip(*cols.values(), strict=True)]

    # -- deriving -----------------------------------------------------------------------------

    def take(self, rows: npt.NDArray[np.integer] | npt.NDArray[np.bool_]) -> Table:
        """The rows at `rows` (indexes or a boolean mask), in that order."""
        out = {k: (v[rows] if v is not None else None) for k, v in self.items()}
        n = int(np.count_nonzero(rows)) if rows.dtype == np.bool_ else len(rows)
        return Table(out, n)

    def where(self, mask: npt.NDArray[np.bool_]) -> Table:
        """The rows where `mask` is True."""
        return self.take(np.asarray(mask, dtype=bool))

    def sort(self, by: str, descending: bool = True) -> Table:
        """Sorted by column `by` (ties keep their order: stable)."""
        key = self[by]
        if key is None:
            raise ValueError(f"column {by!r} is empty: the trace does not record that clock")
        order = np.argsort(_descending_key(key) if descending else key, kind="stable")
        return self.take(order)

    def head(self, n: int = SHOWN) -> Table:
        """The first `n` rows."""
        return self.take(np.arange(min(max(n, 0), self._n)))

    def top(self, n: int, by: str) -> Table:
        """The `n` rows with the largest `by` (ties in table order)."""
        return self.sort(by).head(n)

    # -- converting (optional extra `data`) ----------------------------------------------------

    def to_arrow(self) -> Any:
        """A `pyarrow.Table` (null columns are int64 nulls; names are strings)."""
        pa = optional("pyarrow", "Table.to_arrow()")
        out = {}
        for k, v in self.items():
            if v is None:
                out[k] = pa.nulls(self._n, pa.int64())
            elif v.dtype == object:
                out[k] = pa.array(v.tolist(), pa.string())
            else:
                out[k] = pa.array(v)
        return pa.table(out)

    def to_pandas(self) -> Any:
        """A `pandas.DataFrame` (null columns are nullable Int64 with NA)."""
        pd = optional("pandas", "Table.to_pandas()")
        out = {}
        for k, v in self.items():
            if v is None:
                out[k] = pd.array([None] * self._n, dtype="Int64")
            elif v.dtype == object:
                out[k] = pd.array(v.tolist(), dtype="object")
            else:
                out[k] = v
        return pd.DataFrame(out, columns=list(self._cols))

    # -- showing ------------------------------------------------------------------------------

    def __repr__(self) -> str:
        shown = self.head(SHOWN).rows()
        head = list(self._cols)
        cells = [[_cell(r[k]) for k in head] for r in shown]
        widths = [max([len(h), *(len(c[i]) for c in cells)]) for i, h in enumerate(head)]
        lines = ["  ".join(h.ljust(w) for h, w in zip(head, widths, strict=True))]
        lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) for r in cells]
        more = f" (first {len(shown)} shown)" if self._n > len(shown) else ""
        lines.append(f"[{self._n} rows x {len(head)} columns{more}]")
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        """The first rows as an HTML table (Jupyter shows this instead of `repr`)."""
        head = "".join(f"<th>{escape(k)}</th>" for k in self._cols)
        body = "".join(
            "<tr>" + "".join(f"<td>{escape(_cell(v))}</td>" for v in r.values()) + "</tr>"
            for r in self.head(SHOWN).rows()
        )
        more = f", first {SHOWN} shown" if self._n > SHOWN else ""
        return (
            f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
            f"<p>{self._n} rows x {len(self._cols)} columns{more}</p>"
        )


def names_array(values: Iterable[str | None]) -> npt.NDArray[np.object_]:
    """Names as an object array of `str` (undecodable bytes as `\\xNN`; None stays None)."""
    items = [None if v is None else visible(v) for v in values]
    out = np.empty(len(items), dtype=object)
    out[:] = items
    return out


def _descending_key(key: npt.NDArray[Any]) -> npt.NDArray[Any]:
    """A key whose ascending stable order is `key` descending (dense ranks, so it works for
    strings and for int64's minimum as well as numbers)."""
    _, rank = np.unique(key, return_inverse=True)
    out: npt.NDArray[Any] = -rank.astype(np.int64)
    return out


def _cell(value: object) -> str:
    text = "" if value is None else printable(str(value))
    return text if len(text) <= 60 else text[:59] + "…"
