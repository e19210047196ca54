"""The viewer's routes for detail on demand (docs/web-api.md "Trees on demand" and the table):
`/api/tree` (a Top Down / Bottom Up tree heaviest first, a node's subtree or children, or the
next node a find matches, with its path) and `/api/step/{method}` (a method's calls in time
order). The answers come from viewer/trees.py and viewer/steps.py, cached like every answer
by the app's `answer` (viewer/app.py), for either side of a comparison.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from traceview.analysis.query import Rename
from traceview.analysis.session import Session
from traceview.viewer import params
from traceview.viewer.compare_routes import Answer
from traceview.viewer.steps import step_answer
from traceview.viewer.trees import MAX_TREE_NODES, find_answer, tree_answer

TREE = (*params.SELECTION, "kind", "node", "children", "limit", "match", "after", "dir")
STEP = ("at", "dir", "threads", "index")


def _rows(text: str) -> tuple[int, ...]:
    return tuple(int(x) for x in text.split(",") if x.strip())


def _tree(s: Session, p: dict[str, str], r: Rename | None) -> Any:
    kind, q = p.get("kind") or "topdown", params.query(s, p, r)
    if p.get("match"):
        after, direction = int(p.get("after", -1)), int(p.get("dir") or 1)
        return find_answer(s, kind, q, _rows(p["match"]), after, direction)
    node, limit = int(p.get("node", -1)), int(p.get("limit") or MAX_TREE_NODES)
    return tree_answer(s, kind, q, node, p.get("children") == "1", limit)


def detail_routes(answer: Answer) -> list[Route]:
    """The routes, answering through the app's `answer` (parameters known, cache, errors)."""

    def api_tree(request: Request) -> Response:
        return answer(request, TREE, _tree)

    def api_step(request: Request) -> Response:
        method = int(request.path_params["method"])

        def build(s: Session, p: dict[str, str], r: Rename | None) -> Any:
            at, direction = float(p.get("at") or 0), int(p.get("dir") or 1)
            index = int(p["index"]) if p.get("index") else None
            return step_answer(s, method, at, direction, _rows(p.get("threads", "")) or None, index)

        return answer(request, STEP, build)

    return [Route("/api/tree", api_tree), Route("/api/step/{method:int}", api_step)]
