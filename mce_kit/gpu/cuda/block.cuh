// Block-level helpers (geil.cu, radix_sort.cu), apart from common.cuh's warp-level ones, which
// every kernel includes (the mce-gpu emulator's driver has no shared memory).
#pragma once
#include "common.cuh"

// Sum of v over threads 0..threadIdx.x of the block (blockDim.x a multiple of 32, at most 1024);
// *total gets the block's sum. Every thread of the block calls it; it ends synchronised.
template <typename T>
__device__ __forceinline__ T block_inclusive_sum(T v, T* total) {
    __shared__ T warp_total[32];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
    v = warp_inclusive_sum(v, lane);
    if (lane == 31) warp_total[warp] = v;
    __syncthreads();
    if (warp == 0) warp_total[lane] = warp_inclusive_sum(lane < warps ? warp_total[lane] : T(0), lane);
    __syncthreads();
    if (warp) v += warp_total[warp - 1];
    *total = warp_total[warps - 1];
    __syncthreads();   // every thread has read warp_total
    return v;
}
