# ruff: noqa: E501, SIM117 (JVM signatures are data; nested `with` mirrors call nesting)
"""Call-tree templates of an app's main thread: Looper messages, Choreographer frames with
measure/layout/draw over a view hierarchy, RecyclerView binding, clicks and an exception.

Each function takes a `CallBuilder` and adds one well-nested call tree; `writer.threadkinds`
picks and weights them. Names follow a Kotlin app built on AndroidX.
"""

from __future__ import annotations

from traceview.synth.callbuilder import CallBuilder

A = "android."
VIEW_CLASSES = (
    "android.widget.FrameLayout",
    "android.widget.LinearLayout",
    "androidx.constraintlayout.widget.ConstraintLayout",
    "androidx.coordinatorlayout.widget.CoordinatorLayout",
    "com.android.internal.policy.DecorView",
)
RV = "androidx.recyclerview.widget.RecyclerView"
FEED = "com.example.app.{f}."  # {f}/{F}: the feature this template runs in


def vsync_request(b: CallBuilder) -> None:
    """A small message: Choreographer's handler asking for the next vsync."""
    _loop_once(b)
    with b.frames(
        [
            A + "view.Choreographer$FrameHandler.handleMessage(Landroid/os/Message;)V",
            A + "view.Choreographer.doScheduleVsync()V",
            A + "view.Choreographer.scheduleVsyncLocked()V",
            A + "view.DisplayEventReceiver.scheduleVsync()V",
        ],
        3,
    ):
        b.leaf(A + "view.DisplayEventReceiver.nativeScheduleVsync(J)V", b.u(5, 30))
    _loop_done(b)


def poll(b: CallBuilder) -> None:
    """MessageQueue.next blocking in nativePollOnce until the next vsync or message."""
    with b.call(A + "os.MessageQueue.next()Landroid/os/Message;", b.u(2, 15)):
        b.wait(A + "os.MessageQueue.nativePollOnce(JI)V", b.u(700, 13000))
        b.work(b.u(1, 4))
        b.leaf(A + "os.SystemClock.uptimeMillis()J", 1)


def _loop_once(b: CallBuilder) -> None:
    """Looper.loopOnce: wait for the next message (MessageQueue.next), start dispatching it."""
    b.enter(A + "os.Looper.loopOnce(Landroid/os/Looper;JI)Z")
    b.work(b.u(2, 8))
    poll(b)
    b.enter(A + "os.Handler.dispatchMessage(Landroid/os/Message;)V")


def _loop_done(b: CallBuilder) -> None:
    b.exit()
    b.leaf(A + "os.Message.recycleUnchecked()V", 2)
    b.exit()


def _measure(b: CallBuilder, levels: int) -> None:
    """View.measure -> onMeasure -> measureChildWithMargins -> View.measure … down `levels`."""
    if levels == 0:
        with b.call(A + "widget.TextView.onMeasure(II)V", b.u(5, 60)):
            b.leaf(
                A
                + "text.BoringLayout.isBoring(Ljava/lang/CharSequence;Landroid/text/TextPaint;)Landroid/text/BoringLayout$Metrics;",
                b.u(3, 30),
            )
            if b.rng.random() < 0.3:
                b.leaf(
                    A + "text.StaticLayout$Builder.build()Landroid/text/StaticLayout;", b.u(20, 300)
                )
        return
    cls = b.rng.choice(VIEW_CLASSES)
    with b.call(A + "view.View.measure(II)V", b.u(1, 6)):
        with b.call(cls + ".onMeasure(II)V", b.u(2, 20)):
            for _ in range(b.rng.choice((1, 1, 2))):
                with b.call(
                    A + "view.ViewGroup.measureChildWithMargins(Landroid/view/View;IIII)V", 2
                ):
                    b.leaf(A + "view.ViewGroup.getChildMeasureSpec(III)I", 1)
                    _measure(b, levels - 1)
            b.leaf(A + "view.View.setMeasuredDimension(II)V", 1)


def _measure_row(b: CallBuilder) -> None:
    """Measuring a freshly bound row: ConstraintLayout's solver, the classic jank source."""
    with b.call(
        "androidx.recyclerview.widget.RecyclerView$LayoutManager.measureChildWithMargins(Landroid/view/View;II)V",
        2,
    ):
        with b.call(A + "view.View.measure(II)V", 2):
            with b.call("androidx.constraintlayout.widget.ConstraintLayout.onMeasure(II)V", 5):
                with b.call(
                    "androidx.constraintlayout.core.widgets.analyzer.BasicMeasure.solverMeasure(Landroidx/constraintlayout/core/widgets/ConstraintWidgetContainer;IIIIIIIII)J",
                    b.u(20, 200),
                ):
                    for _ in range(b.rng.randint(2, 6)):
                        _measure(b, 0)
                    b.leaf(
                        "androidx.constraintlayout.core.LinearSystem.minimize()V", b.u(800, 4500)
                    )


def _draw(b: CallBuilder, levels: int) -> None:
    """View.updateDisplayListIfDirty recursing through dispatchGetDisplayList per level."""
    with b.call(
        A + "view.View.updateDisplayListIfDirty()Landroid/graphics/RenderNode;", b.u(2, 15)
    ):
        if levels == 0:
            with b.call(A + "view.View.draw(Landroid/graphics/Canvas;)V", b.u(3, 20)):
                with b.call(A + "widget.TextView.onDraw(Landroid/graphics/Canvas;)V", b.u(10, 120)):
                    b.leaf(
                        A
                        + "text.Layout.draw(Landroid/graphics/Canvas;Landroid/graphics/Path;Landroid/graphics/Paint;I)V",
                        b.u(10, 200),
                    )
            return
        with b.call(A + "view.ViewGroup.dispatchGetDisplayList()V", 2):
            for _ in range(b.rng.choice((1, 1, 2))):
                with b.call(A + "view.ViewGroup.recreateChildDisplayList(Landroid/view/View;)V", 1):
                    _draw(b, levels - 1)


def _bind(b: CallBuilder, inflate: bool) -> None:
    """RecyclerView getViewForPosition -> (inflate) -> onBindViewHolder -> ItemViewHolder.bind."""
    with b.call(RV + "$Recycler.getViewForPosition(I)Landroid/view/View;", 2):
        with b.call(
            RV
            + "$Recycler.tryGetViewHolderForPositionByDeadline(IZJ)Landroidx/recyclerview/widget/RecyclerView$ViewHolder;",
            b.u(2, 10),
        ):
            if inflate:
                with b.call(
                    RV
                    + "$Adapter.createViewHolder(Landroid/view/ViewGroup;I)Landroidx/recyclerview/widget/RecyclerView$ViewHolder;",
                    3,
                ):
                    with b.call(
                        FEED
                        + "{F}Adapter.onCreateViewHolder(Landroid/view/ViewGroup;I)Landroidx/recyclerview/widget/RecyclerView$ViewHolder;",
                        4,
                    ):
                        _inflate(b, b.rng.randint(2, 5))
                        b.leaf(FEED + "{F}ItemViewHolder.<init>(Landroid/view/View;)V", b.u(5, 40))
            with b.call(
                RV
                + "$Recycler.tryBindViewHolderByDeadline(Landroidx/recyclerview/widget/RecyclerView$ViewHolder;IIJ)Z",
                2,
            ):
                with b.call(
                    RV
                    + "$Adapter.bindViewHolder(Landroidx/recyclerview/widget/RecyclerView$ViewHolder;I)V",
                    3,
                ):
                    with b.call(
                        FEED
                        + "{F}Adapter.onBindViewHolder(Lcom/example/app/{f}/{F}ItemViewHolder;I)V",
                        b.u(3, 20),
                    ):
                        b.leaf(
                            FEED
                            + "{F}Adapter.access$getItems$p(Lcom/example/app/{f}/{F}Adapter;)Ljava/util/List;",
                            1,
                        )
                        with b.call(
                            FEED + "{F}ItemViewHolder.bind(Lcom/example/app/{f}/{F}Item;)V",
                            b.u(5, 50),
                        ):
                            for _ in range(b.rng.randint(1, 4)):
                                with b.call(
                                    A + "widget.TextView.setText(Ljava/lang/CharSequence;)V",
                                    b.u(3, 40),
                                ):
                                    b.leaf(A + "widget.TextView.checkForRelayout()V", b.u(2, 30))
                            with b.call(
                                "kotlin.collections.CollectionsKt___CollectionsKt.joinToString$default(Ljava/lang/Iterable;Ljava/lang/CharSequence;Ljava/lang/CharSequence;Ljava/lang/CharSequence;ILjava/lang/CharSequence;Lkotlin/jvm/functions/Function1;ILjava/lang/Object;)Ljava/lang/String;",
                                2,
                            ):
                                b.leaf(
                                    "java.lang.StringBuilder.append(Ljava/lang/String;)Ljava/lang/StringBuilder;",
                                    b.u(1, 8),
                                )
                            b.leaf("java.util.HashMap.get(Ljava/lang/Object;)Ljava/lang/Object;", 1)
                            with b.call(
                                "com.example.app.image.ImageLoader.load(Ljava/lang/String;Landroid/widget/ImageView;)V",
                                b.u(5, 60),
                            ):
                                b.leaf(
                                    "com.example.app.image.ImageLoader.access$100(Lcom/example/app/image/ImageLoader;)Landroidx/collection/LruCache;",
                                    1,
                                )
                                b.leaf(
                                    "androidx.collection.LruCache.get(Ljava/lang/Object;)Ljava/lang/Object;",
                                    b.u(1, 6),
                                )


def _inflate(b: CallBuilder, levels: int) -> None:
    """LayoutInflater.inflate -> rInflate -> rInflateChildren -> rInflate … (recursion)."""
    with b.call(
        A
        + "view.LayoutInflater.rInflate(Lorg/xmlpull/v1/XmlPullParser;Landroid/view/View;Landroid/content/Context;Landroid/util/AttributeSet;Z)V",
        b.u(5, 30),
    ):
        with b.call(
            A
            + "view.LayoutInflater.createViewFromTag(Landroid/view/View;Ljava/lang/String;Landroid/content/Context;Landroid/util/AttributeSet;)Landroid/view/View;",
            3,
        ):
            with b.call(
                A
                + "view.LayoutInflater.createView(Landroid/content/Context;Ljava/lang/String;Ljava/lang/String;Landroid/util/AttributeSet;)Landroid/view/View;",
                b.u(5, 40),
            ):
                b.leaf(
                    "java.lang.reflect.Constructor.newInstance([Ljava/lang/Object;)Ljava/lang/Object;",
                    b.u(20, 200),
                )
        if levels > 0:
            with b.call(
                A
                + "view.LayoutInflater.rInflateChildren(Lorg/xmlpull/v1/XmlPullParser;Landroid/view/View;Landroid/util/AttributeSet;Z)V",
                1,
            ):
                _inflate(b, levels - 1)


def frame(b: CallBuilder) -> None:
    """One Choreographer frame: input, animation, traversal (measure, layout, draw)."""
    heavy = b.rng.random() < 0.18  # some frames bind new rows and miss 16 ms
    levels = b.rng.randint(4, 9)
    _loop_once(b)
    with b.call(A + "os.Handler.handleCallback(Landroid/os/Message;)V", 1):
        with b.call(A + "view.Choreographer$FrameDisplayEventReceiver.run()V", 2):
            with b.call(A + "view.Choreographer.doFrame(JI)V", 3):
                with b.call(
                    A
                    + "view.Choreographer.doFrame(JILandroid/view/DisplayEventReceiver$VsyncEventData;)V",
                    b.u(5, 30),
                ):
                    for _ in range(2):
                        with b.call(A + "view.Choreographer.doCallbacks(IJ)V", b.u(2, 10)):
                            b.leaf(
                                A
                                + "view.Choreographer$CallbackQueue.extractDueCallbacksLocked(J)Landroid/view/Choreographer$CallbackRecord;",
                                2,
                            )
                    with b.call(A + "view.Choreographer.doCallbacks(IJ)V", 3):
                        with b.call(A + "view.Choreographer$CallbackRecord.run(J)V", 1):
                            with b.call(A + "view.ViewRootImpl$TraversalRunnable.run()V", 1):
                                with b.call(A + "view.ViewRootImpl.doTraversal()V", 2):
                                    _traversal(b, levels, heavy)
    _loop_done(b)


def _traversal(b: CallBuilder, levels: int, heavy: bool) -> None:
    with b.call(A + "view.ViewRootImpl.performTraversals()V", b.u(20, 150)):
        with b.call(A + "view.ViewRootImpl.performMeasure(II)V", 2):
            _measure(b, levels)
        with b.call(
            A + "view.ViewRootImpl.performLayout(Landroid/view/WindowManager$LayoutParams;II)V", 3
        ):
            with b.call(A + "view.View.layout(IIII)V", 2):
                with b.call(RV + ".onLayout(ZIIII)V", 2):
                    with b.call(RV + ".dispatchLayout()V", 2):
                        with b.call(RV + ".dispatchLayoutStep2()V", 3):
                            with b.call(
                                "androidx.recyclerview.widget.LinearLayoutManager.onLayoutChildren(Landroidx/recyclerview/widget/RecyclerView$Recycler;Landroidx/recyclerview/widget/RecyclerView$State;)V",
                                b.u(5, 30),
                            ):
                                with b.call(
                                    "androidx.recyclerview.widget.LinearLayoutManager.fill(Landroidx/recyclerview/widget/RecyclerView$Recycler;Landroidx/recyclerview/widget/LinearLayoutManager$LayoutState;Landroidx/recyclerview/widget/RecyclerView$State;Z)I",
                                    4,
                                ):
                                    for _ in range(
                                        b.rng.randint(2, 7) if heavy else b.rng.randint(0, 2)
                                    ):
                                        with b.call(
                                            "androidx.recyclerview.widget.LinearLayoutManager.layoutChunk(Landroidx/recyclerview/widget/RecyclerView$Recycler;Landroidx/recyclerview/widget/RecyclerView$State;Landroidx/recyclerview/widget/LinearLayoutManager$LayoutState;Landroidx/recyclerview/widget/LinearLayoutManager$LayoutChunkResult;)V",
                                            b.u(3, 20),
                                        ):
                                            with b.call(
                                                "androidx.recyclerview.widget.LinearLayoutManager$LayoutState.next(Landroidx/recyclerview/widget/RecyclerView$Recycler;)Landroid/view/View;",
                                                1,
                                            ):
                                                _bind(b, inflate=heavy and b.rng.random() < 0.5)
                                            if heavy:
                                                _measure_row(b)
        with b.call(A + "view.ViewRootImpl.performDraw()Z", 3):
            with b.call(A + "view.ViewRootImpl.draw(Z)Z", 3):
                with b.call(
                    A
                    + "view.ThreadedRenderer.draw(Landroid/view/View;Landroid/view/View$AttachInfo;Landroid/view/ThreadedRenderer$DrawCallbacks;)V",
                    5,
                ):
                    with b.call(
                        A
                        + "view.ThreadedRenderer.updateRootDisplayList(Landroid/view/View;Landroid/view/ThreadedRenderer$DrawCallbacks;)V",
                        4,
                    ):
                        _draw(b, levels)
                    b.leaf(
                        A
                        + "graphics.HardwareRenderer.syncAndDrawFrame(Landroid/graphics/FrameInfo;)I",
                        b.u(30, 400),
                        b.u(100, 3000),
                    )


def click(b: CallBuilder) -> None:
    """A tap: performClick -> a Kotlin lambda -> ViewModel -> launch a coroutine."""
    _loop_once(b)
    with b.call(A + "os.Handler.handleCallback(Landroid/os/Message;)V", 1):
        with b.call(A + "view.View$PerformClick.run()V", 1):
            with b.call(A + "view.View.performClickInternal()Z", 1):
                with b.call(A + "view.View.performClick()Z", 3):
                    with b.call(
                        FEED
                        + "{F}Fragment$$ExternalSyntheticLambda{k}.onClick(Landroid/view/View;)V",
                        1,
                    ):
                        with b.call(
                            FEED
                            + "{F}Fragment.onViewCreated$lambda${k}(Lcom/example/app/{f}/{F}Fragment;Landroid/view/View;)V",
                            2,
                        ):
                            with b.call(FEED + "{F}ViewModel.refresh()V", b.u(3, 20)):
                                with b.call(
                                    "kotlinx.coroutines.BuildersKt.launch$default(Lkotlinx/coroutines/CoroutineScope;Lkotlin/coroutines/CoroutineContext;Lkotlinx/coroutines/CoroutineStart;Lkotlin/jvm/functions/Function2;ILjava/lang/Object;)Lkotlinx/coroutines/Job;",
                                    2,
                                ):
                                    b.chain(
                                        [
                                            "kotlinx.coroutines.BuildersKt__Builders_commonKt.launch(Lkotlinx/coroutines/CoroutineScope;Lkotlin/coroutines/CoroutineContext;Lkotlinx/coroutines/CoroutineStart;Lkotlin/jvm/functions/Function2;)Lkotlinx/coroutines/Job;",
                                            "kotlinx.coroutines.AbstractCoroutine.start(Lkotlinx/coroutines/CoroutineStart;Ljava/lang/Object;Lkotlin/jvm/functions/Function2;)V",
                                            "kotlinx.coroutines.intrinsics.CancellableKt.startCoroutineCancellable(Lkotlin/jvm/functions/Function2;Ljava/lang/Object;Lkotlin/coroutines/Continuation;)V",
                                            "kotlinx.coroutines.internal.DispatchedContinuationKt.resumeCancellableWith(Lkotlin/coroutines/Continuation;Ljava/lang/Object;)V",
                                            "kotlinx.coroutines.scheduling.CoroutineScheduler.dispatch(Ljava/lang/Runnable;Lkotlinx/coroutines/scheduling/TaskContext;Z)V",
                                            "java.util.concurrent.locks.LockSupport.unpark(Ljava/lang/Thread;)V",
                                        ],
                                        8,
                                    )
    _loop_done(b)


def live_data(b: CallBuilder) -> None:
    """A posted LiveData value reaching the Fragment's observer and the list differ."""
    _loop_once(b)
    with b.call(A + "os.Handler.handleCallback(Landroid/os/Message;)V", 1):
        with b.call("androidx.lifecycle.LiveData$1.run()V", 2):
            with b.call("androidx.lifecycle.LiveData.setValue(Ljava/lang/Object;)V", 2):
                with b.call(
                    "androidx.lifecycle.LiveData.dispatchingValue(Landroidx/lifecycle/LiveData$ObserverWrapper;)V",
                    3,
                ):
                    with b.call(
                        "androidx.lifecycle.LiveData.considerNotify(Landroidx/lifecycle/LiveData$ObserverWrapper;)V",
                        2,
                    ):
                        with b.call(
                            FEED
                            + "{F}Fragment$onViewCreated$2.invoke(Ljava/lang/Object;)Ljava/lang/Object;",
                            1,
                        ):
                            with b.call(
                                FEED + "{F}Fragment$onViewCreated$2.invoke(Ljava/util/List;)V", 2
                            ):
                                with b.call(
                                    "androidx.recyclerview.widget.ListAdapter.submitList(Ljava/util/List;)V",
                                    2,
                                ):
                                    with b.call(
                                        "androidx.recyclerview.widget.AsyncListDiffer.submitList(Ljava/util/List;Ljava/lang/Runnable;)V",
                                        b.u(5, 40),
                                    ):
                                        for _ in range(b.rng.randint(1, 6)):
                                            b.leaf(FEED + "{F}Item.hashCode()I", b.u(1, 5))
                                        b.leaf(
                                            "java.util.concurrent.ThreadPoolExecutor.execute(Ljava/lang/Runnable;)V",
                                            b.u(5, 30),
                                        )
    _loop_done(b)


def parse_failure(b: CallBuilder) -> None:
    """Integer.parseInt throws NumberFormatException; the frames unroll up to readInt's catch."""
    _loop_once(b)
    with b.call(A + "app.ActivityThread$H.handleMessage(Landroid/os/Message;)V", 3):
        with b.call(
            "com.example.app.settings.PrefsStore.readInt(Ljava/lang/String;I)I", b.u(3, 15)
        ):
            with b.call(
                A
                + "app.SharedPreferencesImpl.getString(Ljava/lang/String;Ljava/lang/String;)Ljava/lang/String;",
                3,
            ):
                with b.call(A + "app.SharedPreferencesImpl.awaitLoadedLocked()V", 1):
                    if b.rng.random() < 0.3:  # disk read on the main thread
                        b.wait("java.lang.Object.wait()V", b.u(500, 11000))
                b.leaf("java.util.HashMap.get(Ljava/lang/Object;)Ljava/lang/Object;", 1)
            b.enter("java.lang.Integer.parseInt(Ljava/lang/String;)I")
            b.enter("java.lang.Integer.parseInt(Ljava/lang/String;I)I")
            b.work(2)
            with b.call(
                "java.lang.NumberFormatException.forInputString(Ljava/lang/String;I)Ljava/lang/NumberFormatException;",
                3,
            ):
                b.chain(
                    [
                        "java.lang.NumberFormatException.<init>(Ljava/lang/String;)V",
                        "java.lang.IllegalArgumentException.<init>(Ljava/lang/String;)V",
                        "java.lang.RuntimeException.<init>(Ljava/lang/String;)V",
                        "java.lang.Exception.<init>(Ljava/lang/String;)V",
                        "java.lang.Throwable.<init>(Ljava/lang/String;)V",
                        "java.lang.Throwable.fillInStackTrace()Ljava/lang/Throwable;",
                        "java.lang.Throwable.nativeFillInStackTrace()Ljava/lang/Object;",
                    ],
                    b.u(10, 60),
                )
            b.work(b.u(5, 30))
            b.unroll(2)
            b.work(b.u(3, 10))
    _loop_done(b)


def start_tail(b: CallBuilder) -> None:
    """The rest of MainActivity.onCreate after tracing started, then the launch returning."""
    b.exit()  # VMDebug.startMethodTracing
    b.exit()  # Debug.startMethodTracing
    b.work(3)
    with b.call("androidx.appcompat.app.AppCompatActivity.setContentView(I)V", 4):
        with b.call(
            A + "view.LayoutInflater.inflate(ILandroid/view/ViewGroup;Z)Landroid/view/View;", 5
        ):
            _inflate(b, 6)
    with b.call(
        "androidx.lifecycle.ViewModelProvider.get(Ljava/lang/Class;)Landroidx/lifecycle/ViewModel;",
        5,
    ):
        b.leaf(FEED + "{F}ViewModel.<init>(Lcom/example/app/{f}/{F}Repository;)V", 20)
        b.leaf(FEED + "{F}ViewModel.<clinit>()V", 8)
