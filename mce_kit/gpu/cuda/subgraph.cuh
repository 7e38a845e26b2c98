// Sub-graph helpers shared by the k-clique kernels (kclique.cu, cliquecount.cu):
// the common neighbours of an edge as a sorted list, and bitmap rows over it.
#pragma once

#include "common.cuh"

// C = a ∩ b (both sorted ascending), written compactly in ascending order; returns |C| in every lane.
__device__ __forceinline__ int intersect_sorted(const int* a, int na, const int* b, int nb, int* C, int lane) {
    if (na > nb) {
        const int* t = a; a = b; b = t;
        int n = na; na = nb; nb = n;
    }
    int s = 0;
    #pragma unroll 1
    for (int t0 = 0; t0 < na; t0 += 32) {
        int t = t0 + lane;
        int x = t < na ? a[t] : 0;
        bool in = t < na && sorted_contains(b, nb, x);
        u32 m = __ballot_sync(FULL_MASK, in);
        if (in) C[s + __popc(m & lanemask_lt())] = x;
        s += __popc(m);
    }
    __syncwarp();
    return s;
}

// One bitmap row over C[0..s): bit j (jlo <= j < s) is set iff C[j] is in the sorted list adj.
// Words wfirst..W-1 of row are written (wfirst <= jlo / 32; bits below jlo are zero).
// The warp walks adj (coalesced), binary-searches C and ORs bits into a 32-word shared
// scratch, one 1024-bit segment at a time. Returns the number of bits set (every lane).
__device__ __forceinline__ int build_row(const int* adj, int na, const int* C, int s, int jlo, int wfirst,
                                         u32* row, int W, u32* scratch, int lane) {
    int cnt = 0;
    #pragma unroll 1
    for (int seg = wfirst >> 5; seg * 32 < W; seg++) {
        scratch[lane] = 0;
        __syncwarp();
        int lo = max(jlo, seg * 1024), hi = min(s, seg * 1024 + 1024);
        if (lo < hi) {
            int xlo = C[lo], xhi = C[hi - 1];
            int start = lower_bound(adj, na, xlo);
            #pragma unroll 1
            for (int t = start + lane; t < na; t += 32) {
                int x = adj[t];
                if (x > xhi) break;
                int j = lo + lower_bound(C + lo, hi - lo, x);
                if (j < hi && C[j] == x) atomicOr(scratch + ((j >> 5) & 31), 1u << (j & 31));
            }
        }
        __syncwarp();
        int w = seg * 32 + lane;
        if (w >= wfirst && w < W) {
            u32 v = scratch[lane];
            row[w] = v;
            cnt += __popc(v);
        }
        __syncwarp();
    }
    return __reduce_add_sync(FULL_MASK, cnt);
}
