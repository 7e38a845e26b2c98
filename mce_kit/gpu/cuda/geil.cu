// Maximum cliques after Geil et al.: greedy bound, breadth-first levels, and a
// depth-first branch-and-bound for the work a level cannot hold (launcher: geil.py).
//
// Vertices are relabelled by (degree, id): an edge points from the lower id to the
// higher one, and every sorted neighbour list splits at ``outptr[v]`` into earlier and
// later neighbours. ``adj`` is an optional n x nw bit matrix of the whole graph
// (nw == 0: adjacency is a binary search in the later neighbours).
#include "block.cuh"

__device__ __forceinline__ bool adjacent(const u32* adj, int nw, const int* indptr, const int* indices,
                                         const int* outptr, int u, int v) {
    // u < v in the (degree, id) order when called from the level kernels; any order otherwise
    if (nw > 0) return (adj[(long long)u * nw + (v >> 5)] >> (v & 31)) & 1u;
    if (u > v) { int t = u; u = v; v = t; }
    return sorted_contains(indices + outptr[u], indptr[u + 1] - outptr[u], v);
}

extern "C" __global__ void stamp_clock(u64* out) { out[0] = global_ns(); }

// Bit matrix of the graph: one thread per vertex sets its row.
extern "C" __global__ void build_adj(const int* indptr, const int* indices, int n, int nw, u32* adj) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= n) return;
    u32* row = adj + (long long)v * nw;
    for (int e = indptr[v]; e < indptr[v + 1]; ++e) {
        int u = indices[e];
        atomicOr(row + (u >> 5), 1u << (u & 31));
    }
}

// ---- greedy lower bound: one warp per seed ----

struct HParams {           // fields must match HPARAMS in geil.py (a CPU test checks)
    const int* indptr;
    const int* indices;
    const int* score;      // degree or core number per vertex
    const int* seeds;
    int* scratch;          // 2 * cap ints per warp
    int* sizes;            // clique size grown from each seed
    int* record;           // when not null: the clique of seed 0 (cap + 1 ints)
    long long cap;         // max degree + 1
    int n_seeds;
    int n_workers;
};

__constant__ HParams H;

extern "C" __global__ void greedy_kernel() {
    const int lane = threadIdx.x & 31;
    const int warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    if (warp >= H.n_workers) return;
    int* A = H.scratch + (long long)warp * 2 * H.cap;
    int* B = A + H.cap;
    for (int t = warp; t < H.n_seeds; t += H.n_workers) {
        int s = H.seeds[t];
        int lo = H.indptr[s], c = H.indptr[s + 1] - lo;
        for (int i = lane; i < c; i += 32) A[i] = H.indices[lo + i];
        if (H.record && lane == 0) H.record[0] = s;
        int size = 1;
        __syncwarp();
        while (c > 0) {
            // the candidate of highest score (lowest id on ties)
            u64 key = 0;
            for (int i = lane; i < c; i += 32) {
                int u = A[i];
                u64 k = ((u64)(unsigned)H.score[u] << 32) | (u32)(0x7fffffff - u);
                key = k > key ? k : key;
            }
            for (int o = 16; o > 0; o >>= 1) {
                u64 other = __shfl_xor_sync(FULL_MASK, key, o);
                key = other > key ? other : key;
            }
            int v = 0x7fffffff - (int)(u32)(key & 0xffffffffu);
            if (H.record && lane == 0) H.record[size] = v;
            ++size;
            const int* nv = H.indices + H.indptr[v];
            int dv = H.indptr[v + 1] - H.indptr[v];
            int kept = 0;
            #pragma unroll 1
            for (int base = 0; base < c; base += 32) {
                int i = base + lane;
                bool keep = i < c && A[i] != v && sorted_contains(nv, dv, A[i]);
                u32 m = __ballot_sync(FULL_MASK, keep);
                if (keep) B[kept + __popc(m & ((1u << lane) - 1))] = A[i];
                kept += __popc(m);
            }
            __syncwarp();
            int* T = A; A = B; B = T;
            c = kept;
        }
        if (lane == 0) H.sizes[t] = size;
        __syncwarp();
    }
}

// ---- breadth-first levels: many levels a launch pair each, one host sync a batch ----
// Entry j of level k is a k-clique: its vertex vid[j] plus the clique of its parent
// sid[j]. Its children are the later entries of its sublist (same sid) adjacent to it.
//
// A run of levels grows into one arena (``dst_vid``, ``dst_sid``: ``cap`` entries). ``table`` holds
// (start, size) a level: row 0 the level the run starts from (its own arrays, ``src``), row l > 0 the
// l-th level grown, in the arena; then (row, need) of the first level that did not fit, and three
// counters. level_count(lev) counts the children of row lev's entries a tile (blockDim.x entries) at a
// time, each block taking the next tile left (levels of millions of entries are uneven); its last block
// scans the tiles' sums and sets row lev + 1 (size 0 when the level would pass ``cap``: it is not
// written, and the levels after it are empty). level_write(lev) writes them. The host enqueues a batch
// of levels and reads ``table`` once.

// The next tile for this block (every thread gets it), from the ticket ``*next``.
__device__ __forceinline__ long long next_tile(u64* next) {
    __shared__ long long tile;
    if (threadIdx.x == 0) tile = (long long)atomicAdd(next, 1ull);
    __syncthreads();
    const long long t = tile;
    __syncthreads();   // every thread has read it before the next call writes it
    return t;
}

__device__ __forceinline__ long long later_neighbours(const int* vid, const int* sid, long long n, long long j,
                                                      const u32* adj, int nw, const int* indptr,
                                                      const int* indices, const int* outptr) {
    const int u = vid[j], s = sid[j];
    long long c = 0;
    for (long long x = j + 1; x < n && sid[x] == s; ++x) c += adjacent(adj, nw, indptr, indices, outptr, u, vid[x]);
    return c;
}

extern "C" __global__ void level_count(const int* src_vid, const int* src_sid, u64* table, int lev, int rows,
                                       int k, int w, long long cap, const u32* adj, int nw, const int* indptr,
                                       const int* indices, const int* outptr, int* counts, long long* local,
                                       long long* tile_sum) {
    const long long start = table[2 * lev], n = table[2 * lev + 1];
    u64* over = table + 2 * (rows + 1);   // (row, need), blocks done, count's and write's tickets
    if (n == 0) {   // an empty level (the batch went past the last): so is the next
        if (blockIdx.x == 0 && threadIdx.x == 0) {
            table[2 * lev + 2] = lev ? start : 0;
            table[2 * lev + 3] = 0;
        }
        return;
    }
    const int* vid = (lev ? src_vid + start : src_vid);
    const int* sid = (lev ? src_sid + start : src_sid);
    const long long tiles = (n + blockDim.x - 1) / blockDim.x;
    long long sum;
    for (long long t = next_tile(over + 3); t < tiles; t = next_tile(over + 3)) {
        const long long j = t * blockDim.x + threadIdx.x;
        long long c = 0;
        if (j < n) {
            c = later_neighbours(vid, sid, n, j, adj, nw, indptr, indices, outptr);
            if (k + c < w) c = 0;  // cannot reach the bound: pruned (ties kept)
            counts[j] = (int)c;
        }
        const long long incl = block_inclusive_sum(c, &sum);
        if (j < n) local[j] = incl;   // inclusive, within the tile
        if (threadIdx.x == 0) tile_sum[t] = sum;
    }
    __shared__ bool last;
    if (threadIdx.x == 0) {
        __threadfence();
        last = atomicAdd(over + 2, 1ull) == gridDim.x - 1;
    }
    __syncthreads();
    if (!last) return;
    __threadfence();
    // the last block: exclusive scan of the tiles' sums, a run of tiles a thread
    volatile long long* sums = tile_sum;
    const long long per = (tiles + blockDim.x - 1) / blockDim.x;
    const long long t0 = threadIdx.x * per, t1 = min(tiles, t0 + per);
    long long seg = 0, total;
    for (long long t = t0; t < t1; ++t) seg += sums[t];
    long long before = block_inclusive_sum(seg, &total) - seg;
    for (long long t = t0; t < t1; ++t) {
        const long long v = sums[t];
        sums[t] = before;
        before += v;
    }
    if (threadIdx.x == 0) {
        over[2] = over[3] = over[4] = 0;
        const long long next = lev ? start + n : 0;   // the arena's first free entry
        const bool fits = next + total <= cap;
        table[2 * lev + 2] = next;
        table[2 * lev + 3] = fits ? total : 0;
        if (!fits && over[0] == 0) {
            over[0] = lev + 1;
            over[1] = total;
        }
    }
}

extern "C" __global__ void level_write(const int* src_vid, const int* src_sid, u64* table, int lev, int rows,
                                       const int* counts, const long long* local, const long long* tile_base,
                                       const u32* adj, int nw, const int* indptr, const int* indices,
                                       const int* outptr, int* dst_vid, int* dst_sid) {
    const long long start = table[2 * lev], n = table[2 * lev + 1], next = table[2 * lev + 2];
    if (table[2 * lev + 3] == 0) return;   // no children, or they did not fit
    const int* vid = (lev ? src_vid + start : src_vid);
    const int* sid = (lev ? src_sid + start : src_sid);
    const long long tiles = (n + blockDim.x - 1) / blockDim.x;
    u64* ticket = table + 2 * (rows + 1) + 4;
    for (long long t = next_tile(ticket); t < tiles; t = next_tile(ticket)) {
        const long long j = t * blockDim.x + threadIdx.x;
        const int c = j < n ? counts[j] : 0;
        if (c == 0) continue;
        const int u = vid[j], s = sid[j];
        long long pos = next + tile_base[t] + local[j] - c;
        for (long long x = j + 1; x < n && sid[x] == s; ++x) {
            const int v = vid[x];
            if (adjacent(adj, nw, indptr, indices, outptr, u, v)) {
                dst_vid[pos] = v;
                dst_sid[pos] = (int)j;
                ++pos;
            }
        }
    }
}

// The cliques of entries ``parents`` of the last of ``depth`` levels, one thread each: row i
// of ``out`` holds the vertices of levels 0..depth-1, read up the parent links. ``vids[l]`` and
// ``sids[l]`` are the addresses of level l's arrays (sids[0] unused).
extern "C" __global__ void parent_cliques(const u64* vids, const u64* sids, int depth, const int* parents,
                                          long long n, int* out) {
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    long long p = parents[i];
    for (int l = depth - 1; l >= 0; --l) {
        out[i * depth + l] = reinterpret_cast<const int*>(vids[l])[p];
        if (l > 0) p = reinterpret_cast<const int*>(sids[l])[p];
    }
}

// ---- depth-first branch and bound: one warp per sub-problem ----
// A sub-problem is a clique R (r_len vertices) and its candidates C (vertices adjacent to
// all of R). The warp builds C's bit matrix, then runs a colouring-bound search (MCQ
// style) on bitsets. mode 0: find cliques larger than *best (raising it); mode 1: record
// every clique of size exactly *best (ties; *best is omega and fixed).

struct Params {            // fields must match PARAMS in geil.py (a CPU test checks)
    const int* indptr;
    const int* indices;
    const int* outptr;
    const u32* adj;        // n x nw bit matrix or null
    const int* R;          // n_sub x r_len
    const int* cand;
    const long long* cand_ptr;
    const int* tasks;      // sub-problem ids of this pass, largest first
    u32* scratch;          // scratch_cap words per worker
    int* best;
    int* next_task;
    int* flags;            // [0] stopped at the time budget, [1] internal error
    int* out;              // mode 1: records of *best vertices
    u64* out_pos;          // records found (may pass the capacity: then only counted)
    int* slots;            // mode 0: per worker [size, vertices...]
    u64* nodes;
    const u64* clock0;
    long long scratch_cap;
    long long out_cap;     // records
    long long budget_ns;   // 0: no time budget
    int n_tasks;
    int r_len;
    int mode;
    int n_workers;
    int nw;
    int slot_words;
};

__constant__ Params G;

// The bound as lane 0 reads it, the same in every lane (it may rise while the warp runs).
__device__ __forceinline__ int warp_best(int lane) {
    int b = lane == 0 ? volatile_load(G.best) : 0;
    return __shfl_sync(FULL_MASK, b, 0);
}

__device__ __forceinline__ bool out_of_time() {
    if (G.budget_ns <= 0) return false;
    return global_ns() - G.clock0[0] > (u64)G.budget_ns;
}

// Greedy colouring of the bitset P (W words): append (colour << 16 | v) for every vertex
// whose colour reaches ``minc``, colours ascending. U, Q: W-word temporaries.
__device__ int colour_sort(const u32* adjL, int W, const u32* P, u32* U, u32* Q, int* ord, int minc,
                           int lane) {
    for (int i = lane; i < W; i += 32) U[i] = P[i];
    __syncwarp();
    int n = 0, col = 0, ustart = 0;
    #pragma unroll 1
    while (true) {
        // first non-empty word of U at or after ustart
        int fw = W;
        for (int i = ustart + lane; i < W; i += 32)
            if (U[i]) { fw = i; break; }
        for (int o = 16; o > 0; o >>= 1) fw = min(fw, __shfl_xor_sync(FULL_MASK, fw, o));
        if (fw == W) break;
        ustart = fw;
        ++col;
        for (int i = fw + lane; i < W; i += 32) Q[i] = U[i];
        __syncwarp();
        int qstart = fw;
        #pragma unroll 1
        while (true) {
            int qw = W;
            for (int i = qstart + lane; i < W; i += 32)
                if (Q[i]) { qw = i; break; }
            for (int o = 16; o > 0; o >>= 1) qw = min(qw, __shfl_xor_sync(FULL_MASK, qw, o));
            if (qw == W) break;
            qstart = qw;
            int v = qw * 32 + __ffs(Q[qw]) - 1;
            __syncwarp();
            const u32* av = adjL + (long long)v * W;
            for (int i = qw + lane; i < W; i += 32) Q[i] &= ~av[i];
            if (lane == 0) {
                Q[qw] &= ~(1u << (v & 31));
                U[qw] &= ~(1u << (v & 31));
                if (col >= minc) ord[n] = (col << 16) | v;
            }
            if (col >= minc) ++n;
            __syncwarp();
        }
    }
    __syncwarp();
    return n;
}

extern "C" __global__ void bnb_kernel() {
    const int lane = threadIdx.x & 31;
    const int worker = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    if (worker >= G.n_workers) return;
    u32* base = G.scratch + (long long)worker * G.scratch_cap;
    const int slack = G.mode == 0 ? 1 : 0;
    u64 nodes = 0;
    unsigned lap = 0;
    #pragma unroll 1
    while (true) {
        int t = 0;
        if (lane == 0) t = (volatile_load(G.flags) != 0) ? G.n_tasks : atomicAdd(G.next_task, 1);
        t = __shfl_sync(FULL_MASK, t, 0);
        if (t >= G.n_tasks) break;
        const int sub = G.tasks[t];
        const long long c0 = G.cand_ptr[sub];
        const int p = (int)(G.cand_ptr[sub + 1] - c0);
        const int* C = G.cand + c0;
        const int* R = G.R + (long long)sub * G.r_len;
        if (G.r_len + p < warp_best(lane) + slack) continue;
        const int W = (p + 31) >> 5;
        // scratch layout (words); geil.py's scratch_words() computes the same total
        u32* adjL = base;                              // p x W
        u32* Pst = adjL + (long long)p * W;            // (p + 1) x W
        u32* U = Pst + (long long)(p + 1) * W;         // W
        u32* Q = U + W;                                // W
        int* hdr = (int*)(Q + W);                      // (p + 1) x 3: ord start, remaining, total
        int* cl = hdr + 3 * (p + 1);                   // p + 1 chosen local vertices
        int* ord = cl + (p + 1);                       // sum of level sizes <= p (p + 1) / 2
        // local id a is candidate C[p - 1 - a]: highest degree first, so the colouring
        // takes vertices in non-increasing degree (as MCQ does) and its bounds are tight
        for (int a = 0; a < p; ++a) {
            int u = C[p - 1 - a];
            for (int ch = 0; ch < W; ++ch) {
                int b = ch * 32 + lane;
                bool e = b < p && b != a && adjacent(G.adj, G.nw, G.indptr, G.indices, G.outptr, u, C[p - 1 - b]);
                u32 m = __ballot_sync(FULL_MASK, e);
                if (lane == 0) adjL[(long long)a * W + ch] = m;
            }
        }
        for (int i = lane; i < W; i += 32) {
            int hi = p - i * 32;
            Pst[i] = hi >= 32 ? 0xffffffffu : ((1u << hi) - 1u);
        }
        __syncwarp();
        int d = 0;
        {
            int minc = warp_best(lane) + slack - G.r_len;
            int n0 = colour_sort(adjL, W, Pst, U, Q, ord, minc, lane);
            if (lane == 0) { hdr[0] = 0; hdr[1] = n0; hdr[2] = n0; }
            __syncwarp();
        }
        ++nodes;
        #pragma unroll 1
        while (d >= 0) {
            if ((++lap & 255u) == 0) {
                int stop = 0;
                if (lane == 0) {
                    stop = volatile_load(G.flags) != 0;
                    if (!stop && out_of_time()) { atomicOr(G.flags, 1); stop = 1; }
                }
                if (__shfl_sync(FULL_MASK, stop, 0)) break;
            }
            int* h = hdr + 3 * d;
            int idx = h[1];
            if (idx == 0) { --d; continue; }
            int e = ord[h[0] + idx - 1];
            int v = e & 0xffff, col = e >> 16;
            int r = G.r_len + d;  // clique size before adding v
            __syncwarp();
            if (r + col < warp_best(lane) + slack) {
                if (lane == 0) h[1] = 0;  // colours only fall towards the front
                __syncwarp();
                continue;
            }
            if (lane == 0) {
                h[1] = idx - 1;
                Pst[(long long)d * W + (v >> 5)] &= ~(1u << (v & 31));
                cl[d] = v;
            }
            __syncwarp();
            const u32* P = Pst + (long long)d * W;
            u32* NP = Pst + (long long)(d + 1) * W;
            const u32* av = adjL + (long long)v * W;
            int cnt = 0;
            for (int i = lane; i < W; i += 32) {
                u32 x = P[i] & av[i];
                NP[i] = x;
                cnt += __popc(x);
            }
            cnt = warp_sum(cnt);
            __syncwarp();
            ++nodes;
            if (cnt == 0) {
                int size = r + 1;
                if (G.mode == 0) {
                    int* slot = G.slots + (long long)worker * G.slot_words;
                    if (size > warp_best(lane) && size > __shfl_sync(FULL_MASK, slot[0], 0)) {
                        for (int i = lane; i < G.r_len; i += 32) slot[1 + i] = R[i];
                        for (int i = lane; i <= d; i += 32) slot[1 + G.r_len + i] = C[p - 1 - cl[i]];
                        __syncwarp();
                        if (lane == 0) { __threadfence(); slot[0] = size; atomicMax(G.best, size); }
                    }
                } else if (size >= warp_best(lane)) {
                    u64 pos = 0;
                    if (lane == 0) {
                        if (size > volatile_load(G.best)) atomicOr(G.flags + 1, 1);
                        pos = atomicAdd(G.out_pos, 1ull);
                    }
                    pos = __shfl_sync(FULL_MASK, pos, 0);
                    if ((long long)pos < G.out_cap) {
                        int* rec = G.out + (long long)pos * size;
                        for (int i = lane; i < G.r_len; i += 32) rec[i] = R[i];
                        for (int i = lane; i <= d; i += 32) rec[G.r_len + i] = C[p - 1 - cl[i]];
                    }
                }
                __syncwarp();
                continue;
            }
            // child level: colour its candidates, keeping only those that can still reach the bound
            int* hn = h + 3;
            int start = h[0] + h[2];
            int minc = warp_best(lane) + slack - (r + 1);
            int n1 = colour_sort(adjL, W, NP, U, Q, ord + start, minc, lane);
            if (lane == 0) { hn[0] = start; hn[1] = n1; hn[2] = n1; }
            __syncwarp();
            ++d;
        }
    }
    if (lane == 0 && nodes) atomicAdd(G.nodes, nodes);
}
