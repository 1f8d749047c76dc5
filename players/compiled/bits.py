"""Bit tricks as single instructions for compiled code: population count, lowest set bit, a clock;
and `kernel`, the decorator of the search kernels.

`popcount` and `lowest` are LLVM's ctpop and cttz; `now_ns` is the C library's
`clock_gettime(CLOCK_MONOTONIC)` (the clock `time.monotonic_ns` reads), called by name so that a
search can watch its deadline without leaving compiled code and still be cached (`cache=True`).
"""

from __future__ import annotations

from typing import Any

from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

CLOCK_MONOTONIC = 1  # Linux's clock id for time.monotonic


def kernel(*, inline: bool = False, from_python: bool = True) -> Any:
    """`@njit(cache=True)` without numba's reference counting (`_nrt=False`), for kernels that
    allocate nothing: with it, every read of an array out of a tuple (`t.prey_reach[p]`,
    `moves[0][m]`) is an atomic increment and decrement, which took three quarters of a playout's
    time. A kernel that does allocate fails to compile ("NRT required but not enabled"). `inline`:
    numba inlines it into its callers (and their flags); `from_python=False`: only compiled code
    calls it (no Python wrapper, which could not unbox a typed list without reference counting)."""
    return njit(cache=True, inline="always" if inline else "never", _nrt=False,  # type: ignore[call-overload]
                no_cpython_wrapper=not from_python)  # numba's stubs lack its private flags


@intrinsic
def _ctpop(typingctx, x):
    if not isinstance(x, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return x(x), codegen


@intrinsic
def _cttz(typingctx, x):
    if not isinstance(x, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 0))

    return x(x), codegen


@intrinsic
def _monotonic_ns(typingctx):
    def codegen(context, builder, signature, args):
        timespec = ir.LiteralStructType([ir.IntType(64), ir.IntType(64)])
        function = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(ir.IntType(32), [ir.IntType(32), timespec.as_pointer()]), "clock_gettime")
        at = cgutils.alloca_once(builder, timespec)
        builder.call(function, [ir.Constant(ir.IntType(32), CLOCK_MONOTONIC), at])
        zero = ir.Constant(ir.IntType(32), 0)
        seconds = builder.load(builder.gep(at, [zero, zero]))
        nanos = builder.load(builder.gep(at, [zero, ir.Constant(ir.IntType(32), 1)]))
        return builder.add(builder.mul(seconds, ir.Constant(ir.IntType(64), 1_000_000_000)), nanos)

    return types.int64(), codegen


@njit(inline="always")
def popcount(x):
    return _ctpop(x)  # type: ignore[call-arg]  # numba's stubs count @intrinsic's typing context as an argument


@njit(inline="always")
def lowest(x):
    """The index of the lowest set bit of x (x != 0)."""
    return _cttz(x)  # type: ignore[call-arg]  # numba's stubs count @intrinsic's typing context as an argument


@njit(inline="always")
def now_ns():
    """time.monotonic_ns(), from compiled code."""
    return _monotonic_ns()  # type: ignore[call-arg]  # numba's stubs count @intrinsic's typing context as an argument
