// Warp-level helpers shared by the mce_kit kernels (NVRTC: no standard headers).
#pragma once

typedef unsigned int u32;
typedef unsigned long long u64;

#define FULL_MASK 0xffffffffu

__device__ __forceinline__ int warp_sum(int v) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(FULL_MASK, v, o);
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
