// The ego pass of mce_kit.bounds on the GPU: one warp per root, every root at once.
//
// Root v's ego net is S, its later neighbours (degeneracy order) with core >= lower, as bitset rows
// (bit p of row k: S[k] ~ S[p]). It is peeled to the vertices with at least lower - 1 neighbours
// left (A), which is all a clique of lower + 1 with v as its earliest vertex can use. Then, when
// ``colour`` is set, A is coloured first-fit in reverse smallest-last order and 1 + colours bounds
// the cliques of v; where that bound passes lower (or without ``colour``), a clique is grown in A
// greedily, always the candidate with most candidate neighbours. Ties go to the lowest position in
// S, as the host's pass (bound_steps.ego_part) breaks them; its lower rises as it goes, this one's
// is fixed per launch, so the two may differ: both are valid bounds.
//
// optr, oidx: the later neighbours of every vertex, rows ascending by id; roots[t]: the t-th root.
// Out, per root t: bound[t] (no clique whose earliest vertex is roots[t] is larger) and size[t]
// (the greedy clique's size with the root, 0 where none was grown). ``record`` (or null): the
// clique of roots[0] (the root first), for the host to take the best root's again.
// Per warp, ``warp_words`` u32 words of scratch laid out as in gpu/bounds.py's scratch_words.
#include "common.cuh"

#define INT_BIG 0x7fffffff

struct Ego {
    int *S, *deg, *stack, *colour;
    u32 *A, *cand, *used, *rows;
};

__device__ __forceinline__ Ego ego_scratch(u32* base, int s_max) {
    const int w = (s_max + 31) >> 5;
    Ego e;
    e.S = (int*)base;
    e.deg = e.S + s_max;
    e.stack = e.deg + s_max;
    e.colour = e.stack + s_max;
    e.A = (u32*)(e.colour + s_max);
    e.cand = e.A + w;
    e.used = e.cand + w;
    e.rows = e.used + w + 1;
    return e;
}

__device__ __forceinline__ bool has(const u32* set, int k) { return (set[k >> 5] >> (k & 31)) & 1u; }

// A = the vertices of S with >= need neighbours among A, peeled in rounds; deg = their degrees in A.
// Returns how many are left.
__device__ int peel_to(const Ego& e, int s, int W, int need, int lane) {
    for (int x = lane; x < W; x += 32) e.A[x] = (x < W - 1 || (s & 31) == 0) ? ~0u : (1u << (s & 31)) - 1;
    __syncwarp();
    int left = s;
    for (;;) {
        for (int k = lane; k < s; k += 32) {
            if (!has(e.A, k)) continue;
            int d = 0;
            for (int x = 0; x < W; ++x) d += __popc(e.rows[k * W + x] & e.A[x]);
            e.deg[k] = d;
        }
        __syncwarp();
        int dropped = 0;
        for (int k = lane; k < s; k += 32)
            if (has(e.A, k) && e.deg[k] < need) {
                atomicAnd(&e.A[k >> 5], ~(1u << (k & 31)));
                ++dropped;
            }
        dropped = warp_sum(dropped);
        __syncwarp();
        left -= dropped;
        if (dropped == 0 || left == 0) return left;
    }
}

// Colours of a first-fit colouring of A in reverse smallest-last order (deg is consumed).
__device__ int colour_count(const Ego& e, int s, int W, int left, int lane) {
    for (int x = lane; x < W; x += 32) e.cand[x] = e.A[x];
    __syncwarp();
    for (int t = 0; t < left; ++t) {   // smallest-last: the candidate of least degree leaves first
        int d = INT_BIG, k_min = INT_BIG;
        for (int k = lane; k < s; k += 32)
            if (has(e.cand, k) && e.deg[k] < d) { d = e.deg[k]; k_min = k; }
        const int d_min = __reduce_min_sync(FULL_MASK, d);
        const int m = __reduce_min_sync(FULL_MASK, d == d_min ? k_min : INT_BIG);
        if (lane == 0) {
            e.stack[t] = m;
            e.cand[m >> 5] &= ~(1u << (m & 31));
        }
        __syncwarp();
        for (int x = lane; x < W; x += 32)
            for (u32 bits = e.rows[m * W + x] & e.cand[x]; bits; bits &= bits - 1)
                --e.deg[x * 32 + __ffs(bits) - 1];
        __syncwarp();
    }
    int colours = 0;   // cand is empty: it gathers the coloured vertices
    for (int t = left - 1; t >= 0; --t) {
        const int m = e.stack[t];
        for (int x = lane; x < W; x += 32)
            for (u32 bits = e.rows[m * W + x] & e.cand[x]; bits; bits &= bits - 1) {
                const int c = e.colour[x * 32 + __ffs(bits) - 1];
                atomicOr(&e.used[c >> 5], 1u << (c & 31));
            }
        __syncwarp();
        int c = INT_BIG;
        for (int x = lane; x <= (colours >> 5); x += 32) {
            const u32 free_bits = ~e.used[x];
            if (free_bits) c = min(c, x * 32 + __ffs(free_bits) - 1);
        }
        c = __reduce_min_sync(FULL_MASK, c);
        __syncwarp();
        for (int x = lane; x <= (colours >> 5); x += 32) e.used[x] = 0;
        if (lane == 0) {
            e.colour[m] = c;
            e.cand[m >> 5] |= 1u << (m & 31);
        }
        colours = max(colours, c + 1);
        __syncwarp();
    }
    return colours;
}

// Size of a clique grown in A (always the candidate with most candidate neighbours); its vertices
// go to record[1..] when record is set.
__device__ int greedy_size(const Ego& e, int s, int W, int lane, int* record) {
    for (int x = lane; x < W; x += 32) e.cand[x] = e.A[x];
    __syncwarp();
    int size = 0;
    for (;;) {
        int d_best = -1, k_best = INT_BIG;
        for (int k = lane; k < s; k += 32) {
            if (!has(e.cand, k)) continue;
            int d = 0;
            for (int x = 0; x < W; ++x) d += __popc(e.rows[k * W + x] & e.cand[x]);
            if (d > d_best) { d_best = d; k_best = k; }
        }
        const int d_max = __reduce_max_sync(FULL_MASK, d_best);
        if (d_max < 0) return size;
        const int m = __reduce_min_sync(FULL_MASK, d_best == d_max ? k_best : INT_BIG);
        if (record && lane == 0) record[1 + size] = e.S[m];
        ++size;
        __syncwarp();
        for (int x = lane; x < W; x += 32) e.cand[x] &= e.rows[m * W + x];
        __syncwarp();
    }
}

extern "C" __global__ void ego_bounds(const long long* optr, const int* oidx, const int* core, const int* roots,
                                      int n_roots, int lower, int colour, int s_max, u32* scratch,
                                      long long warp_words, int* bound, int* size, int* record, int* next) {
    const int lane = threadIdx.x & 31;
    const long long warp = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const Ego e = ego_scratch(scratch + warp * warp_words, s_max);
    for (;;) {
        int t = 0;
        if (lane == 0) t = atomicAdd(next, 1);
        t = __shfl_sync(FULL_MASK, t, 0);
        if (t >= n_roots) return;
        const int v = roots[t];
        const long long lo = optr[v], hi = optr[v + 1];
        int s = 0;
        for (long long j0 = lo; j0 < hi; j0 += 32) {   // S: the later neighbours with core >= lower
            const long long j = j0 + lane;
            const int u = j < hi ? oidx[j] : 0;
            const bool keep = j < hi && core[u] >= lower;
            const u32 b = __ballot_sync(FULL_MASK, keep);
            if (keep) e.S[s + __popc(b & lanemask_lt())] = u;
            s += __popc(b);
        }
        __syncwarp();
        int bd = min(core[v] + 1, s + 1), grown = 0;
        if (s >= lower) {   // else no room for a clique of lower + 1 with v
            const int W = (s + 31) >> 5;
            for (int i = lane; i < s * W; i += 32) e.rows[i] = 0;
            __syncwarp();
            for (int k = lane; k < s; k += 32) {   // S's edges, each from its earlier end's later row
                const int u = e.S[k];
                for (long long j = optr[u]; j < optr[u + 1]; ++j) {
                    const int p = lower_bound(e.S, s, oidx[j]);
                    if (p < s && e.S[p] == oidx[j]) {
                        atomicOr(&e.rows[k * W + (p >> 5)], 1u << (p & 31));
                        atomicOr(&e.rows[p * W + (k >> 5)], 1u << (k & 31));
                    }
                }
            }
            __syncwarp();
            const int left = peel_to(e, s, W, lower - 1, lane);
            if (left < lower) {
                bd = lower;   // a larger clique with v would lie in what is left
            } else {
                bool grow = true;
                if (colour) {
                    const int colours = colour_count(e, s, W, left, lane);
                    bd = max(colours + 1, lower);
                    grow = colours + 1 > lower;
                }
                if (grow) {
                    int* out = (record && t == 0) ? record : nullptr;
                    const int g = greedy_size(e, s, W, lane, out);
                    if (g + 1 > lower) grown = g + 1;
                    if (out && lane == 0) out[0] = v;
                }
            }
        }
        if (lane == 0) {
            bound[t] = bd;
            size[t] = grown;
        }
        __syncwarp();
    }
}
