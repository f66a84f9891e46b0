"""Tell the parent when Triton starts and ends compiling a kernel, and which one.

Triton compiles a kernel the first time solve() launches it with new constexpr values, inside the
timed-out call. A kernel whose block is sized from the input (BLOCK = next_power_of_2(n)) can keep
ptxas busy for minutes at a large size. The parent bounds each compile by the problem's
compile_seconds from its own clock (judge/harness/parent/conversation.py): these frames only say
what is compiling, so a submission that forges or withholds them can only mislabel or lose its
own compile limit (the mode's limit still applies).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from judge.harness.common.frames import Compiled, Compiling, Frame

MAX_WHAT = 300

Send = Callable[[Frame], None]


def describe(fn: Any, constants: dict[Any, Any], num_warps: Any = None, num_stages: Any = None) -> str:
    """'softmax_kernel[BLOCK=1048576, num_warps=4, num_stages=3]': the kernel and its constexprs."""
    jit = getattr(fn, "jit_function", None)
    names = list(getattr(jit, "arg_names", []) or [])
    parts = []
    for path, value in sorted(constants.items(), key=lambda item: str(item[0])):
        index = path[0] if isinstance(path, tuple) and path else path
        name = names[index] if isinstance(index, int) and 0 <= index < len(names) else str(path)
        parts.append(f"{name}={value!r}")
    parts += [f"{k}={v}" for k, v in (("num_warps", num_warps), ("num_stages", num_stages)) if v is not None]
    text = f"{getattr(fn, 'name', '?')}[{', '.join(parts)}]"
    return text if len(text) <= MAX_WHAT else text[: MAX_WHAT - 3] + "..."


def hooks(send: Send) -> tuple[Callable[..., Any], Callable[..., Any]]:
    """The pre- and post-compile hooks for triton.knobs.runtime (jit_cache_hook, jit_post_compile_hook)."""
    lock = threading.Lock()

    def before(*, fn: Any, compile: dict[str, Any], **_: Any) -> bool:
        what = describe(fn, compile.get("constants") or {}, compile.get("num_warps"), compile.get("num_stages"))
        with lock:
            send(Compiling(what=what))
        return False  # falsy: Triton goes on to compile

    def after(**_: Any) -> None:
        with lock:
            send(Compiled())

    return before, after


def install(send: Send) -> None:
    """Put the hooks into Triton's runtime knobs (Triton 3.x), keeping any already there."""
    from triton import knobs

    before, after = hooks(send)
    previous_before, previous_after = knobs.runtime.jit_cache_hook, knobs.runtime.jit_post_compile_hook

    def chained_before(**kwargs: Any) -> Any:
        before(**kwargs)
        return previous_before(**kwargs) if previous_before else False

    def chained_after(**kwargs: Any) -> Any:
        after(**kwargs)
        return previous_after(**kwargs) if previous_after else None

    knobs.runtime.jit_cache_hook = chained_before
    knobs.runtime.jit_post_compile_hook = chained_after
