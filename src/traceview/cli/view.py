"""`traceview TRACE` / `traceview view TRACE [--port P] [--host H] [--no-browser]`: the viewer.

Loads the trace with a progress bar (reading, calls), then serves the web
UI and data API (`traceview.viewer.app`) with uvicorn on 127.0.0.1 and a free port unless told
otherwise, prints the URL and opens the default browser when there is a display (else says
how to open the URL). Ctrl-C stops the server cleanly. The profile and the timeline index
are built by the server's warm-up (`Session.warm`) while the browser loads the page.
"""

from __future__ import annotations

import argparse
import os
import socket
import sys
import threading
import webbrowser
from collections.abc import Callable
from typing import Any

from traceview.analysis.session import Session
from traceview.cli import options, precompile
from traceview.cli.memory import release_freed_memory
from traceview.cli.parser import Parser
from traceview.model import printable
from traceview.viewer.app import LOCAL_HOSTS, create_app
from traceview.viewer.guard import Timeouts, head_deadline

PHASES = ("reading", "building calls", "ready")


def parser() -> argparse.ArgumentParser:
    """The argument parser of `traceview view`."""
    p = Parser(prog="traceview view", description="Open a method trace in the local web viewer.")
    options.add_trace(p)
    options.add_mapping(p)
    options.add_listening(p, 0, "default: a free one")
    p.add_argument("--no-browser", action="store_true", help="do not open a browser")
    return p


def has_display() -> bool:
    """False on Linux/BSD without DISPLAY or WAYLAND_DISPLAY (a browser could not open)."""
    if sys.platform.startswith(("linux", "freebsd", "openbsd", "netbsd")):
        return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
    return True


def load_with_progress(path: str, args: argparse.Namespace | None = None) -> Session:
    """Load `path` into a Session, showing one progress step per phase on stderr when it is a
    terminal and the file is not small (`precompile.worth_it`: a small one loads in a
    fraction of a second, and rich's import and refresh thread would only delay it)."""
    if not (sys.stderr.isatty() and precompile.worth_it(path)):
        return _load(path, args, lambda phase: None)
    from rich.console import Console
    from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    with Progress(
        SpinnerColumn(),
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        TextColumn("{task.completed}/{task.total}"),
        TimeElapsedColumn(),
        console=Console(stderr=True),
        transient=True,
    ) as bar:
        task = bar.add_task("opening", total=len(PHASES) - 1)

        def step(phase: str) -> None:
            bar.update(task, description=phase, completed=PHASES.index(phase))

        return _load(path, args, step)


def _load(path: str, args: argparse.Namespace | None, step: Callable[[str], None]) -> Session:
    step("reading")
    session = options.open_trace(path, args)
    step("building calls")
    session.release_records()  # builds the call table, then keeps only the times
    # the profile and the timeline index are built by the server's warm-up while the
    # browser loads the page (about half a second of overlap on a 10M-record trace)
    step("ready")
    return session


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on (host, port); port 0 picks a free one."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # proto=IPPROTO_TCP: asyncio sets TCP_NODELAY on accepted sockets only when the listener
    # says TCP; without it keep-alive responses wait ~40 ms for delayed ACKs (Nagle)
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(128)
    return sock


def url_for(host: str, port: int) -> str:
    """The URL a browser on this machine should open."""
    shown = "127.0.0.1" if host in ("0.0.0.0", "", "::") else host
    if ":" in shown:
        shown = f"[{shown}]"
    return f"http://{shown}:{port}/"


def allowed_hosts(host: str, extra: list[str]) -> list[str]:
    """The Host names answered: loopback, the bound address and every --allow-host (the Host
    check stays on for any address: DNS rebinding)."""
    names = [*LOCAL_HOSTS, *extra]
    if host not in ("0.0.0.0", "", "::"):
        names.append(f"[{host}]" if ":" in host else host)
    return names


def no_display_hint(url: str) -> str:
    """The one line that says how to open the viewer when no browser can be opened here."""
    address, _, port = url.removeprefix("http://").rstrip("/").rpartition(":")
    return (
        f"traceview: no display here: open {url} in a browser on this machine, or forward the "
        f"port (ssh -L {port}:{address}:{port} HOST) and open it on yours"
    )


def main(argv: list[str]) -> int:
    """Run the viewer until Ctrl-C; 0 on a clean stop."""
    args = parser().parse_args(argv)
    release_freed_memory()  # a server: big temporaries leave the process once freed
    # numba's cache filled on the other core while a big trace loads; a small one's first
    # screens need no kernel (analysis/small.py) and keep both cores
    compiling = precompile.start() if precompile.worth_it(args.trace) else None
    rename = options.rename(args.mapping)
    session = load_with_progress(args.trace, args)
    t = session.trace
    if compiling is None and precompile.needed(len(t.events), len(t.threads)):
        compiling = precompile.start()  # a mid-sized file: now that its records are known
    if compiling is not None:
        session.before_kernels = compiling.wait
    sock = bind(args.host, args.port)

    def reopen(pick: int) -> Session:  # another process of the same ANR report
        chosen = argparse.Namespace(**{**vars(args), "process": f"#{pick}"})
        return options.open_trace(args.trace, chosen)

    app = create_app(
        session,
        allowed_hosts=allowed_hosts(args.host, args.allow_host),
        rename=rename,
        reopen=reopen if session.trace.header.processes and args.trace != "-" else None,
    )
    print(
        f"traceview: {printable(args.trace)}: {len(t.events)} records, {len(session.calls)} calls, "
        f"{len(t.threads)} threads",
        flush=True,
    )
    run(app, sock, args)
    return 0


def run(app: Any, sock: socket.socket, args: argparse.Namespace) -> None:
    """Serve `app` on `sock` until Ctrl-C: print the URL and open a browser (`--no-browser`
    not given) when there is a display, else say how to open it."""
    import uvicorn

    port = sock.getsockname()[1]
    url = url_for(args.host, port)
    config = uvicorn.Config(
        app,
        log_level="warning",
        access_log=False,
        lifespan="off",
        http=head_deadline(Timeouts().head),  # a half-sent request head is not kept open
    )
    server = uvicorn.Server(config)
    bound = sock.getsockname()[0]
    if bound not in ("127.0.0.1", "::1"):
        print(f"traceview: listening on {bound}:{port} (not only this machine)", flush=True)
    print(f"traceview: serving at {url}  (Ctrl-C to stop)", flush=True)
    if not args.no_browser and has_display():
        threading.Timer(0.3, webbrowser.open, args=(url,)).start()
    elif not args.no_browser:
        # without a display webbrowser.open falls back to nothing (or a text browser) silently
        print(no_display_hint(url), flush=True)
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:
        pass
    finally:
        sock.close()
