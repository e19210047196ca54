"""The argument parser of every command: argparse, but a usage error is one line on stderr
(exit status 2), like every other error of the command line, instead of the usage block."""

from __future__ import annotations

import argparse
from typing import NoReturn

from traceview.model import printable


class Parser(argparse.ArgumentParser):
    """`argparse.ArgumentParser` whose errors are one line naming the command and `--help`."""

    def error(self, message: str) -> NoReturn:
        """Exit 2 after one line: `traceview info: the following arguments are required: …`."""
        hint = ""
        if "required" in message and "trace" in message:
            hint = " (a file whose name starts with '-' is given as ./-name)"
        self.exit(2, f"{self.prog}: {printable(message)}{hint}; see {self.prog} --help\n")
