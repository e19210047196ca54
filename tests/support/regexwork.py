"""The work a backtracking regex engine does, counted instead of timed: a small model of
Python's `re` (the same parse tree, `re._parser`, the same leftmost, greedy/lazy order) that
counts every character test and every position it resumes at. A pattern that backtracks
quadratically over a line shows it in the count, whatever the machine's speed.

`Counting(pattern)` stands in for a compiled pattern (`match`, `finditer`): the answers come
from `re` itself, and each one is checked against the model, so the count is the work of the
real pattern. Only what the product's patterns use is modelled (classes, categories,
repeats, groups, alternation, lookarounds, `^`/`$`); anything else raises.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterator
from importlib import import_module
from typing import Any

# re's private parser and its constants: typeshed has no stubs for them (Any, by design)
c: Any = import_module("re._constants")
_parser: Any = import_module("re._parser")

Next = Callable[[int], bool]
CATEGORIES: dict[Any, Callable[[str], bool]] = {
    c.CATEGORY_SPACE: str.isspace,
    c.CATEGORY_NOT_SPACE: lambda ch: not ch.isspace(),
    c.CATEGORY_DIGIT: str.isdecimal,
    c.CATEGORY_NOT_DIGIT: lambda ch: not ch.isdecimal(),
    c.CATEGORY_WORD: lambda ch: ch.isalnum() or ch == "_",
    c.CATEGORY_NOT_WORD: lambda ch: not (ch.isalnum() or ch == "_"),
}
SINGLE = {c.LITERAL, c.NOT_LITERAL, c.IN, c.ANY}


class Counting:
    """A compiled pattern whose matches are counted in `steps` (character tests + resumes)."""

    def __init__(self, pattern: re.Pattern[str]) -> None:
        self.pattern = pattern
        self.tree = list(_parser.parse(pattern.pattern, pattern.flags))
        self.multiline = bool(pattern.flags & re.MULTILINE)
        self.steps = 0
        self.text = ""

    def match(self, text: str) -> re.Match[str] | None:
        """`re.match`, counting the one attempt at offset 0."""
        found = self.pattern.match(text)
        self._check(text, 0, found is not None)
        return found

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        """`re.finditer`, counting the attempt at every offset the search tries."""
        at = 0
        for found in self.pattern.finditer(text):
            for pos in range(at, found.start()):
                self._check(text, pos, False)
            self._check(text, found.start(), True)
            at = found.end() + (found.end() == found.start())
            yield found
        for pos in range(at, len(text) + 1):
            self._check(text, pos, False)

    def _check(self, text: str, pos: int, expected: bool) -> None:
        self.text = text
        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(limit, 50_000))  # a repeated group recurses per iteration
        try:
            got = self._seq(self.tree, 0, pos, lambda _: True)
        finally:
            sys.setrecursionlimit(limit)
        assert got == expected, f"the model and re disagree on {self.pattern.pattern!r} at {pos}"

    def _seq(self, items: list[Any], i: int, pos: int, k: Next) -> bool:
        self.steps += 1
        if i == len(items):
            return k(pos)
        op, av = items[i]
        rest: Next = lambda p: self._seq(items, i + 1, p, k)  # noqa: E731
        if op in SINGLE:
            return self._one(op, av, pos) and rest(pos + 1)
        if op in (c.MAX_REPEAT, c.MIN_REPEAT):
            low, high, sub = av
            high = len(self.text) + 1 if high == c.MAXREPEAT else high
            sub = list(sub)
            if len(sub) == 1 and sub[0][0] in SINGLE:
                return self._repeat_one(sub[0], low, high, op == c.MAX_REPEAT, pos, rest)
            return self._repeat(sub, low, high, op == c.MAX_REPEAT, 0, pos, rest)
        if op == c.SUBPATTERN:
            return self._seq(list(av[-1]), 0, pos, rest)
        if op == c.BRANCH:
            return any(self._seq(list(alt), 0, pos, rest) for alt in av[1])
        if op in (c.ASSERT, c.ASSERT_NOT):
            direction, sub = av
            if direction != 1:
                raise NotImplementedError("lookbehind")
            seen = self._seq(list(sub), 0, pos, lambda _: True)
            return (seen == (op == c.ASSERT)) and rest(pos)
        if op == c.AT:
            return self._at(av, pos) and rest(pos)
        raise NotImplementedError(f"{op} is not modelled")

    def _one(self, op: Any, av: Any, pos: int) -> bool:
        """One character test."""
        self.steps += 1
        if pos >= len(self.text):
            return False
        ch = self.text[pos]
        if op == c.LITERAL:
            return bool(ord(ch) == av)
        if op == c.NOT_LITERAL:
            return bool(ord(ch) != av)
        if op == c.ANY:
            return ch != "\n"
        negate, hit = False, False
        for kind, value in av:
            if kind == c.NEGATE:
                negate = True
            elif kind == c.LITERAL:
                hit = hit or ord(ch) == value
            elif kind == c.RANGE:
                hit = hit or value[0] <= ord(ch) <= value[1]
            elif kind == c.CATEGORY:
                hit = hit or bool(CATEGORIES[value](ch))
            else:
                raise NotImplementedError(f"{kind} in a class is not modelled")
        return hit != negate

    def _repeat_one(self, item: Any, low: int, high: int, greedy: bool, pos: int, k: Next) -> bool:
        """A repeated single character, as `re` runs it: greedy takes all it can and gives
        back one at a time; lazy takes the fewest and adds one at a time."""
        if greedy:
            n = 0
            while n < high and self._one(item[0], item[1], pos + n):
                n += 1
            for count in range(n, low - 1, -1):
                self.steps += 1
                if k(pos + count):
                    return True
            return False
        n = 0
        while n < low:
            if not self._one(item[0], item[1], pos + n):
                return False
            n += 1
        while True:
            self.steps += 1
            if k(pos + n):
                return True
            if n >= high or not self._one(item[0], item[1], pos + n):
                return False
            n += 1

    def _repeat(
        self, sub: list[Any], low: int, high: int, greedy: bool, count: int, pos: int, k: Next
    ) -> bool:
        """A repeated group, one iteration at a time (an empty iteration ends it)."""

        def again(p: int) -> bool:
            return p != pos and self._repeat(sub, low, high, greedy, count + 1, p, k)

        def more() -> bool:
            return count < high and self._seq(sub, 0, pos, again)

        if count < low:
            return self._seq(
                sub, 0, pos, lambda p: self._repeat(sub, low, high, greedy, count + 1, p, k)
            )
        self.steps += 1
        return (more() or k(pos)) if greedy else (k(pos) or more())

    def _at(self, where: Any, pos: int) -> bool:
        text, end = self.text, len(self.text)
        if where == c.AT_BEGINNING:
            return pos == 0 or (self.multiline and text[pos - 1] == "\n")
        if where == c.AT_BEGINNING_STRING:
            return pos == 0
        if where == c.AT_END:
            if self.multiline:
                return pos == end or text[pos] == "\n"
            return pos == end or (pos == end - 1 and text[pos] == "\n")
        if where == c.AT_END_STRING:
            return pos == end
        raise NotImplementedError(f"{where} is not modelled")


__all__ = ["Counting"]
