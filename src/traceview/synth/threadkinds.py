"""The kinds of thread the generator simulates: name, how busy it is (which sets its share of
the records), the frames on the stack when tracing starts, and its weighted call-tree templates.

`thread_plan(n, pid)` lists the first `n` threads of an app process in a realistic order.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from traceview.synth import background_scenarios as bg
from traceview.synth import ui_scenarios as ui
from traceview.synth.callbuilder import CallBuilder

Scenario = Callable[[CallBuilder], None]


@dataclass(frozen=True)
class ThreadKind:
    """One kind of thread. `base` frames never return while tracing; `transient` frames are on
    the stack at start and return during `tail`; `unreported` threads had frames ART could not
    report, so they start with exits that have no enter (always so for Dalvik)."""

    key: str
    busy: float  # share of the trace the thread spends in calls (the rest is extra idle time)
    body: tuple[tuple[Scenario, float], ...]
    base: tuple[str, ...] = ()
    transient: tuple[str, ...] = ()
    tail: Scenario | None = None
    unreported: bool = False


THREAD_RUN = "java.lang.Thread.run()V"
DAEMON = ("java.lang.Thread.run()V", "java.lang.Daemons$Daemon.run()V")
POOL = (
    THREAD_RUN,
    "java.util.concurrent.ThreadPoolExecutor$Worker.run()V",
    "java.util.concurrent.ThreadPoolExecutor.runWorker(Ljava/util/concurrent/ThreadPoolExecutor$Worker;)V",
)
WORKER = (
    "kotlinx.coroutines.scheduling.CoroutineScheduler$Worker.run()V",
    "kotlinx.coroutines.scheduling.CoroutineScheduler$Worker.runWorker()V",
)


def _worker_idle(b: CallBuilder) -> None:
    bg.park(
        b,
        "kotlinx.coroutines.scheduling.CoroutineScheduler$Worker.tryPark()V",
        "kotlinx.coroutines.scheduling.CoroutineScheduler$Worker.park()V",
    )


def _okhttp_tail(b: CallBuilder) -> None:
    b.work(b.u(10, 300))
    b.leaf("okio.RealBufferedSource.close()V", 6)


MAIN = ThreadKind(
    "main",
    1.0,
    body=(
        (ui.vsync_request, 0.1),
        (ui.frame, 0.6),
        (ui.click, 0.08),
        (ui.live_data, 0.12),
        (ui.parse_failure, 0.1),
    ),
    base=(
        "com.android.internal.os.ZygoteInit.main([Ljava/lang/String;)V",
        "com.android.internal.os.RuntimeInit$MethodAndArgsCaller.run()V",
        "java.lang.reflect.Method.invoke(Ljava/lang/Object;[Ljava/lang/Object;)Ljava/lang/Object;",
        "android.app.ActivityThread.main([Ljava/lang/String;)V",
        "android.os.Looper.loop()V",
    ),
    transient=(
        "android.os.Looper.loopOnce(Landroid/os/Looper;JI)Z",
        "android.os.Handler.dispatchMessage(Landroid/os/Message;)V",
        "android.app.ActivityThread$H.handleMessage(Landroid/os/Message;)V",
        "android.app.servertransaction.TransactionExecutor.execute(Landroid/app/servertransaction/ClientTransaction;)V",
        "android.app.servertransaction.TransactionExecutor.executeCallbacks(Landroid/app/servertransaction/ClientTransaction;)V",
        "android.app.servertransaction.LaunchActivityItem.execute(Landroid/app/ClientTransactionHandler;Landroid/os/IBinder;Landroid/app/servertransaction/PendingTransactionActions;)V",
        "android.app.ActivityThread.handleLaunchActivity(Landroid/app/ActivityThread$ActivityClientRecord;Landroid/app/servertransaction/PendingTransactionActions;Landroid/content/Intent;)Landroid/app/Activity;",
        "android.app.ActivityThread.performLaunchActivity(Landroid/app/ActivityThread$ActivityClientRecord;Landroid/content/Intent;)Landroid/app/Activity;",
        "android.app.Instrumentation.callActivityOnCreate(Landroid/app/Activity;Landroid/os/Bundle;)V",
        "android.app.Activity.performCreate(Landroid/os/Bundle;)V",
        "android.app.Activity.performCreate(Landroid/os/Bundle;Landroid/os/PersistableBundle;)V",
        "com.example.app.MainActivity.onCreate(Landroid/os/Bundle;)V",
        "android.os.Debug.startMethodTracing(Ljava/lang/String;)V",
        "dalvik.system.VMDebug.startMethodTracing(Ljava/lang/String;IIZI)V",
    ),
    tail=ui.start_tail,
)
# what the main thread is inside when tracing stops (open at the end)
STOP = (
    "android.os.Looper.loopOnce(Landroid/os/Looper;JI)Z",
    "android.os.Handler.dispatchMessage(Landroid/os/Message;)V",
    "android.os.Handler.handleCallback(Landroid/os/Message;)V",
    "android.view.View$PerformClick.run()V",
    "android.view.View.performClick()Z",
    "com.example.app.debug.TracingToggle.onClick(Landroid/view/View;)V",
    "android.os.Debug.stopMethodTracing()V",
    "dalvik.system.VMDebug.stopMethodTracing()V",
)
FILL = "java.util.HashMap.get(Ljava/lang/Object;)Ljava/lang/Object;"  # pads balanced traces
RENDER = ThreadKind("RenderThread", 0.8, body=((bg.render_callback, 1.0),))
BINDER = ThreadKind("Binder:{pid}_{n}", 0.5, body=((bg.binder, 1.0),))
OKHTTP = ThreadKind(
    "OkHttp Dispatcher",
    0.9,
    body=((bg.http_call, 0.5), (bg.pool_idle, 0.5)),
    base=POOL,
    transient=(
        "okhttp3.internal.connection.RealCall$AsyncCall.run()V",
        "com.example.app.net.ApiClient$enqueue$1.onResponse(Lokhttp3/Call;Lokhttp3/Response;)V",
        "okhttp3.ResponseBody.close()V",
        "okhttp3.internal.Util.closeQuietly(Ljava/io/Closeable;)V",
    ),
    tail=_okhttp_tail,
    unreported=True,
)
EXECUTOR = ThreadKind(
    "kotlinx.coroutines.DefaultExecutor",
    0.7,
    body=((bg.default_executor, 1.0),),
    base=("kotlinx.coroutines.DefaultExecutor.run()V",),
)
DISPATCHER = ThreadKind(
    "DefaultDispatcher-worker-{n}",
    0.9,
    body=((bg.coroutine_task, 0.6), (_worker_idle, 0.4)),
    base=WORKER,
)
HEAP = ThreadKind(
    "HeapTaskDaemon",
    0.8,
    body=((bg.heap_task, 1.0),),
    base=(*DAEMON, "java.lang.Daemons$HeapTaskDaemon.runInternal()V"),
)
FINALIZER = ThreadKind(
    "FinalizerDaemon",
    0.6,
    body=((bg.finalizer, 1.0),),
    base=(*DAEMON, "java.lang.Daemons$FinalizerDaemon.runInternal()V"),
)
KINDS = (MAIN, RENDER, BINDER, OKHTTP, EXECUTOR, DISPATCHER, HEAP, FINALIZER)
ORDER = (
    MAIN,
    RENDER,
    BINDER,
    OKHTTP,
    EXECUTOR,
    DISPATCHER,
    HEAP,
    FINALIZER,
    BINDER,
    DISPATCHER,
    OKHTTP,
)
REPEAT = (DISPATCHER, BINDER, OKHTTP)


def thread_plan(n: int, pid: int) -> list[tuple[ThreadKind, str]]:
    """The first `n` threads of the process: (kind, thread name)."""
    counts: dict[str, int] = {}
    out = []
    for i in range(n):
        kind = ORDER[i] if i < len(ORDER) else REPEAT[(i - len(ORDER)) % len(REPEAT)]
        counts[kind.key] = counts.get(kind.key, 0) + 1
        out.append((kind, kind.key.format(pid=pid, n=counts[kind.key])))
    return out
