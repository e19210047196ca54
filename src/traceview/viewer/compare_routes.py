"""The viewer's compare routes (docs/web-api.md, "Compare"): the comparison of the two sides
(`/api/compare`), its differential flame graph (`/api/compare/flame`, `width=candidate|
baseline`), its changed call paths (`/api/compare/paths`), a method's first call on either
side (`/api/first/{method}`, where the timelines align), and `POST /api/compare/open`, which
loads a trace to compare the shown one with (bounded and guarded like /api/open).

The answers take the selection words of viewer/comparing.py (`clock`, `thread` names,
`mycode`, `metric`) and come from viewer/compare_answers.py, cached like every answer.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from traceview.analysis.diff import Thresholds
from traceview.analysis.query import Rename
from traceview.analysis.session import Session
from traceview.exporters.jsonshape import encode
from traceview.viewer import answers as viewer
from traceview.viewer import compare_answers as answers
from traceview.viewer.comparing import WORDS, Comparisons, Sides

Build = Callable[[Session, dict[str, str], Rename | None], Any]
Answer = Callable[[Request, tuple[str, ...], Build], Response]


class State(Protocol):
    """What the routes read of the app's state (viewer/app.py `_State`)."""

    session: Session
    rename: Rename | None
    sides: Sides | None
    comparisons: Comparisons | None

    def compare(self, sides: Sides) -> None: ...


def compare_routes(
    state: State,
    answer: Answer,
    spool: Callable[[Request], Awaitable[Session | Response]],
    json: Callable[[bytes], Response],
    error: Callable[[int, str], Response],
) -> list[Route]:
    """The routes, answering from `state` through the app's `answer` helper; `spool` reads a
    POST body into a session (or an error answer)."""

    def comparisons() -> Comparisons:
        if state.comparisons is None:
            raise ValueError("no trace to compare with: open one with “Compare with…”")
        return state.comparisons

    def api_compare(request: Request) -> Response:
        def build(s: Session, p: dict[str, str], r: Rename | None) -> Any:
            cs = comparisons()
            return answers.compare_answer(cs, cs.get(p))

        return answer(request, WORDS, build)

    def api_flame(request: Request) -> Response:
        def build(s: Session, p: dict[str, str], r: Rename | None) -> Any:
            cs = comparisons()
            return answers.flame_answer(cs, cs.get(p), p.get("width") or "candidate")

        return answer(request, (*WORDS, "width"), build)

    def api_paths(request: Request) -> Response:
        def build(s: Session, p: dict[str, str], r: Rename | None) -> Any:
            return answers.paths_answer(comparisons().get(p))

        return answer(request, WORDS, build)

    def api_first(request: Request) -> Response:
        method = int(request.path_params["method"])
        return answer(request, (), lambda s, p, r: answers.first_answer(s, method))

    async def api_open(request: Request) -> Response:
        """The uploaded trace becomes the candidate; the shown trace the baseline."""
        new = await spool(request)
        if isinstance(new, Response):
            return new
        base = state.sides.base if state.sides is not None else (state.session,)
        if set(base[0].clocks).isdisjoint(new.clocks):
            return error(400, "the two traces share no clock: they cannot be compared")
        thresholds = state.sides.thresholds if state.sides is not None else Thresholds()
        state.compare(Sides(base, (new,), thresholds, state.rename))
        out = viewer.trace_answer(new)
        assert state.sides is not None
        out["compare"] = answers.sides_json(state.sides, "cand")
        return json(encode(out))

    return [
        Route("/api/compare", api_compare),
        Route("/api/compare/flame", api_flame),
        Route("/api/compare/paths", api_paths),
        Route("/api/compare/open", api_open, methods=["POST"]),
        Route("/api/first/{method:int}", api_first),
    ]


__all__ = ["compare_routes"]
