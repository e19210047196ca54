# ruff: noqa: E501, SIM117 (JVM signatures are data; nested `with` mirrors call nesting)
"""Call-tree templates of background threads: OkHttp calls with an interceptor chain, blocking
socket reads and a timeout, Gson's recursive parsing, coroutine workers sorting with TimSort,
Binder transactions, the GC and finalizer daemons and RenderThread callbacks.

Each function takes a `CallBuilder` and adds one well-nested call tree (see `ui_scenarios`).
"""

from __future__ import annotations

from traceview.synth.callbuilder import CallBuilder

OK = "okhttp3.internal."
CO = "kotlinx.coroutines."
GSON = "com.google.gson.internal.bind."
PARK = [
    "java.util.concurrent.locks.LockSupport.parkNanos(Ljava/lang/Object;J)V",
    "sun.misc.Unsafe.park(ZJ)V",
]


def park(b: CallBuilder, *outer: str) -> None:
    """A thread waiting for work: `outer` frames then LockSupport.parkNanos -> Unsafe.park."""
    with b.frames([*outer, PARK[0]], 2):
        b.wait(PARK[1], b.u(1500, 70000))


def pool_idle(b: CallBuilder) -> None:
    """ThreadPoolExecutor.getTask waiting on its SynchronousQueue."""
    park(
        b,
        "java.util.concurrent.ThreadPoolExecutor.getTask()Ljava/lang/Runnable;",
        "java.util.concurrent.SynchronousQueue.poll(JLjava/util/concurrent/TimeUnit;)Ljava/lang/Object;",
        "java.util.concurrent.SynchronousQueue$TransferStack.transfer(Ljava/lang/Object;ZJ)Ljava/lang/Object;",
        "java.util.concurrent.SynchronousQueue$TransferStack.awaitFulfill(Ljava/util/concurrent/SynchronousQueue$TransferStack$SNode;ZJ)Ljava/util/concurrent/SynchronousQueue$TransferStack$SNode;",
    )


INTERCEPTORS = (
    OK + "http.RetryAndFollowUpInterceptor",
    OK + "http.BridgeInterceptor",
    "com.example.app.net.AuthInterceptor",
    OK + "cache.CacheInterceptor",
    OK + "connection.ConnectInterceptor",
)
PROCEED = OK + "http.RealInterceptorChain.proceed(Lokhttp3/Request;)Lokhttp3/Response;"
SOCKET_READ = [
    OK + "http1.Http1ExchangeCodec.readResponseHeaders(Z)Lokhttp3/Response$Builder;",
    OK + "http1.HeadersReader.readLine()Ljava/lang/String;",
    "okio.RealBufferedSource.readUtf8LineStrict(J)Ljava/lang/String;",
    "okio.RealBufferedSource.indexOf(BJJ)J",
    "okio.InputStreamSource.read(Lokio/Buffer;J)J",
    "java.net.SocketInputStream.read([BII)I",
    "java.net.SocketInputStream.socketRead0(Ljava/io/FileDescriptor;[BIII)I",
]


def http_call(b: CallBuilder) -> None:
    """RealCall$AsyncCall.run: the interceptor chain (2 frames per interceptor), a blocking
    socket read, sometimes a SocketTimeoutException unrolling to the retry interceptor."""
    timeout = b.rng.random() < 0.12
    with b.frames(
        [
            OK + "connection.RealCall$AsyncCall.run()V",
            OK + "connection.RealCall.getResponseWithInterceptorChain$okhttp()Lokhttp3/Response;",
            PROCEED,
        ],
        4,
    ):
        depth0 = len(b.stack)
        for cls in INTERCEPTORS:
            b.enter(cls + ".intercept(Lokhttp3/Interceptor$Chain;)Lokhttp3/Response;")
            b.work(b.u(2, 30))
            b.enter(PROCEED)
            b.work(2)
        b.enter(
            OK
            + "http.CallServerInterceptor.intercept(Lokhttp3/Interceptor$Chain;)Lokhttp3/Response;"
        )
        b.work(5)
        b.leaf(OK + "connection.Exchange.writeRequestHeaders(Lokhttp3/Request;)V", b.u(20, 200))
        b.leaf(OK + "connection.Exchange.flushRequest()V", b.u(10, 100), b.u(50, 600))
        for spec in SOCKET_READ[:-1]:
            b.enter(spec)
            b.work(2)
        if timeout:
            b.enter(SOCKET_READ[-1])
            b.block(15000, 5)  # the read timeout
            b.chain(
                [
                    "java.net.SocketTimeoutException.<init>(Ljava/lang/String;)V",
                    "java.lang.Throwable.fillInStackTrace()Ljava/lang/Throwable;",
                ],
                20,
            )
            b.unroll(len(b.stack) - depth0 - 1)  # caught by RetryAndFollowUpInterceptor
            b.leaf(
                OK
                + "http.RetryAndFollowUpInterceptor.recover(Ljava/io/IOException;Lokhttp3/internal/connection/RealCall;Lokhttp3/Request;Z)Z",
                8,
            )
        else:
            b.wait(SOCKET_READ[-1], b.u(2000, 120000), b.u(5, 40))
            for _ in SOCKET_READ[:-1]:
                b.work(b.u(1, 20))
                b.exit()
            b.leaf(
                OK
                + "connection.Exchange.openResponseBody(Lokhttp3/Response;)Lokhttp3/ResponseBody;",
                b.u(5, 50),
            )
        while len(b.stack) > depth0:
            b.work(b.u(2, 25))
            b.exit()
        b.work(3)
    if not timeout:
        with b.call(
            "com.example.app.net.ApiClient$enqueue$1.onResponse(Lokhttp3/Call;Lokhttp3/Response;)V",
            5,
        ):
            with b.call(
                "com.google.gson.Gson.fromJson(Ljava/io/Reader;Ljava/lang/reflect/Type;)Ljava/lang/Object;",
                10,
            ):
                _json(b, b.rng.randint(2, 6))


def _json(b: CallBuilder, levels: int) -> None:
    """Gson reflective adapter recursing through nested objects and lists."""
    with b.call(
        GSON
        + "ReflectiveTypeAdapterFactory$Adapter.read(Lcom/google/gson/stream/JsonReader;)Ljava/lang/Object;",
        b.u(5, 40),
    ):
        b.leaf(
            "com.google.gson.internal.ConstructorConstructor$4.construct()Ljava/lang/Object;",
            b.u(2, 20),
        )
        for _ in range(b.rng.randint(1, 4)):
            with b.call(
                GSON
                + "ReflectiveTypeAdapterFactory$1.read(Lcom/google/gson/stream/JsonReader;Ljava/lang/Object;)V",
                2,
            ):
                with b.call(
                    GSON
                    + "TypeAdapterRuntimeTypeWrapper.read(Lcom/google/gson/stream/JsonReader;)Ljava/lang/Object;",
                    1,
                ):
                    if levels > 0 and b.rng.random() < 0.5:
                        with b.call(
                            GSON
                            + "CollectionTypeAdapterFactory$Adapter.read(Lcom/google/gson/stream/JsonReader;)Ljava/util/Collection;",
                            3,
                        ):
                            _json(b, levels - 1)
                    else:
                        b.leaf(
                            "com.google.gson.stream.JsonReader.nextString()Ljava/lang/String;",
                            b.u(1, 15),
                        )


def coroutine_task(b: CallBuilder) -> None:
    """A Dispatchers.Default task: map, sort (TimSort with a Kotlin comparator), flatten a tree."""
    with b.frames(
        [
            CO
            + "scheduling.CoroutineScheduler$Worker.executeTask(Lkotlinx/coroutines/scheduling/Task;)V",
            CO + "scheduling.CoroutineScheduler.runSafely(Lkotlinx/coroutines/scheduling/Task;)V",
            CO + "DispatchedTask.run()V",
            "kotlin.coroutines.jvm.internal.BaseContinuationImpl.resumeWith(Ljava/lang/Object;)V",
            "com.example.app.{f}.{F}Repository$load{F}$2.invokeSuspend(Ljava/lang/Object;)Ljava/lang/Object;",
        ],
        4,
    ):
        with b.call(
            "com.example.app.{f}.{F}Repository.access$mapItems(Lcom/example/app/{f}/{F}Repository;Ljava/util/List;)Ljava/util/List;",
            1,
        ):
            with b.call(
                "com.example.app.{f}.{F}Repository.mapItems(Ljava/util/List;)Ljava/util/List;",
                b.u(5, 40),
            ):
                b.leaf(
                    "kotlin.collections.CollectionsKt__IterablesKt.collectionSizeOrDefault(Ljava/lang/Iterable;I)I",
                    1,
                )
                for _ in range(b.rng.randint(1, 8)):
                    with b.call(
                        "com.example.app.{f}.{F}Item.<init>(JLjava/lang/String;Ljava/lang/String;J)V",
                        2,
                    ):
                        b.leaf("java.lang.Object.<init>()V", 0)
                    with b.call(
                        "com.example.app.util.DateFormatter.format(J)Ljava/lang/String;", 3
                    ):
                        b.leaf(
                            "java.text.SimpleDateFormat.format(Ljava/util/Date;)Ljava/lang/String;",
                            b.u(10, 80),
                        )
                with b.frames(
                    [
                        "kotlin.collections.CollectionsKt___CollectionsKt.sortedWith(Ljava/lang/Iterable;Ljava/util/Comparator;)Ljava/util/List;",
                        "kotlin.collections.ArraysKt___ArraysJvmKt.sortWith([Ljava/lang/Object;Ljava/util/Comparator;)V",
                        "java.util.Arrays.sort([Ljava/lang/Object;Ljava/util/Comparator;)V",
                        "java.util.TimSort.sort([Ljava/lang/Object;IILjava/util/Comparator;[Ljava/lang/Object;II)V",
                    ],
                    3,
                ):
                    for _ in range(b.rng.randint(2, 10)):
                        with b.call(
                            "java.util.TimSort.binarySort([Ljava/lang/Object;IIILjava/util/Comparator;)V",
                            2,
                        ):
                            with b.call(
                                "kotlin.comparisons.ComparisonsKt__ComparisonsKt$compareBy$2.compare(Ljava/lang/Object;Ljava/lang/Object;)I",
                                1,
                            ):
                                b.leaf(
                                    "kotlin.comparisons.ComparisonsKt__ComparisonsKt.compareValues(Ljava/lang/Comparable;Ljava/lang/Comparable;)I",
                                    1,
                                )
        _flatten(b, b.rng.randint(2, 12))


def _flatten(b: CallBuilder, levels: int) -> None:
    """Direct recursion: CommentTree.flatten calls itself once per nesting level."""
    with b.call("com.example.app.feed.CommentTree.flatten(Ljava/util/List;I)V", b.u(2, 12)):
        b.leaf("java.util.ArrayList.add(Ljava/lang/Object;)Z", 1)
        if levels > 0:
            _flatten(b, levels - 1)


def binder(b: CallBuilder) -> None:
    """An incoming Binder transaction (window resize or activity transaction)."""
    b.block(b.u(2000, 80000))
    with b.frames(
        ["android.os.Binder.execTransact(IJJI)Z", "android.os.Binder.execTransactInternal(IJJII)Z"],
        4,
    ):
        if b.rng.random() < 0.5:
            with b.frames(
                [
                    "android.view.IWindow$Stub.onTransact(ILandroid/os/Parcel;Landroid/os/Parcel;I)Z",
                    "android.view.ViewRootImpl$W.resized(Landroid/window/ClientWindowFrames;ZLandroid/util/MergedConfiguration;Landroid/view/InsetsState;ZZIII)V",
                ],
                3,
            ):
                b.leaf("android.os.Parcel.readInt()I", 1)
                b.chain(
                    [
                        "android.os.Handler.sendMessage(Landroid/os/Message;)Z",
                        "android.os.Handler.sendMessageDelayed(Landroid/os/Message;J)Z",
                        "android.os.Handler.sendMessageAtTime(Landroid/os/Message;J)Z",
                        "android.os.MessageQueue.enqueueMessage(Landroid/os/Message;J)Z",
                    ],
                    4,
                )
        else:
            with b.frames(
                [
                    "android.app.IApplicationThread$Stub.onTransact(ILandroid/os/Parcel;Landroid/os/Parcel;I)Z",
                    "android.app.ActivityThread$ApplicationThread.scheduleTransaction(Landroid/app/servertransaction/ClientTransaction;)V",
                ],
                5,
            ):
                b.leaf("android.os.Parcel.readString8()Ljava/lang/String;", b.u(2, 20))
                b.chain(
                    [
                        "android.app.ClientTransactionHandler.scheduleTransaction(Landroid/app/servertransaction/ClientTransaction;)V",
                        "android.app.ActivityThread.sendMessage(ILjava/lang/Object;)V",
                        "android.os.Handler.sendMessage(Landroid/os/Message;)Z",
                    ],
                    5,
                )
        b.leaf("android.os.Binder.restoreCallingIdentity(J)V", 1)


def default_executor(b: CallBuilder) -> None:
    """kotlinx.coroutines.DefaultExecutor: run a delayed continuation, then park."""
    with b.call(CO + "EventLoopImplBase.processNextEvent()J", 5):
        with b.frames(
            [
                CO + "DispatchedTask.run()V",
                "kotlin.coroutines.jvm.internal.BaseContinuationImpl.resumeWith(Ljava/lang/Object;)V",
                "com.example.app.{f}.{F}ViewModel$refresh$1.invokeSuspend(Ljava/lang/Object;)Ljava/lang/Object;",
            ],
            3,
        ):
            b.leaf(CO + "DelayKt.delay(JLkotlin/coroutines/Continuation;)Ljava/lang/Object;", 6)
    park(b)


def heap_task(b: CallBuilder) -> None:
    """HeapTaskDaemon: a concurrent GC in VMRuntime.runHeapTasks (CPU busy, long wall)."""
    gc = b.u(1000, 12000)
    b.wait("dalvik.system.VMRuntime.runHeapTasks()V", gc + b.u(5000, 200000), gc * 0.8)


def finalizer(b: CallBuilder) -> None:
    """FinalizerDaemon: wait on the reference queue, then run a finalizer."""
    with b.call("java.lang.ref.ReferenceQueue.remove(J)Ljava/lang/ref/Reference;", 3):
        b.wait("java.lang.Object.wait(J)V", b.u(6000, 400000))
    with b.call(
        "java.lang.Daemons$FinalizerDaemon.doFinalize(Ljava/lang/ref/FinalizerReference;)V", 3
    ):
        with b.call("dalvik.system.CloseGuard.warnIfOpen()V", 1):
            pass
        b.leaf("java.util.zip.Inflater.finalize()V", b.u(3, 30))


def render_callback(b: CallBuilder) -> None:
    """RenderThread: the frame-complete callback posting back to the main thread."""
    b.block(b.u(3000, 50000))
    with b.frames(
        [
            "android.graphics.HardwareRenderer$FrameCompleteCallback.onFrameComplete()V",
            "android.view.ViewRootImpl$$ExternalSyntheticLambda11.onFrameComplete()V",
            "android.view.ViewRootImpl.lambda$addFrameCompleteCallbackIfNeeded$3$android-view-ViewRootImpl(Ljava/util/ArrayList;)V",
        ],
        3,
    ):
        b.chain(
            [
                "android.os.Handler.post(Ljava/lang/Runnable;)Z",
                "android.os.Handler.sendMessageDelayed(Landroid/os/Message;J)Z",
                "android.os.MessageQueue.enqueueMessage(Landroid/os/Message;J)Z",
                "android.os.MessageQueue.nativeWake(J)V",
            ],
            3,
        )
