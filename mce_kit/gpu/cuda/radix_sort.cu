// Stable LSD radix sort of 64-bit keys, 8 bits a pass (gpu/sort.py runs the passes). The
// preparation sorts with it instead of CuPy's sort, whose first call in a process loads Thrust's
// module (30-75 ms on an H200).
//
// A pass over n keys in tiles of SORT_TILE: radix_histogram counts each tile's digits (digit-major:
// counts[digit * tiles + tile]); radix_scan_rows turns each digit's counts into exclusive offsets
// within the digit (a block per digit) and sums them; radix_scatter starts each digit after the
// smaller digits' sums and writes each tile's keys at their offsets, in input order within a digit, 256 keys
// at a time: a key's place = the digit's running offset + same-digit keys of earlier warps of the
// group + same-digit keys of earlier lanes of its warp (__match_any_sync). Offsets are 32-bit:
// n < 2^32 (the launcher checks).

#include "block.cuh"

#define SORT_THREADS 256                 // one thread per digit where the digits are walked
#define SORT_ITEMS 16
#define SORT_TILE (SORT_THREADS * SORT_ITEMS)
#define SORT_WARPS (SORT_THREADS / 32)

extern "C" __global__ void __launch_bounds__(SORT_THREADS)
radix_histogram(const unsigned long long* keys, long long n, int shift, unsigned* counts, int tiles) {
    __shared__ unsigned hist[SORT_THREADS];
    hist[threadIdx.x] = 0;
    __syncthreads();
    const long long base = (long long)blockIdx.x * SORT_TILE;
    for (int i = threadIdx.x; i < SORT_TILE; i += SORT_THREADS) {
        if (base + i < n) atomicAdd(&hist[(keys[base + i] >> shift) & 255], 1u);
    }
    __syncthreads();
    counts[(long long)threadIdx.x * tiles + blockIdx.x] = hist[threadIdx.x];
}

// Exclusive prefix sums of a[0..m) in place by the whole block, blockDim.x entries a round
// (blockDim.x a multiple of 32, at most 1024); *total (if given) gets their sum. Ends synchronised.
__device__ void block_exclusive_scan(unsigned* a, long long m, unsigned* total) {
    unsigned carry = 0, sum;
    for (long long base = 0; base < m; base += blockDim.x) {
        const long long i = base + threadIdx.x;
        const unsigned v = i < m ? a[i] : 0u;
        const unsigned incl = block_inclusive_sum(v, &sum);
        if (i < m) a[i] = carry + incl - v;
        carry += sum;
    }
    if (total != nullptr && threadIdx.x == 0) *total = carry;
    __syncthreads();
}

// Block d scans digit d's row of counts (its tiles' counts, exclusive) and writes the row's sum.
extern "C" __global__ void __launch_bounds__(1024)
radix_scan_rows(unsigned* counts, int tiles, unsigned* totals) {
    block_exclusive_scan(counts + (long long)blockIdx.x * tiles, tiles, totals + blockIdx.x);
}

// One pass's scatter. With index_out: the keys' positions travel with them (index_in, or the
// input position itself on the first pass when index_in is null).
extern "C" __global__ void __launch_bounds__(SORT_THREADS)
radix_scatter(const unsigned long long* keys_in, unsigned long long* keys_out, const int* index_in,
              int* index_out, long long n, int shift, const unsigned* offsets, const unsigned* totals,
              int tiles) {
    __shared__ unsigned running[SORT_THREADS];
    __shared__ unsigned warp_count[SORT_WARPS][SORT_THREADS];
    const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
    running[t] = totals[t];
    __syncthreads();
    block_exclusive_scan(running, SORT_THREADS, nullptr);   // where each digit starts
    running[t] += offsets[(long long)t * tiles + blockIdx.x];
    const long long base = (long long)blockIdx.x * SORT_TILE;
    for (int group = 0; group < SORT_ITEMS; ++group) {
        const long long j = base + (long long)group * SORT_THREADS + t;
        const bool here = j < n;
        const unsigned long long key = here ? keys_in[j] : 0ull;
        const unsigned digit = here ? (unsigned)((key >> shift) & 255) : 256u;   // 256: no key
        for (int w = 0; w < SORT_WARPS; ++w) warp_count[w][t] = 0;
        __syncthreads();
        const unsigned peers = __match_any_sync(FULL_MASK, digit);
        const unsigned lane_rank = __popc(peers & ((1u << lane) - 1u));
        if (here && lane_rank == 0) warp_count[warp][digit] = __popc(peers);
        __syncthreads();
        if (here) {
            unsigned at = running[digit] + lane_rank;
            for (int w = 0; w < warp; ++w) at += warp_count[w][digit];
            keys_out[at] = key;
            if (index_out) index_out[at] = index_in ? index_in[j] : (int)j;
        }
        __syncthreads();   // every thread has read running
        unsigned group_total = 0;
        for (int w = 0; w < SORT_WARPS; ++w) group_total += warp_count[w][t];
        running[t] += group_total;
        __syncthreads();
    }
}
