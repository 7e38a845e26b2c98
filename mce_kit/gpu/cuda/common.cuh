// Warp-level helpers shared by the mce_kit kernels (NVRTC: no standard headers).
#pragma once

typedef unsigned int u32;
typedef unsigned long long u64;

#define FULL_MASK 0xffffffffu

// The GPU's global nanosecond clock (comparable across SMs, unlike clock64).
__device__ __forceinline__ u64 global_ns() {
    u64 t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

__device__ __forceinline__ int warp_sum(int v) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(FULL_MASK, v, o);
    return v;
}

// Sum of v over lanes 0..lane (an inclusive scan across the warp; lane 31 holds the total).
template <typename T>
__device__ __forceinline__ T warp_inclusive_sum(T v, int lane) {
    #pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
        const T y = __shfl_up_sync(FULL_MASK, v, o);
        if (lane >= o) v += y;
    }
    return v;
}

// First index in the sorted a[0..n) whose value is >= x.
__device__ __forceinline__ int lower_bound(const int* a, int n, int x) {
    int lo = 0, hi = n;
    while (lo < hi) {
        int mid = (lo + hi) >> 1;
        if (a[mid] < x) lo = mid + 1; else hi = mid;
    }
    return lo;
}

__device__ __forceinline__ bool sorted_contains(const int* a, int n, int x) {
    int i = lower_bound(a, n, x);
    return i < n && a[i] == x;
}

__device__ __forceinline__ u64 volatile_load(const u64* p) { return *(volatile const u64*)p; }
__device__ __forceinline__ int volatile_load(const int* p) { return *(volatile const int*)p; }

__device__ __forceinline__ u32 lanemask_lt() {
    u32 m;
    asm("mov.u32 %0, %%lanemask_lt;" : "=r"(m));
    return m;
}

// 128-bit unsigned counter (two u64 words) for counts that may pass 2^64.
struct U128 {
    u64 lo, hi;
};

__device__ __forceinline__ void add128(U128& a, u64 x) {
    a.lo += x;
    a.hi += (a.lo < x);
}

// Sum of the 32 lanes' U128 values, in every lane.
__device__ __forceinline__ U128 warp_sum128(U128 a) {
    for (int o = 16; o > 0; o >>= 1) {
        u64 lo = __shfl_xor_sync(FULL_MASK, a.lo, o);
        u64 hi = __shfl_xor_sync(FULL_MASK, a.hi, o);
        u64 s = a.lo + lo;
        a.hi += hi + (s < lo);
        a.lo = s;
    }
    return a;
}

// The launch's next task. ``next`` is the launch's own counter (ctrl[0]) or, when several GPUs
// share one task queue (mce_kit.distributed), a counter in one GPU's memory mapped into every
// process (CUDA IPC), taken with a system-scope atomic. ``gone`` is the launch's ctrl[0]: with a
// shared queue it stays 0 until a take comes back empty and is then raised to n, so the kernel's
// tests "are tasks left?" and "is the launch over?" keep reading local memory.
__device__ __forceinline__ int take_next(int* next, int* gone, int n) {
    if (next == gone) return atomicAdd(next, 1);
    const int t = atomicAdd_system(next, 1);
    if (t >= n) atomicMax(gone, n);
    return t;
}
