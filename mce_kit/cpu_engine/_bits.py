"""Bitset primitives for the Numba kernels: 64-bit words, popcount and lowest-bit intrinsics."""

from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

ONE = np.uint64(1)
ZERO = np.uint64(0)


@intrinsic
def popcount(typingctx, x):
    """Set bits of a uint64 (LLVM ctpop: one instruction on x86-64 with POPCNT)."""
    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])
    return types.uint64(types.uint64), codegen


@intrinsic
def lowest(typingctx, x):
    """Index of the lowest set bit of a non-zero uint64 (LLVM cttz)."""
    def codegen(context, builder, signature, args):
        return builder.cttz(args[0], cgutils.true_bit)
    return types.uint64(types.uint64), codegen


@njit
def bit(j):
    return ONE << np.uint64(j & 63)


@njit
def has(row, j) -> bool:
    return (row[j >> 6] >> np.uint64(j & 63)) & ONE != ZERO


@njit
def count_and(a, b) -> int:
    """|a & b| for two word rows of the same length."""
    c = ZERO
    for i in range(len(a)):
        c += popcount(a[i] & b[i])
    return int(c)


@njit
def count(a) -> int:
    c = ZERO
    for i in range(len(a)):
        c += popcount(a[i])
    return int(c)


@njit
def empty(a) -> bool:
    for i in range(len(a)):
        if a[i] != ZERO:
            return False
    return True


@njit
def first_above(indices, a, b, v):
    """The first position in the sorted run indices[a:b] holding a value above v (binary search;
    np.searchsorted's generic comparisons cost seconds of compile time)."""
    while a < b:
        mid = (a + b) >> 1
        if indices[mid] <= v:
            a = mid + 1
        else:
            b = mid
    return a
