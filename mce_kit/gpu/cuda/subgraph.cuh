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
            int start = na > 64 ? lower_bound(adj, na, xlo) : 0;  // short lists: no dependent loads
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

// Per-warp shared scratch of build_rows.
struct RowScratch {
    int base[32];
    int off[32];
    u32 bits[32];
};

// The bitmap rows of every vertex of C[0..s) (s >= 1), W words each: bit j of row i is set iff
// C[j] is in the sorted CSR list of C[i] (indptr / indices) and, when oriented, j > i (oriented
// lists hold later neighbours only, so every match is above i). Returns the bits set (every lane).
//
// by_row == false (flat): 32 rows at a time. Lane r loads row i0 + r's list bounds and trims the
// list to [C[0], C[s-1]] (binary search, lanes in parallel); a warp scan lays the 32 lists end to
// end and the warp walks that concatenation one element per lane, so no row waits on another:
// the element's row by a 5-step search of the offsets, its bit by a binary search of C, set in a
// shared word per row when W == 1, else by atomicOr on the rows in memory (zeroed first).
// by_row == true: one row after the other (build_row), the 32 rows' list bounds loaded at once.
// Several warps may share the work: this one builds the row chunks part, part + parts, ... and
// counts the bits of those only.
__device__ __forceinline__ int build_rows(const int* indptr, const int* indices, const int* C, int s, int W,
                                          u32* rows, bool oriented, bool by_row, RowScratch& sh, int lane,
                                          int part = 0, int parts = 1) {
    const int cmin = C[0], cmax = C[s - 1];
    int cnt = 0;
    #pragma unroll 1
    for (int i0 = 32 * part; i0 < s; i0 += 32 * parts) {
        const int n = min(32, s - i0);
        int b = 0, e = 0;
        if (lane < n) {
            const int x = C[i0 + lane];
            b = indptr[x];
            e = indptr[x + 1];
        }
        if (by_row) {
            #pragma unroll 1
            for (int r = 0; r < n; r++) {
                const int rb = __shfl_sync(FULL_MASK, b, r), re = __shfl_sync(FULL_MASK, e, r);
                const int i = i0 + r;
                const int c = build_row(indices + rb, re - rb, C, s, oriented ? i + 1 : 0, oriented ? (i >> 5) : 0,
                                        rows + (long long)i * W, W, (u32*)sh.bits, lane);
                if (lane == 0) cnt += c;  // c is the warp's total already
            }
            continue;
        }
        if (e - b > 32) {  // trim long lists to the values C can hold
            if (!oriented) b += lower_bound(indices + b, e - b, cmin);
            e = b + lower_bound(indices + b, e - b, cmax + 1);
        }
        const int len = e - b;
        const int incl = warp_inclusive_sum(len, lane);
        const int T = __shfl_sync(FULL_MASK, incl, 31);
        sh.off[lane] = incl - len;
        sh.base[lane] = b - (incl - len);
        sh.bits[lane] = 0;
        if (W > 1) {
            u32* r0 = rows + (long long)i0 * W;
            #pragma unroll 1
            for (int w = lane; w < n * W; w += 32) r0[w] = 0;
        }
        __syncwarp();
        #pragma unroll 1
        for (int t = lane; t < T; t += 32) {
            int r = 0;
            #pragma unroll
            for (int step = 16; step > 0; step >>= 1)
                if (sh.off[r + step] <= t) r += step;
            const int y = indices[sh.base[r] + t];
            const int lo = oriented ? i0 + r + 1 : 0;
            const int j = lo + lower_bound(C + lo, s - lo, y);
            if (j < s && C[j] == y) {
                cnt++;
                if (W == 1) atomicOr(sh.bits + r, 1u << j);
                else atomicOr(rows + (long long)(i0 + r) * W + (j >> 5), 1u << (j & 31));
            }
        }
        __syncwarp();
        if (W == 1 && lane < n) rows[i0 + lane] = sh.bits[lane];
        __syncwarp();
    }
    return __reduce_add_sync(FULL_MASK, cnt);
}
