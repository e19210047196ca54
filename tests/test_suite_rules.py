"""Rules of the test suite itself, read from its source: a test that drives Chromium (asks for
the `browser` fixture, itself or through other fixtures) carries the `browser` mark, so
`-m browser` and `-m "not browser"` select it; and no test waits a fixed time where it could
wait for a condition. The fixed waits left are listed in ALLOWED_WAITS with their reason."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

TESTS = Path(__file__).resolve().parent

ALLOWED_WAITS = {
    ("service/test_service_store.py", "slow"): "the point of the test: a slow open keeps the "
    "other seven threads asking for the same trace while it is being opened",
    ("service/test_service_process.py", "serving"): "the interval of a bounded poll (at most "
    "300 tries) for a subprocess to answer; it ends as soon as the service does",
    ("hardening/test_hardening_service.py", "serving"): "the interval of a bounded poll for the "
    "service subprocess to answer; it ends as soon as the service does",
    (
        "hardening/test_hardening_service.py",
        "test_slow_loris_connections_are_closed_and_uploads_go_on",
    ): ("the interval of a bounded poll while the server's own timeouts close the stalled sockets"),
    ("viewer/test_web_guard_pace.py", "trickle"): "the point of the test: a client sending a "
    "byte every 50 ms",
    ("viewer/test_web_guard_pace.py", "steady"): "the point of the test: a client sending "
    "steadily, pausing 10 ms between chunks",
    ("viewer/test_web_guard_pace.py", "main"): "the point of the test: the server pausing "
    "between reads must not count against the client",
}
WAITS = {"sleep", "wait_for_timeout"}  # time.sleep, asyncio.sleep, page.wait_for_timeout
LAUNCHERS = {"launch", "sync_playwright", "async_playwright"}  # only via the `browser` fixture

Functions = ast.FunctionDef | ast.AsyncFunctionDef


def dotted(node: ast.expr) -> str:
    """`pytest.mark.browser` for that expression (calls unwrapped; what a name cannot spell,
    as a subscript, is left out), "" for anything else."""
    if isinstance(node, ast.Call):
        return dotted(node.func)
    if isinstance(node, ast.Attribute):
        head = dotted(node.value)
        return f"{head}.{node.attr}" if head else node.attr
    return node.id if isinstance(node, ast.Name) else ""


def functions(tree: ast.Module) -> Iterator[tuple[Functions, list[ast.expr]]]:
    """Every module-level or class-level function with the decorators that apply to it
    (its own and its class's)."""
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            yield node, node.decorator_list
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
                    yield item, [*item.decorator_list, *node.decorator_list]


def fixtures(tree: ast.Module) -> dict[str, list[str]]:
    """The fixtures a module defines, each with the fixtures it asks for."""
    return {
        f.name: [a.arg for a in f.args.args]
        for f, decorators in functions(tree)
        if any(dotted(d) in ("pytest.fixture", "fixture") for d in decorators)
    }


def browser_fixtures(defined: dict[str, list[str]]) -> set[str]:
    """The fixtures that need the browser: `browser`, and those asking for one that does."""
    needs = {"browser"}
    grew = True
    while grew:
        more = {name for name, args in defined.items() if needs.intersection(args)}
        grew = not more <= needs
        needs |= more
    return needs


def marked(tree: ast.Module) -> bool:
    """True when the module's `pytestmark` holds `pytest.mark.browser`."""
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "pytestmark" for t in node.targets
        ):
            values = (
                node.value.elts if isinstance(node.value, ast.List | ast.Tuple) else [node.value]
            )
            return any(dotted(v) == "pytest.mark.browser" for v in values)
    return False


def unmarked_browser_tests(source: str, shared: dict[str, list[str]]) -> list[str]:
    """The tests of a module (`source`) that need the browser but lack the `browser` mark,
    and its direct launches of Playwright; `shared`: the conftest fixtures in scope."""
    tree = ast.parse(source)
    needs = browser_fixtures({**shared, **fixtures(tree)})
    whole = marked(tree)
    bad = [
        f"{f.name} needs the browser but lacks the browser mark"
        for f, decorators in functions(tree)
        if f.name.startswith("test")
        and needs.intersection(a.arg for a in f.args.args)
        and not whole
        and not any(dotted(d) == "pytest.mark.browser" for d in decorators)
    ]
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and dotted(node.func).split(".")[-1] in LAUNCHERS:
            bad.append(f"line {node.lineno} starts Playwright itself: use the browser fixture")
    return bad


def fixed_waits(source: str) -> Iterator[tuple[str, int]]:
    """(enclosing function, line) of every fixed wait: a call to `sleep` or
    `wait_for_timeout`, whatever it is called on."""
    tree = ast.parse(source)
    owner: dict[ast.AST, str] = {}
    for node in ast.walk(tree):  # outer functions first: an inner one's name overrides
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            owner.update((inner, node.name) for inner in ast.walk(node) if inner is not node)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and dotted(node.func).split(".")[-1] in WAITS:
            yield owner.get(node, "<module>"), node.lineno


def modules() -> Iterator[tuple[str, str]]:
    """(path relative to tests/, source) of every Python file of the suite."""
    for path in sorted(TESTS.rglob("*.py")):
        yield path.relative_to(TESTS).as_posix(), path.read_text(encoding="utf-8")


def shared_fixtures(module: str) -> dict[str, list[str]]:
    """The fixtures of the conftest.py files above `module` (nearer ones win)."""
    out: dict[str, list[str]] = {}
    folder = TESTS
    for part in ["", *Path(module).parent.parts]:
        folder = folder / part
        conftest = folder / "conftest.py"
        if conftest.is_file():
            out.update(fixtures(ast.parse(conftest.read_text(encoding="utf-8"))))
    return out


def test_every_browser_test_is_marked() -> None:
    bad = [
        f"{name}: {problem}"
        for name, source in modules()
        if not name.startswith("support/") and Path(name).name != "conftest.py"
        for problem in unmarked_browser_tests(source, shared_fixtures(name))
    ]
    assert not bad, "\n".join(bad)


def test_no_fixed_waits_beyond_the_listed_ones() -> None:
    found = [(name, *wait) for name, source in modules() for wait in fixed_waits(source)]
    new = [f"{name}:{line} in {owner}" for name, owner, line in found]
    new = [
        w
        for w, (name, owner, _) in zip(new, found, strict=True)
        if (name, owner) not in ALLOWED_WAITS
    ]
    assert not new, "wait for the condition the test needs instead:\n" + "\n".join(new)
    gone = [key for key in ALLOWED_WAITS if key not in {(n, o) for n, o, _ in found}]
    assert not gone, f"listed waits no longer in the suite (drop them): {gone}"


UNMARKED = """
import pytest

@pytest.fixture
def viewer_page(browser):
    return browser.new_page()

def test_direct(browser):
    pass

def test_through_a_fixture(viewer_page):
    pass

@pytest.mark.browser
def test_marked(viewer_page):
    pass

def test_no_browser(tmp_path):
    pass
"""


def test_the_rules_catch_an_unmarked_test_and_a_fixed_wait() -> None:
    conftest = fixtures(ast.parse((TESTS / "conftest.py").read_text(encoding="utf-8")))
    assert unmarked_browser_tests(UNMARKED, conftest) == [
        "test_direct needs the browser but lacks the browser mark",
        "test_through_a_fixture needs the browser but lacks the browser mark",
    ]
    assert unmarked_browser_tests("def test_page(page):\n    pass\n", conftest) != []
    assert (
        unmarked_browser_tests(
            "import pytest\npytestmark = pytest.mark.browser\n" + UNMARKED, conftest
        )
        == []
    )
    launched = "from support.browserkit import launch\ndef helper():\n    launch()\n"
    assert unmarked_browser_tests(launched, conftest) == [
        "line 3 starts Playwright itself: use the browser fixture"
    ]
    waits = "import time\ndef test_x(pages):\n    time.sleep(1)\n    pages[0].wait_for_timeout(5)\n"
    assert list(fixed_waits(waits)) == [("test_x", 3), ("test_x", 4)]
