// RDMCE: maximal clique enumeration with bitmap Bron–Kerbosch and root-down
// exposure (after Root-Down Exposure for MCE on GPUs; see notebooks/10_rdmce).
//
// One warp is one worker. Vertices are numbered in degeneracy order. A seed
// (edge x<y, or vertex v) gives the root (R, P, X); the worker encodes the
// sub-graph as bitmaps over P:
//   rows[i]  (Wr words) N(i) ∩ P  for the p vertices of P, then the xn
//                       vertices of X that have a neighbour in P
//   colx[j]  (Wx words) N(j) ∩ X  for each j in P (the transpose of X's rows)
// and runs an iterative DFS over a stack of levels, each holding four
// bitmaps: P, XP (excluded vertices of P), VP (branches left) and XX
// (surviving vertices of X). A clique is maximal when P, XP and XX are empty.
//
// Root-down exposure: a worker publishes expo = (level << 32 | cnt), the
// shallowest level of its path with |P| > tau and branches left. Anyone
// (owner included) takes branch cnt-1 of that level with a CAS; the level is
// frozen while exposed, so branch i is rebuilt from it alone (branches with a
// smaller rank are moved to X). Thieves read the owner's rows in place;
// rows_users counts the tasks using a worker's rows, copying[w] counts the
// thieves still reading worker w's stack.
//
// Small sub-trees in registers (FLAG_LOCAL; counting and listing): below a node with |P| <= tau
// (never exposed) and |P| + |X| <= 32, solve_local() gives each vertex of P and X a lane and
// searches the whole sub-tree with 32-bit lane masks; on ego-Facebook this holds 99.5% of the
// nodes and cuts the warp instructions per maximal clique from about 1,150 to 160.
//
// Launch parameters live in the __constant__ struct G (set by rdmce.py before
// each launch), so the hot loop keeps its registers for the search itself.
//
// Size statistics (FLAG_SIZES): a clique of size r is reported only when
// min_size <= r <= max_size; with FLAG_HIST it is also counted in a per-block
// histogram in shared memory (sizes < HBINS; larger ones go straight to the
// global histogram), added to the global histogram once when the block ends.
//
// Streaming (FLAG_STREAM): cliques go to a ring of chunks of chunk_words words (even). Each warp
// owns one chunk at a time (taken with one atomic). A chunk holds groups from its start and one
// two-word descriptor per clique from its end down (descriptor i at chunk_words - 2 - 2i: the offset
// of its group in the chunk, a lane mask). A group is [r0, r0 prefix vertices, the ids of n local
// vertices]; the clique is the prefix plus the local vertices of the mask's lanes. A register
// sub-tree (solve_local, nearly every clique on large graphs) writes its group once per chunk, at
// its first clique there (again in a new chunk or after a resume), and then two words per clique;
// a clique of the bitmap path is a group of its own with n = 0 and mask 0. chunk_recs and chunk_len
// say how many cliques and how many vertices (expanded: r0 + popc(mask) each) each chunk holds, and
// ctrl[5] / ctrl[6..7] (64-bit) total them for the launch. A warp that takes a chunk at or past
// chunk_soft, or that brings the launch's vertices to vert_soft, raises the stop flag ctrl[3];
// every warp then stops at its next safe point (the top of the DFS loop or of the main loop, or of a
// register sub-tree's branch loop: solve_local saves its state too), saves its walk in resume[] and
// leaves, so the kernel ends with the ring or the launch's output nearly full. Between two safe
// points a warp reports at most two cliques and a chunk holds two of the largest records (group and
// descriptor: 2 (d + 35) words, ring_layout), so each warp takes at most one chunk past chunk_soft:
// chunk_hard = chunk_soft + workers never overflows. vert_soft only bounds the output's size (the
// host sizes the CSR from ctrl). The host expands the ring into CSR (rdmce_unpack) and relaunches;
// everything else the search needs (stacks, exposure, ctrl) stays in global memory between launches.

#include "common.cuh"

#define FLAG_EXPOSE 1
#define FLAG_AGGRESSIVE 2
#define FLAG_STREAM 4
#define FLAG_SIZES 8       // min_size / max_size filter
#define FLAG_HIST 16       // per-size histogram
#define FLAG_RESUME 32     // this launch continues suspended walks
#define FLAG_LOCAL 64      // small sub-trees searched in registers (solve_local)

#define ERR_CAPACITY 1
#define ERR_RING 2

// The module is built twice: STREAMING=0 for counts, histograms and filters (no streaming code
// in the hot loop at all) and STREAMING=1 for listing; the host picks the build by the task.
#ifndef STREAMING
#define STREAMING 0
#endif
#ifndef STOP_CHECK
#define STOP_CHECK 1       // 0: no Ctrl-C stop check (measures its cost: bench --define STOP_CHECK=0)
#endif
#define HBINS 64           // sizes kept in the shared-memory histogram of a block
// resume[] per worker: suspended?, l, c, xptr, lo, frozen_hi, tick, sub-tree pending?; then a
// suspended register sub-tree (solve_local): d, r0, n at LOCAL_AT, its 32 local vertices at LOCAL_IDS,
// each lane's level (P, X, branches left, R as lane masks) at LOCAL_LV.
#define LOCAL_AT 8
#define LOCAL_IDS 16
#define LOCAL_LV 48
#define RESUME_INTS 176    // LOCAL_LV + 4 * 32

#define WARPS_PER_BLOCK 4
#define PCACHE 64          // words of P (and of the aggressive set) kept in shared memory per warp
#ifndef MIN_BLOCKS
#define MIN_BLOCKS 8       // 8 x 128 threads per SM: at most 64 registers, up to 32 warps/SM
#endif

struct Params {            // one launch; fields must match PARAMS in rdmce.py (a CPU test checks)
    const int* indptr;
    const int* indices;
    const int* seed_u;
    const int* seed_v;     // -1 for vertex seeds
    u32* rows_buf;         // rows_cap words per worker
    u32* stack_buf;        // stack_cap words per worker
    u64* expo;             // per worker: exposed (level << 32 | branches left)
    int* copying;          // per worker: thieves still reading its stack
    int* rows_users;       // per worker: tasks still reading its rows
    int* task_info;        // 8 ints per worker: origin, p, xn, W, Wx of its task
    int* ctrl;             // [0] next seed, [1] active tasks, [2] error flags, [3] stop (streaming),
                           // [4] next free chunk (chunk_next), [5] records and [6..7] vertices (u64)
    int* next;             // the next task: ctrl[0], or a queue shared by several GPUs (take_next)
    u64* worker_count;
    u64* worker_nodes;
    u64* worker_cycles;
    int* worker_seeds;
    int* worker_steals;
    u64* hist;             // [hist_len] cliques per size (FLAG_HIST)
    int* ring;             // streaming: chunk_hard chunks of chunk_words words
    int* chunk_len;        // vertices of each chunk's cliques (expanded)
    int* chunk_recs;       // records in each chunk
    int* chunk_next;       // [0] next free chunk (ctrl + 4 when streaming)
    int* resume;           // RESUME_INTS per worker: a walk suspended by the stop flag
    const int* stop;       // set by the host on Ctrl-C (gpu/watch.py): take no further seed
    long long rows_cap;
    long long stack_cap;
    long long vert_soft;   // streaming: a launch stops once its cliques hold this many vertices
    int n_seeds;
    int tau;
    int flags;
    int n_workers;
    int min_size;
    int max_size;
    int hist_len;
    int chunk_words;
    int chunk_soft;
    int chunk_hard;
};

__constant__ Params G;

__device__ __forceinline__ bool streaming() { return STREAMING && (G.flags & FLAG_STREAM); }

// Per warp: P of the node being expanded, then its aggressive set.
__shared__ __align__(16) u32 warp_smem[WARPS_PER_BLOCK][2 * PCACHE];
// Per block: cliques per size (FLAG_HIST); per warp: current chunk, words used from its start,
// records, vertices, and the offset of the current register sub-tree's group in it (-1: none yet).
__shared__ u64 block_hist[HBINS];
__shared__ int warp_chunk[WARPS_PER_BLOCK][5];

__device__ __forceinline__ u32* pcache() { return warp_smem[threadIdx.x >> 5]; }
__device__ __forceinline__ u32* acache() { return warp_smem[threadIdx.x >> 5] + PCACHE; }
__device__ __forceinline__ int round4(int w) { return (w + 3) & ~3; }

struct Task {              // the sub-graph a task runs on (in its origin worker's rows region)
    const u32* rows;       // row stride round4(W) words (16-byte loads)
    const u32* colx;
    int p, W, Wx;
};

__device__ __forceinline__ const int* pids_of(const Task& t) { return (const int*)t.rows - round4(t.p); }

__device__ __forceinline__ const u32* row_of(const Task& t, int u) {
    return t.rows + (long long)u * round4(t.W);
}

struct Stack {             // a worker's own DFS stack
    u32* lv;               // levels, stride S words: P | XP | VP | XX
    int* meta;             // rlen[dcap] (|R| per level) | mode[dcap] (1: exposed) | R[dcap]
    int S, dcap;
};

__device__ __forceinline__ Stack stack_at(u32* base, int p, int W, int Wx) {
    Stack s;
    s.S = 3 * W + Wx;
    s.dcap = p + 2;
    s.lv = base;
    s.meta = (int*)(base + (long long)s.dcap * s.S);
    return s;
}

__device__ __forceinline__ u32* P_of(const Stack& s, int l) { return s.lv + (long long)l * s.S; }
__device__ __forceinline__ int& rlen(const Stack& s, int l) { return s.meta[l]; }
__device__ __forceinline__ int& mode(const Stack& s, int l) { return s.meta[s.dcap + l]; }
__device__ __forceinline__ int* R_of(const Stack& s) { return s.meta + 2 * s.dcap; }

__device__ __forceinline__ int warp_id() { return (blockIdx.x * blockDim.x + threadIdx.x) >> 5; }

// Per-worker counters: fire-and-forget atomics, so they hold no registers in the hot loop.
__device__ __forceinline__ void count_node(int lane) {
    if (lane == 0) atomicAdd(G.worker_nodes + warp_id(), 1ull);
}

// Publish chunk ch (its records and their vertices, expanded) and add it to the launch's totals ctrl[5]
// (records) and ctrl[6..7] (vertices, 64-bit), so the host sizes the launch's CSR from ctrl alone
// (lane 0). Returns true when the launch's vertices reach vert_soft (the stop flag is then raised).
__device__ __forceinline__ bool publish_chunk(int ch, int verts, int recs) {
    if (ch < 0 || ch >= G.chunk_hard) return false;
    G.chunk_len[ch] = verts;
    G.chunk_recs[ch] = recs;
    atomicAdd(G.ctrl + 5, recs);
    const u64 before = atomicAdd((u64*)(G.ctrl + 6), (u64)verts);
    if ((long long)(before + verts) < G.vert_soft) return false;
    atomicExch(G.ctrl + 3, 1);
    return true;
}

// Where record i's descriptor (group offset, lane mask) goes in chunk ch: from the chunk's end down.
__device__ __forceinline__ int2* descriptor_at(long long ch, int i) {
    return (int2*)(G.ring + ch * G.chunk_words + G.chunk_words - 2 - 2 * i);
}

// Close this warp's chunk (streaming).
__device__ __forceinline__ void close_chunk(int lane) {
    int* wc = warp_chunk[threadIdx.x >> 5];
    if (lane == 0) { publish_chunk(wc[0], wc[3], wc[2]); wc[0] = -1; }
    __syncwarp();
}

// Append a clique of size r to this warp's chunk, taking a new chunk when it is full. The clique is
// R[0..r0) (r0 = r - |Rm|) followed, for a register sub-tree, by the local vertex of each lane in the
// lane mask Rm (lane i < n holds its id in gid). A register sub-tree's first clique in a chunk writes
// the group [r0, R[0..r0), gid of lanes 0..n-1] (solve_local resets warp_chunk[.][4] when it starts);
// the others only their descriptor (group offset, Rm). A clique with n = 0 is a group of its own.
// Returns true (warp-uniform) when our chunk is past the soft mark or took a chunk once the stop flag
// was up: this warp must stop at its next check. Warps with room left in their chunk notice another
// warp's stop flag at their next stop_now() or, in a register sub-tree, within 64 branches.
__device__ __forceinline__ bool stream_clique_body(const int* R, int r, u32 Rm, int gid, int n, int lane) {
    int* wc = warp_chunk[threadIdx.x >> 5];
    const int r0 = r - __popc(Rm);
    long long gat = -1;
    int stop = 0;
    if (lane == 0) {
        int ch = wc[0], front = wc[1], recs = wc[2], verts = wc[3], grp = n ? wc[4] : -1;
        if (ch < 0 || front + (grp < 0 ? 1 + r0 + n : 0) + 2 * (recs + 1) > G.chunk_words) {
            stop = publish_chunk(ch, verts, recs);
            ch = atomicAdd(G.chunk_next, 1);
            if (ch >= G.chunk_soft) atomicExch(G.ctrl + 3, 1);
            if (ch >= G.chunk_hard) atomicOr(G.ctrl + 2, ERR_RING);
            stop = stop || volatile_load(G.ctrl + 3) != 0;
            wc[0] = ch; wc[4] = -1; front = recs = verts = 0; grp = -1;
        }
        if (ch < G.chunk_hard) {
            const long long base = (long long)ch * G.chunk_words;
            if (grp < 0) {                                   // a new group at the chunk's front
                grp = front;
                front += 1 + r0 + n;
                gat = base + grp;
                if (n) wc[4] = grp;
            }
            *descriptor_at(ch, recs) = make_int2(grp, (int)Rm);
            wc[1] = front; wc[2] = recs + 1; wc[3] = verts + r;
        } else {
            stop = 1;
        }
        stop = stop || ch >= G.chunk_soft;  // once any warp raised the flag, every chunk taken is past it
    }
    gat = __shfl_sync(FULL_MASK, gat, 0);
    stop = __shfl_sync(FULL_MASK, stop, 0);
    if (gat >= 0) {
        int* g = G.ring + gat;
        if (lane == 0) g[0] = r0;
        #pragma unroll 1
        for (int i = lane; i < r0; i += 32) g[1 + i] = R[i];
        if (lane < n) g[1 + r0 + lane] = gid;
    }
    return stop;
}

__device__ __noinline__ bool stream_clique(const int* R, int r, int lane) {
    return stream_clique_body(R, r, 0u, 0, 0, lane);
}

__device__ __noinline__ bool stream_clique_local(const int* R, int r, u32 Rm, int gid, int n, int lane) {
    return stream_clique_body(R, r, Rm, gid, n, lane);
}

// A register sub-tree's clique: when its group is already in our chunk and a descriptor
// fits, lane 0 writes the descriptor and counts it; otherwise the full append (a call, so the sub-tree's
// loop keeps its registers). The quick path returns false: a chunk past the soft mark said so when it
// was taken, and solve_local's stop is sticky.
__device__ __forceinline__ bool stream_clique_fast(const int* R, int r, u32 Rm, int gid, int n, int lane) {
    int full = 1;
    if (lane == 0) {
        int* wc = warp_chunk[threadIdx.x >> 5];
        const int grp = wc[4], recs = wc[2];
        if (grp >= 0 && wc[1] + 2 * (recs + 1) <= G.chunk_words) {
            *descriptor_at(wc[0], recs) = make_int2(grp, (int)Rm);
            wc[2] = recs + 1;
            wc[3] += r;
            full = 0;
        }
    }
    if (!__shfl_sync(FULL_MASK, full, 0)) return false;
    return stream_clique_local(R, r, Rm, gid, n, lane);
}

// Add k cliques of size r to this block's histogram (FLAG_HIST).
__device__ __forceinline__ void hist_add(int r, u64 k = 1) {
    if (r < HBINS) atomicAdd(block_hist + r, k);
    else atomicAdd(G.hist + (r < G.hist_len ? r : G.hist_len - 1), k);
}

// Report a maximal clique R[0..r) of the bitmap path: filter by size, count, histogram, stream.
// Returns true when a streaming launch should stop.
__device__ __forceinline__ bool emit(const int* R, int r, int lane) {
    if ((G.flags & FLAG_SIZES) && (r < G.min_size || r > G.max_size)) return false;
    if (lane == 0) {
        atomicAdd(G.worker_count + warp_id(), 1ull);
        if (G.flags & FLAG_HIST) hist_add(r);
    }
    return streaming() && stream_clique(R, r, lane);
}

// Streaming: has this launch been asked to stop (by any warp, or our own chunk is past the soft mark)?
__device__ __forceinline__ bool stop_now(int lane) {
    int stop = 0;
    if (lane == 0) stop = volatile_load(G.ctrl + 3) != 0 || warp_chunk[threadIdx.x >> 5][0] >= G.chunk_soft;
    return __shfl_sync(FULL_MASK, stop, 0);
}

__device__ __forceinline__ int bm_count(const u32* a, int W, int lane) {
    int c = 0;
    #pragma unroll 1
    for (int w = lane; w < W; w += 32) c += __popc(a[w]);
    return __reduce_add_sync(FULL_MASK, c);
}

__device__ __forceinline__ bool bm_any(const u32* a, int W, int lane) {
    u32 o = 0;
    #pragma unroll 1
    for (int w = lane; w < W; w += 32) o |= a[w];
    return __any_sync(FULL_MASK, o != 0);
}

// |P ∩ N(u)|. Cached: P is this warp's 16-byte aligned copy, zero-padded to round4(W) words.
__device__ __forceinline__ int row_hits(const Task& t, const u32* P, int u, bool cached) {
    int c = 0;
    if (cached) {
        const uint4* r = (const uint4*)row_of(t, u);
        const uint4* q = (const uint4*)P;
        #pragma unroll 1
        for (int w = 0; w < (round4(t.W) >> 2); ++w) {
            uint4 a = r[w], b = q[w];
            c += __popc(a.x & b.x) + __popc(a.y & b.y) + __popc(a.z & b.z) + __popc(a.w & b.w);
        }
    } else {
        const u32* r = row_of(t, u);
        #pragma unroll 1
        for (int w = 0; w < t.W; ++w) c += __popc(P[w] & r[w]);
    }
    return c;
}

// Report a clique found by solve_local. Counting: only counted; when sizes matter, filtered here and
// counted per size in registers: a clique of the sub-tree has r0 + 1 .. r0 + 32 vertices, so lane i counts
// those of size r0 + 1 + i (no atomic per clique; the counts go to the histogram once per call).
// Listing: filtered, counted, and appended to the ring (inlined: one per clique in the hot loop), which
// may ask to stop. (Listing never asks for a histogram.)
#define LOCAL_EMIT(size)                                                                          \
    do {                                                                                          \
        if (!each && !STREAMING) ++found;                                                         \
        else if (!(G.flags & FLAG_SIZES) || ((size) >= G.min_size && (size) <= G.max_size)) {     \
            ++found;                                                                              \
            if (STREAMING) stop |= stream_clique_fast(R_of(s), (size), Rm, gid, n, lane);         \
            else if (lane == (size) - r0 - 1) ++per_size;                                         \
        }                                                                                         \
    } while (0)

// Small sub-trees in registers. A node with at most tau vertices in P is never exposed, nor is any
// node below it (expose() wants |P| > tau); when also |P| + |XP| + |XX| <= 32, its whole sub-tree
// is searched here with one local vertex per lane. Lane i holds adj, the local vertices adjacent to
// its vertex as a lane mask (pairs of X vertices are left out: no step reads them), and the state
// of DFS level i: P, X, branches left (lane masks) and |R|. The rest is warp-uniform, so every
// instruction works for all 32 lanes, and a node costs a few dozen instructions instead of scans of
// W-word bitmaps with one lane per candidate. Same rules as expand(): prune when an X vertex sees
// all of P, aggressive step, Tomita pivot (most neighbours in P), branches P \ N(pivot) in order,
// each moved from P to X after its sub-tree. The node itself was counted by expand().
//
// Listing (STREAMING build): each level also keeps Rm, the local vertices in R, so a clique is the
// path above the sub-tree (R_of(s)[0..r0)) and the lanes of Rm: the ring gets the group (the path and
// the local vertices) once per chunk and then two words (group, Rm) per clique (stream_clique_fast).
// When an emit says the ring is nearly full (or every 64 branches, when another warp raised the stop
// flag), the sub-tree is suspended at the top of its branch loop: d, r0, the local vertices and each
// lane's level go to resume[] (from LOCAL_AT on) and the call returns true; called again with
// P == nullptr, it reloads them, rebuilds adj and goes on from there. Between two such checks it reports at most one clique.
__device__ __noinline__ bool solve_local(const Task& t, const Stack& s, int r0, const u32* P, const u32* XP,
                                         const u32* XX, bool aggressive, int lane) {
    int* ids = (int*)acache();                     // local vertex -> its row in the task; bit 31: in P
    const bool resumed = STREAMING && P == nullptr;
    u32 lvP = 0, lvX = 0, lvV = 0, lvRm = 0;       // this lane's level
    int lvR = 0, d = -1, n = 0;
    if (STREAMING && lane == 0) warp_chunk[threadIdx.x >> 5][4] = -1;  // our group is not in the ring yet
    __syncwarp();
    if (resumed) {
        const int* rs = G.resume + RESUME_INTS * warp_id();
        d = rs[LOCAL_AT]; r0 = rs[LOCAL_AT + 1]; n = rs[LOCAL_AT + 2];
        ids[lane] = rs[LOCAL_IDS + lane];
        const int* lv = rs + LOCAL_LV + 4 * lane;
        lvP = lv[0]; lvX = lv[1]; lvV = lv[2]; lvRm = lv[3];
        lvR = r0 + __popc(lvRm);
    } else {
        #pragma unroll 1
        for (int w = 0; w < t.W; ++w) {
            const u32 pw = P[w], m = pw | XP[w];
            if ((m >> lane) & 1) ids[n + __popc(m & lanemask_lt())] = (w * 32 + lane) | (int)(pw & (1u << lane) ? 0x80000000u : 0u);
            n += __popc(m);
        }
        #pragma unroll 1
        for (int w = 0; w < t.Wx; ++w) {
            const u32 m = XX[w];
            if ((m >> lane) & 1) ids[n + __popc(m & lanemask_lt())] = t.p + w * 32 + lane;
            n += __popc(m);
        }
    }
    __syncwarp();
    const bool real = lane < n;
    const int id = real ? ids[lane] : 0;
    const int u = id & 0x7fffffff;
    u32 adj = 0;
    if (real) {                                    // neighbours among local vertices of the P universe
        const u32* ru = row_of(t, u);
        #pragma unroll 1
        for (int k = 0; k < n; ++k) {
            const int uk = ids[k] & 0x7fffffff;
            if (uk < t.p && k != lane) adj |= ((ru[uk >> 5] >> (uk & 31)) & 1u) << k;
        }
    }
    u32 xl = __ballot_sync(FULL_MASK, real && u >= t.p);  // rows of XX vertices: make adj symmetric
    while (xl) {
        const int k = __ffs(xl) - 1;
        xl &= xl - 1;
        if ((__shfl_sync(FULL_MASK, adj, k) >> lane) & 1) adj |= 1u << k;
    }
    const int gid = STREAMING && real && id < 0 ? pids_of(t)[u] : 0;  // listing: the vertex's id
    const bool each = G.flags & (FLAG_SIZES | FLAG_HIST);
    const bool agg_on = G.flags & FLAG_AGGRESSIVE;
    u32 Pl = __ballot_sync(FULL_MASK, real && id < 0);
    u32 Xl = __ballot_sync(FULL_MASK, real && id >= 0);
    u32 Rm = 0;                                    // listing: local vertices in R
    int r = r0;
    unsigned found = 0, nodes = 0, per_size = 0;  // per_size: cliques of size r0 + 1 + lane (histogram)
    bool agg = aggressive, stop = false, skip = resumed;
    for (;;) {
        for (; !skip;) {                           // expand the node (Pl, Xl, r)
            const int np = __popc(Pl);
            const int c = __popc(adj & Pl);
            if (__any_sync(FULL_MASK, ((Xl >> lane) & 1) && c == np)) break;  // an X vertex sees all of P
            if (agg) {
                const u32 A = __ballot_sync(FULL_MASK, ((Pl >> lane) & 1) && c == np - 1);
                if (A) {                           // each a in A sees the rest of P: into R now
                    Xl &= __reduce_and_sync(FULL_MASK, (A >> lane) & 1 ? adj : FULL_MASK);
                    Pl &= ~A;
                    r += __popc(A);
                    if (STREAMING) Rm |= A;
                    agg = false;
                    if (Pl == 0) {
                        if (Xl == 0) LOCAL_EMIT(r);
                        break;
                    }
                    continue;
                }
            }
            const int val = ((Pl | Xl) >> lane) & 1 ? c : -1;
            const int top = __reduce_max_sync(FULL_MASK, val);
            const int piv = __ffs(__ballot_sync(FULL_MASK, val == top)) - 1;
            const u32 V = Pl & ~__shfl_sync(FULL_MASK, adj, piv);
            ++d;
            if (lane == d) { lvP = Pl; lvX = Xl; lvV = V; lvR = r; lvRm = Rm; }
            break;
        }
        skip = false;
        bool child = false;
        while (d >= 0) {                           // next branch of the deepest level with one left
            if (STREAMING) {
                if (!stop && (nodes & 63) == 63) {  // now and then: has another warp asked to stop?
                    int f = 0;
                    if (lane == 0) f = volatile_load(G.ctrl + 3);
                    stop = __shfl_sync(FULL_MASK, f, 0) != 0;
                }
                if (stop) {                        // suspend: the next launch goes on from here
                    int* rs = G.resume + RESUME_INTS * warp_id();
                    if (lane == 0) { rs[LOCAL_AT] = d; rs[LOCAL_AT + 1] = r0; rs[LOCAL_AT + 2] = n; }
                    rs[LOCAL_IDS + lane] = ids[lane];
                    int* lv = rs + LOCAL_LV + 4 * lane;
                    lv[0] = lvP; lv[1] = lvX; lv[2] = lvV; lv[3] = lvRm;
                    if (lane == 0 && nodes) atomicAdd(G.worker_nodes + warp_id(), (u64)nodes);
                    if (lane == 0 && found) atomicAdd(G.worker_count + warp_id(), (u64)found);
                    __syncwarp();
                    return true;
                }
            }
            const u32 V = __shfl_sync(FULL_MASK, lvV, d);
            if (V == 0) { --d; continue; }
            const u32 Pd = __shfl_sync(FULL_MASK, lvP, d), Xd = __shfl_sync(FULL_MASK, lvX, d);
            const int rd = __shfl_sync(FULL_MASK, lvR, d);
            const int v = __ffs(V) - 1;
            const u32 bit = 1u << v, av = __shfl_sync(FULL_MASK, adj, v);
            if (STREAMING) Rm = __shfl_sync(FULL_MASK, lvRm, d) | bit;
            if (lane == d) { lvV = V & ~bit; lvP = Pd & ~bit; lvX = Xd | bit; }
            ++nodes;
            Pl = Pd & av;
            Xl = Xd & av;
            r = rd + 1;
            if (Pl == 0) {
                if (Xl == 0) LOCAL_EMIT(r);
                continue;
            }
            agg = agg_on;
            child = true;
            break;
        }
        if (!child) break;
    }
    if (lane == 0) {
        if (found) atomicAdd(G.worker_count + warp_id(), (u64)found);
        if (nodes) atomicAdd(G.worker_nodes + warp_id(), (u64)nodes);
    }
    if (!STREAMING && (G.flags & FLAG_HIST) && per_size) hist_add(r0 + 1 + lane, per_size);
    __syncwarp();
    return false;
}
#undef LOCAL_EMIT

enum { EXPAND_DONE = 0, EXPAND_BRANCHES = 1, EXPAND_SUSPENDED = 2 };

// Pivot choice, pruning and aggressive node generation for the node at
// level l, whose P, XP, XX and R are set. Returns EXPAND_BRANCHES when it has
// branches (VP written), EXPAND_DONE when it was a leaf (emitted if maximal),
// pruned or searched to the end in registers, and (listing only)
// EXPAND_SUSPENDED when its register sub-tree was suspended for a full ring.
// Candidates go one bitmap word at a time, lane i taking bit i.
__device__ __forceinline__ int expand(const Task& t, const Stack& s, int l, int lane) {
    u32* P = P_of(s, l);
    u32* XP = P + t.W;
    u32* VP = XP + t.W;
    u32* XX = VP + t.W;
    const int Wr = round4(t.W);
    const bool cached = Wr <= PCACHE;
    bool aggressive = (G.flags & FLAG_AGGRESSIVE) && cached;
    u32* pc = pcache();
    u32* ac = acache();
    // never exposed from here down (|P| <= tau), or no exposure at all: small enough for registers
    const int local_max = (G.flags & FLAG_EXPOSE) && G.tau < 32 ? G.tau : 32;
    count_node(lane);
    for (;;) {
        const u32* Pc = P;
        if (cached) {
            #pragma unroll 1
            for (int w = lane; w < Wr; w += 32) pc[w] = w < t.W ? P[w] : 0u;
            __syncwarp();
            Pc = pc;
        }
        const int np = bm_count(Pc, t.W, lane);
        if (np == 0) {
            if (!bm_any(XP, t.W, lane) && !bm_any(XX, t.Wx, lane)) emit(R_of(s), rlen(s, l), lane);
            return EXPAND_DONE;
        }
        if ((G.flags & FLAG_LOCAL) && np <= local_max
            && np + bm_count(XP, t.W, lane) + bm_count(XX, t.Wx, lane) <= 32) {
            const bool agg = aggressive || ((G.flags & FLAG_AGGRESSIVE) && !cached);
            return solve_local(t, s, rlen(s, l), Pc, XP, XX, agg, lane) ? EXPAND_SUSPENDED : EXPAND_DONE;
        }
        int best_c = -1, best_u = 0;
        u32 agg = 0;
        #pragma unroll 1
        for (int w0 = 0; w0 < t.W; w0 += 32) {          // candidates in P ∪ XP
            int w = w0 + lane;
            u32 pw = w < t.W ? Pc[w] : 0u;
            u32 mine = w < t.W ? (pw | XP[w]) : 0u;
            u32 nz = __ballot_sync(FULL_MASK, mine != 0);
            while (nz) {
                int j = __ffs(nz) - 1;
                nz &= nz - 1;
                u32 m = __shfl_sync(FULL_MASK, mine, j);
                bool in_p = (__shfl_sync(FULL_MASK, pw, j) >> lane) & 1;
                int u = (w0 + j) * 32 + lane;
                int c = (m >> lane) & 1 ? row_hits(t, Pc, u, cached) : -1;
                if (__any_sync(FULL_MASK, !in_p && c == np)) return EXPAND_DONE;  // an excluded vertex sees all of P
                if (aggressive) {
                    u32 a = __ballot_sync(FULL_MASK, in_p && c == np - 1);
                    if (lane == 0) ac[w0 + j] = a;
                    agg |= a;
                }
                if (c > best_c) { best_c = c; best_u = u; }
            }
        }
        if (agg) {
            // Each a in A sees the rest of P: move A into R now, then scan again
            // (no new such vertex appears, and the X scan is not needed yet).
            __syncwarp();
            int r = rlen(s, l);
            for (int k = 0; k < t.W; ++k) {
                u32 a = ac[k] & Pc[k];              // words without candidates hold stale bits
                while (a) {
                    int v = k * 32 + __ffs(a) - 1;
                    a &= a - 1;
                    const u32* rv = row_of(t, v);
                    const u32* cv = t.colx + (long long)v * t.Wx;
                    #pragma unroll 1
                    for (int w = lane; w < t.W; w += 32) XP[w] &= rv[w];
                    #pragma unroll 1
                    for (int w = lane; w < t.Wx; w += 32) XX[w] &= cv[w];
                    if (streaming() && lane == 0) R_of(s)[r] = pids_of(t)[v];
                    r++;
                }
            }
            #pragma unroll 1
            for (int w = lane; w < t.W; w += 32) P[w] &= ~(ac[w] & Pc[w]);
            if (lane == 0) rlen(s, l) = r;
            __syncwarp();
            aggressive = false;
            continue;
        }
        #pragma unroll 1
        for (int w0 = 0; w0 < t.Wx; w0 += 32) {         // candidates in XX
            int w = w0 + lane;
            u32 mine = w < t.Wx ? XX[w] : 0u;
            u32 nz = __ballot_sync(FULL_MASK, mine != 0);
            while (nz) {
                int j = __ffs(nz) - 1;
                nz &= nz - 1;
                u32 m = __shfl_sync(FULL_MASK, mine, j);
                int u = t.p + (w0 + j) * 32 + lane;
                int c = (m >> lane) & 1 ? row_hits(t, Pc, u, cached) : -1;
                if (__any_sync(FULL_MASK, c == np)) return EXPAND_DONE;
                if (c > best_c) { best_c = c; best_u = u; }
            }
        }
        const int top = __reduce_max_sync(FULL_MASK, best_c);
        const int pivot = __shfl_sync(FULL_MASK, best_u, __ffs(__ballot_sync(FULL_MASK, best_c == top)) - 1);
        const u32* rp = row_of(t, pivot);
        #pragma unroll 1
        for (int w = lane; w < t.W; w += 32) VP[w] = Pc[w] & ~rp[w];
        __syncwarp();
        return EXPAND_BRANCHES;
    }
}

enum { CHILD_MAXIMAL = 0, CHILD_NOT_MAXIMAL = 1, CHILD_INNER = 2 };

// Child of node `src` (a level, possibly another worker's) on branch v.
// Vertices in q (the branches ranked before v at a frozen level) move from
// P to X first. A child with an empty P is a leaf and is not written; one
// with candidates is written to level dst of stack s.
__device__ __forceinline__ int make_child(const Task& t, const u32* src, int v, int qw, u32 qbits, const Stack& s, int dst,
                          int lane) {
    const u32* sP = src;
    const u32* sXP = src + t.W;
    const u32* sVP = sXP + t.W;
    const u32* sXX = sVP + t.W;
    const u32* rv = row_of(t, v);
    const u32* cv = t.colx + (long long)v * t.Wx;
    u32 any = 0;
    #pragma unroll 1
    for (int w = lane; w < t.W; w += 32) {
        u32 q = w < qw ? sVP[w] : (w == qw ? (sVP[w] & qbits) : 0u);
        any |= (sP[w] & ~q) & rv[w];
    }
    if (!__any_sync(FULL_MASK, any)) {
        u32 x = 0;
        #pragma unroll 1
        for (int w = lane; w < t.W; w += 32) {
            u32 q = w < qw ? sVP[w] : (w == qw ? (sVP[w] & qbits) : 0u);
            x |= (sXP[w] | q) & rv[w];
        }
        #pragma unroll 1
        for (int w = lane; w < t.Wx; w += 32) {
            u32 xx = sXX[w];
            if (xx) x |= xx & cv[w];
        }
        return __any_sync(FULL_MASK, x) ? CHILD_NOT_MAXIMAL : CHILD_MAXIMAL;
    }
    u32* P = P_of(s, dst);
    u32* XP = P + t.W;
    u32* XX = XP + 2 * t.W;
    #pragma unroll 1
    for (int w = lane; w < t.W; w += 32) {
        u32 q = w < qw ? sVP[w] : (w == qw ? (sVP[w] & qbits) : 0u);
        P[w] = (sP[w] & ~q) & rv[w];
        XP[w] = (sXP[w] | q) & rv[w];
    }
    #pragma unroll 1
    for (int w = lane; w < t.Wx; w += 32) {
        u32 xx = sXX[w];
        XX[w] = xx ? xx & cv[w] : 0u;
    }
    __syncwarp();
    return CHILD_INNER;
}

// Position of the set bit of rank idx (0-based, ascending) in VP.
__device__ int nth_set_bit(const u32* VP, int W, int idx, int lane) {
    int base = 0;
    #pragma unroll 1
    for (int w0 = 0; w0 < W; w0 += 32) {
        int w = w0 + lane;
        int c = w < W ? __popc(VP[w]) : 0;
        int incl = c;
        for (int o = 1; o < 32; o <<= 1) {
            int y = __shfl_up_sync(FULL_MASK, incl, o);
            if (lane >= o) incl += y;
        }
        int total = __shfl_sync(FULL_MASK, incl, 31);
        if (idx < base + total) {
            u32 hit = __ballot_sync(FULL_MASK, base + incl > idx && base + incl - c <= idx);
            int owner = __ffs(hit) - 1;
            int r = __shfl_sync(FULL_MASK, idx - (base + incl - c), owner);
            u32 m = VP[w0 + owner];
            for (int i = 0; i < r; ++i) m &= m - 1;
            return (w0 + owner) * 32 + __ffs(m) - 1;
        }
        base += total;
    }
    return -1;
}

// Claim a branch of worker v's exposed level: returns (level << 32 | index) or -1.
__device__ long long claim(int v) {
    u64* e = G.expo + v;
    u64 w = volatile_load(e);
    for (;;) {
        u32 cnt = (u32)w;
        if (cnt == 0) return -1;
        u64 old = atomicCAS(e, w, w - 1);
        if (old == w) return (long long)(((w >> 32) << 32) | (u64)(cnt - 1));
        w = old;
    }
}

__device__ __forceinline__ Task task_of(int origin, int p, int xn, int W, int Wx) {
    Task t;
    t.p = p; t.W = W; t.Wx = Wx;
    const u32* base = G.rows_buf + (long long)origin * G.rows_cap;
    t.rows = base + round4(p);
    t.colx = t.rows + (long long)(p + xn) * round4(W);
    return t;
}

__device__ __forceinline__ void publish_task(int me, int origin, int p, int xn, int W, int Wx) {
    int* ti = G.task_info + 8 * me;
    ti[0] = origin; ti[1] = p; ti[2] = xn; ti[3] = W; ti[4] = Wx;
}

// Words a seed with |P| <= p and |X| <= x needs (must match rdmce.py).
__device__ __forceinline__ long long rows_words(long long p, long long x) {
    long long Wr = ((p + 31) / 32 + 3) / 4 * 4, Wx = (x + 31) / 32;
    return (p + 3) / 4 * 4 + (p + x) * Wr + p * Wx;
}
__device__ __forceinline__ long long stack_words(long long p, long long x) {
    long long W = (p + 31) / 32, Wx = (x + 31) / 32;
    long long d = p + 2, need = d * (3 * W + Wx) + 3 * d + 1;
    return need > x ? need : x;
}

// Build the root of a seed in this worker's buffers and publish its task.
// Returns false when the seed was finished without a task (no P: emitted or
// not maximal).
__device__ __noinline__ bool build_seed(int me, int seed, Task& t, Stack& s, int lane) {
    int a = G.seed_u[seed], b = G.seed_v[seed];
    const int* Na = G.indices + G.indptr[a];
    int da = G.indptr[a + 1] - G.indptr[a];
    u32* rbase = G.rows_buf + (long long)me * G.rows_cap;
    u32* sbase = G.stack_buf + (long long)me * G.stack_cap;
    int* pids = (int*)rbase;
    int* xids = (int*)sbase;  // scratch until level 0 is written
    int p = 0, x = 0, last = b >= 0 ? b : a;
    if (b < 0) {                                   // vertex seed: split N(a) at a
        int split = lower_bound(Na, da, a);
        #pragma unroll 1
        for (int i = lane; i < da; i += 32) {
            int z = Na[i];
            if (i < split) xids[i] = z; else pids[i - split] = z;
        }
        x = split; p = da - split;
    } else {                                       // edge seed: N(a) ∩ N(b), split at b
        const int* Nb = G.indices + G.indptr[b];
        int db = G.indptr[b + 1] - G.indptr[b];
        const int* S = da <= db ? Na : Nb; int ds = da <= db ? da : db;
        const int* L = da <= db ? Nb : Na; int dl = da <= db ? db : da;
        #pragma unroll 1
        for (int i0 = 0; i0 < ds; i0 += 32) {
            int i = i0 + lane;
            int z = i < ds ? S[i] : -1;
            bool hit = i < ds && sorted_contains(L, dl, z);
            u32 inP = __ballot_sync(FULL_MASK, hit && z > last);
            u32 inX = __ballot_sync(FULL_MASK, hit && z < last);
            u32 below = (1u << lane) - 1;
            if ((inP >> lane) & 1) pids[p + __popc(inP & below)] = z;
            if ((inX >> lane) & 1) xids[x + __popc(inX & below)] = z;
            p += __popc(inP); x += __popc(inX);
        }
    }
    if (rows_words(p, x) > G.rows_cap || stack_words(p, x) > G.stack_cap) {
        if (lane == 0) atomicOr(G.ctrl + 2, ERR_CAPACITY);
        return false;
    }
    __syncwarp();
    if (p == 0) {                                  // R = seed is maximal iff X is empty
        if (x == 0) {
            int r[2] = {a, b};
            emit(r, b >= 0 ? 2 : 1, lane);
        }
        return false;
    }
    int W = (p + 31) / 32, Wr = round4(W);
    u32* rows = rbase + round4(p);
    // P rows, then rows of X vertices that see P (the others never matter).
    int xn = 0;
    for (int i = 0; i < p + x; ++i) {
        int z = i < p ? pids[i] : xids[i - p];
        const int* Nz = G.indices + G.indptr[z];
        int dz = G.indptr[z + 1] - G.indptr[z];
        int lo = lower_bound(Nz, dz, pids[0]);
        int row = i < p ? i : p + xn;
        u32 seen = 0;
        for (int w = 0; w < Wr; ++w) {                 // words past W stay zero
            int j = w * 32 + lane;
            bool hit = j < p && sorted_contains(Nz + lo, dz - lo, pids[j]);
            u32 word = __ballot_sync(FULL_MASK, hit);
            if (lane == 0) rows[(long long)row * Wr + w] = word;
            seen |= word;
        }
        if (i >= p && seen) xn++;
    }
    __syncwarp();
    int Wx = (xn + 31) / 32;
    u32* colx = rows + (long long)(p + xn) * Wr;
    for (int kx = 0; kx < Wx; ++kx) {
        for (int w = 0; w < W; ++w) {
            int r = kx * 32 + lane;
            u32 word = r < xn ? rows[(long long)(p + r) * Wr + w] : 0u;
            u32 mine = 0;
            for (int jb = 0; jb < 32; ++jb) {
                u32 bits = __ballot_sync(FULL_MASK, (word >> jb) & 1);
                if (lane == jb) mine = bits;
            }
            int j = w * 32 + lane;
            if (j < p) colx[(long long)j * Wx + kx] = mine;
        }
    }
    __syncwarp();
    t = task_of(me, p, xn, W, Wx);
    s = stack_at(sbase, p, W, Wx);
    u32* P0 = P_of(s, 0);
    #pragma unroll 1
    for (int w = lane; w < W; w += 32) {
        int left = p - w * 32;
        P0[w] = left >= 32 ? FULL_MASK : ((1u << left) - 1);
        P0[W + w] = 0;
    }
    #pragma unroll 1
    for (int w = lane; w < Wx; w += 32) {
        int left = xn - w * 32;
        P0[3 * W + w] = left >= 32 ? FULL_MASK : ((1u << left) - 1);
    }
    if (lane == 0) {
        rlen(s, 0) = b >= 0 ? 2 : 1;
        mode(s, 0) = 0;
        R_of(s)[0] = a;
        if (b >= 0) R_of(s)[1] = b;
        publish_task(me, me, p, xn, W, Wx);
    }
    __syncwarp();
    return true;
}

// Where a walk stands: saved in resume[] when a streaming launch stops it.
struct Walk {
    int l, c, xptr, lo, frozen_hi;   // c: a new node waiting to be expanded
    unsigned tick;
    int local;                       // a register sub-tree below l is suspended (listing; resume_walk)
};

// Streaming: save where a walk stands in resume[] (lane 0); `local`: a register sub-tree below level l
// was suspended and goes on first.
__device__ __forceinline__ void save_walk(int me, int l, int c, int xptr, int lo, int frozen_hi, unsigned tick,
                                          int local) {
    int* rs = G.resume + RESUME_INTS * me;
    rs[1] = l; rs[2] = c; rs[3] = xptr; rs[4] = lo; rs[5] = frozen_hi; rs[6] = (int)tick; rs[7] = local;
    rs[0] = 1;
}

// Restore the task and walk that a streaming launch suspended; returns the task's origin. A register
// sub-tree suspended with it is finished here first; when it is suspended again (the ring filled at
// once), the walk is saved again and w.local stays 1: the caller leaves.
__device__ __noinline__ int resume_walk(int me, Task& t, Stack& s, Walk& w, int lane) {
    const int* ti = G.task_info + 8 * me;
    const int* rs = G.resume + RESUME_INTS * me;
    t = task_of(ti[0], ti[1], ti[2], ti[3], ti[4]);
    s = stack_at(G.stack_buf + (long long)me * G.stack_cap, ti[1], ti[3], ti[4]);
    w.l = rs[1]; w.c = rs[2]; w.xptr = rs[3]; w.lo = rs[4]; w.frozen_hi = rs[5]; w.tick = (unsigned)rs[6];
    w.local = rs[7];
    int origin = ti[0];
    __syncwarp();
    if (lane == 0) G.resume[RESUME_INTS * me] = 0;
    if (w.local) {
        w.local = solve_local(t, s, 0, nullptr, nullptr, nullptr, false, lane);
        if (w.local && lane == 0) save_walk(me, w.l, w.c, w.xptr, w.lo, w.frozen_hi, w.tick, 1);
        __syncwarp();
    }
    return origin;
}

// Find the shallowest private level in [lo, l] with |P| > tau and branches
// left, freeze it and publish it. Called when nothing is exposed.
__device__ int expose(int me, const Task& t, const Stack& s, int& lo, int& frozen_hi, int l, int lane) {
    for (int L = lo; L <= l; ++L) {
        if (mode(s, L)) continue;
        const u32* P = P_of(s, L);
        if (bm_count(P, t.W, lane) <= G.tau) continue;
        int nv = bm_count(P + 2 * t.W, t.W, lane);
        if (nv == 0) continue;
        if (lane == 0) mode(s, L) = 1;
        if (L > frozen_hi) frozen_hi = L;
        __threadfence();
        __syncwarp();
        if (lane == 0) atomicExch(G.expo + me, ((u64)L << 32) | (u64)nv);
        lo = L + 1;
        return L;
    }
    lo = l + 1;
    return -1;
}

__device__ void wait_zero(const int* p) {
    while (volatile_load(p) != 0) __nanosleep(32);
    __threadfence();
}

// Depth-first search of a task: from its root at level 0 (set, not yet
// expanded: w = {-1, 0, -1, 0, -1, 0, 0}) or from a suspended walk. Returns
// true when the stop flag suspended it (w then says where it stands).
__device__ __forceinline__ bool run_task(int me, const Task t, const Stack s, int lane, Walk& w) {
    int l = w.l, c = w.c, xptr = w.xptr, lo = w.lo, frozen_hi = w.frozen_hi;
    unsigned tick = w.tick;
    for (;;) {
        if (streaming() && stop_now(lane)) {   // keep the task, save the walk
            if (lane == 0) save_walk(me, l, c, xptr, lo, frozen_hi, tick, 0);
            return true;
        }
        if (c >= 0) {
            const int e = expand(t, s, c, lane);
            if (STREAMING && e == EXPAND_SUSPENDED) {   // the node is done for the walk; its sub-tree waits
                if (lane == 0) save_walk(me, l, -1, xptr, lo, frozen_hi, tick, 1);
                return true;
            }
            if (e == EXPAND_BRANCHES) { l = c; if (lo > c) lo = c; }
            c = -1;
            if ((G.flags & FLAG_EXPOSE) && (xptr < 0 || (++tick & 15) == 0)) {
                if (xptr >= 0) {
                    u64 w = 0;
                    if (lane == 0) w = volatile_load(G.expo + me);
                    w = __shfl_sync(FULL_MASK, w, 0);
                    if ((u32)w == 0 && xptr != l) xptr = -1;  // exhausted; its level stays frozen
                }
                if (xptr < 0 && lo <= l) xptr = expose(me, t, s, lo, frozen_hi, l, lane);
            }
        }
        if (l < 0) break;
        u32* Lv = P_of(s, l);
        u32* VP = Lv + 2 * t.W;
        int v, qw = -1;
        u32 qbits = 0;
        if (l == xptr) {                                  // exposed: claim like a thief
            long long cl = 0;
            if (lane == 0) cl = claim(me);
            cl = __shfl_sync(FULL_MASK, cl, 0);
            if (cl < 0) { wait_zero(G.copying + me); xptr = -1; --l; continue; }
            v = nth_set_bit(VP, t.W, (int)(cl & 0xffffffffll), lane);
            qw = v >> 5; qbits = (1u << (v & 31)) - 1;
        } else if (l <= frozen_hi && mode(s, l)) {        // exposed earlier, all claimed
            --l; continue;
        } else {                                          // private: take the lowest branch
            int k = -1;
            #pragma unroll 1
            for (int w0 = 0; w0 < t.W && k < 0; w0 += 32) {
                u32 hit = __ballot_sync(FULL_MASK, w0 + lane < t.W && VP[w0 + lane] != 0);
                if (hit) k = w0 + __ffs(hit) - 1;
            }
            if (k < 0) { --l; continue; }
            v = k * 32 + __ffs(VP[k]) - 1;
        }
        int d = l + 1;
        if (d <= frozen_hi && mode(s, d)) wait_zero(G.copying + me);  // reusing a frozen level
        int r = rlen(s, l);
        if (lane == 0) {
            rlen(s, d) = r + 1;
            if (streaming()) R_of(s)[r] = pids_of(t)[v];
        }
        int kind = make_child(t, Lv, v, qw, qbits, s, d, lane);
        if (qw < 0 && lane == 0) {                        // private: v moves from P to X
            u32 bit = 1u << (v & 31);
            VP[v >> 5] &= ~bit; Lv[v >> 5] &= ~bit; Lv[t.W + (v >> 5)] |= bit;
        }
        if (kind == CHILD_INNER && lane == 0) mode(s, d) = 0;  // stale flags may remain from older tasks
        __syncwarp();
        if (kind == CHILD_INNER) {
            c = d;
        } else {
            count_node(lane);
            if (kind == CHILD_MAXIMAL) emit(R_of(s), r + 1, lane);
        }
    }
    return false;
}

// Pull a branch from some worker's exposed level into our level 0. Returns
// -1 when nothing was pulled, else the kind of the child (see make_child);
// origin is then the worker whose rows the task reads.
__device__ __noinline__ int steal(int me, Task& t, Stack& s, int lane, int& start, int& origin) {
    const int n = G.n_workers;
    int victim = -1;
    long long c = -1;
    #pragma unroll 1
    for (int i0 = 0; i0 < n && victim < 0; i0 += 32) {  // 32 workers looked at per step
        int v = (start + i0 + lane) % n;
        u32 open = __ballot_sync(FULL_MASK, i0 + lane < n && v != me && (u32)volatile_load(G.expo + v) != 0);
        while (open && victim < 0) {
            int vj = __shfl_sync(FULL_MASK, v, __ffs(open) - 1);
            open &= open - 1;
            if (lane == 0) {
                atomicAdd(G.copying + vj, 1);
                __threadfence();
                c = claim(vj);
                if (c >= 0) { victim = vj; atomicAdd(G.ctrl + 1, 1); }
                else atomicSub(G.copying + vj, 1);
            }
            victim = __shfl_sync(FULL_MASK, victim, 0);
        }
    }
    if (victim < 0) return -1;
    start = victim;
    c = __shfl_sync(FULL_MASK, c, 0);
    __threadfence();
    const int* ti = G.task_info + 8 * victim;
    int p = ti[1], xn = ti[2], W = ti[3], Wx = ti[4];
    origin = ti[0];
    t = task_of(origin, p, xn, W, Wx);
    if (lane == 0) {
        atomicAdd(G.rows_users + origin, 1);
        publish_task(me, origin, p, xn, W, Wx);
    }
    Stack vs = stack_at(G.stack_buf + (long long)victim * G.stack_cap, p, W, Wx);
    s = stack_at(G.stack_buf + (long long)me * G.stack_cap, p, W, Wx);
    int L = (int)(c >> 32), idx = (int)(c & 0xffffffffll);
    const u32* src = P_of(vs, L);
    int v = nth_set_bit(src + 2 * W, W, idx, lane);
    int r = rlen(vs, L);
    if (streaming())
        #pragma unroll 1
        for (int i = lane; i < r; i += 32) R_of(s)[i] = R_of(vs)[i];
    if (lane == 0) {
        rlen(s, 0) = r + 1;
        mode(s, 0) = 0;
        if (streaming()) R_of(s)[r] = pids_of(t)[v];
    }
    int kind = make_child(t, src, v, v >> 5, (1u << (v & 31)) - 1, s, 0, lane);
    __threadfence();
    __syncwarp();
    if (lane == 0) atomicSub(G.copying + victim, 1);
    if (kind != CHILD_INNER) {
        count_node(lane);
        if (kind == CHILD_MAXIMAL) emit(R_of(s), r + 1, lane);
    }
    return kind;
}

// Retire our task: withdraw its exposure, wait for thieves still copying
// from our stack, and release the rows it read.
__device__ void end_task(int me, int origin, int lane) {
    if (G.flags & FLAG_EXPOSE) {
        if (lane == 0) atomicExch(G.expo + me, 0ull);
        __threadfence();
        if (lane == 0) wait_zero(G.copying + me);
    }
    __threadfence();
    __syncwarp();
    if (lane == 0) { atomicSub(G.rows_users + origin, 1); atomicSub(G.ctrl + 1, 1); }
}

extern "C" __global__ void __launch_bounds__(32 * WARPS_PER_BLOCK, MIN_BLOCKS) rdmce_kernel() {
    const int lane = threadIdx.x & 31;
    const int me = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    for (int i = threadIdx.x; i < HBINS; i += blockDim.x) block_hist[i] = 0;
    if (lane == 0) { warp_chunk[threadIdx.x >> 5][0] = -1; warp_chunk[threadIdx.x >> 5][4] = -1; }
    __syncthreads();
    u64 busy = 0;
    int seeds = 0, steals = 0, start = (me * 7919 + 1) % G.n_workers;
    const bool expo_on = G.flags & FLAG_EXPOSE;

    // A walk suspended by the previous launch of this stream, if any.
    int pending = 0;
    if (STREAMING && me < G.n_workers && (G.flags & FLAG_RESUME) && lane == 0) pending = G.resume[RESUME_INTS * me];
    pending = __shfl_sync(FULL_MASK, pending, 0);
    for (;;) {
        if (me >= G.n_workers) break;
        if (streaming() && stop_now(lane)) break;
        Task t;
        Stack s;
        Walk w = {-1, 0, -1, 0, -1, 0u, 0};
        int kind, origin = me;
        long long t0 = clock64();
        bool inner;                          // a task whose root still has to be expanded
        if (pending) {                       // resume our suspended walk where it stopped
            pending = 0;
            origin = resume_walk(me, t, s, w, lane);
            if (w.local) {                   // its register sub-tree filled the ring again: still suspended
                busy += clock64() - t0;
                break;
            }
            inner = true;
        } else {
            int seed = -1;                   // -1: none left, -2: our rows are still in use
            if (lane == 0) {
                if (volatile_load(G.rows_users + me) != 0) seed = -2;
                // Once the seeds are gone, idle laps leave ctrl alone: a lap's brief ctrl[1]
                // increment would hide the zero that ends the kernel, and ctrl[0] would wrap.
                else if (volatile_load(G.ctrl) < G.n_seeds) {
                    // Ctrl-C (one load per seed taken): the seeds count as gone, so the usual end
                    // test (ctrl[0] >= n_seeds, no active task) ends the launch once the tasks in
                    // flight are done; worker_seeds still says which seeds ran (the first ones).
                    if (STOP_CHECK && volatile_load(G.stop)) atomicMax(G.ctrl, G.n_seeds);
                    else {
                        atomicAdd(G.ctrl + 1, 1);
                        seed = take_next(G.next, G.ctrl, G.n_seeds);
                        if (seed >= G.n_seeds) { seed = -1; atomicSub(G.ctrl + 1, 1); }
                    }
                }
            }
            seed = __shfl_sync(FULL_MASK, seed, 0);
            if (seed >= 0) {
                __threadfence();
                seeds++;
                if (lane == 0) atomicExch(G.rows_users + me, 1);
                inner = build_seed(me, seed, t, s, lane);
                if (!inner) {                // finished at the root: no task to retire
                    if (lane == 0) {
                        atomicExch(G.rows_users + me, 0);
                        atomicSub(G.ctrl + 1, 1);
                    }
                    busy += clock64() - t0;
                    continue;
                }
            } else if (expo_on && (kind = steal(me, t, s, lane, start, origin)) >= 0) {
                steals++;
                inner = kind == CHILD_INNER;
            } else {
                int done = 0;
                if (lane == 0)
                    done = seed == -1
                           && (!expo_on || (volatile_load(G.ctrl) >= G.n_seeds && volatile_load(G.ctrl + 1) == 0));
                if (__shfl_sync(FULL_MASK, done, 0)) break;
                __nanosleep(256);
                continue;
            }
        }
        if (inner && run_task(me, t, s, lane, w)) {   // the one call site: inlined
            busy += clock64() - t0;
            break;
        }
        end_task(me, origin, lane);
        busy += clock64() - t0;
    }
    if (streaming()) close_chunk(lane);
    if (me < G.n_workers && lane == 0) {
        G.worker_cycles[me] = busy;
        G.worker_seeds[me] = seeds;
        G.worker_steals[me] = steals;
    }
    if (G.flags & FLAG_HIST) {                        // add the block's histogram once
        __syncthreads();
        for (int i = threadIdx.x; i < HBINS; i += blockDim.x)
            if (block_hist[i]) atomicAdd(G.hist + (i < G.hist_len ? i : G.hist_len - 1), block_hist[i]);
    }
}

// Streaming: expand the ring's chunks into CSR. A chunk holds groups from its start and one descriptor
// per clique from its end down (descriptor i: words chunk_words - 2 - 2i and - 1 - 2i, the offset g of
// its group in the chunk and a lane mask m); the clique is the group's prefix c[g + 1 .. g + 1 + r0)
// (r0 = c[g]) followed by c[g + 1 + r0 + k] for each lane k in m. One warp per chunk, 32 cliques at
// a time: each lane reads one descriptor, the sizes r0 + popc(m) give the offsets (a warp scan), then
// the warp writes the cliques one after the other (contiguous stores; the group is hot in L1).
// rec_base and vert_base (exclusive prefix sums over chunks) say where a chunk's cliques go; vertex
// ids are mapped through order[] to the graph's own ids.
extern "C" __global__ void rdmce_unpack(const int* ring, const int* chunk_recs, const long long* rec_base,
                                        const long long* vert_base, const int* __restrict__ order, int n_chunks,
                                        int chunk_words, long long* offsets, int* vertices) {
    const int lane = threadIdx.x & 31;
    const int ch = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    if (ch >= n_chunks) return;
    const int* __restrict__ c = ring + (long long)ch * chunk_words;
    const int2* desc = (const int2*)(c + chunk_words) - 1;   // descriptor i at desc[-i]
    const int recs = chunk_recs[ch];
    const long long rb = rec_base[ch];
    // The cliques of a group mostly follow each other: its prefix (up to 64 ids, mapped) stays in two
    // registers per lane and each lane's local id is loaded the first time a mask names it (lanes of a
    // mask are below the group's n, so nothing past the group is read).
    int* const out0 = vertices + vert_base[ch];
    int cur = -1, rk = 0, pre0 = 0, pre1 = 0, lid = 0;
    bool have = false;
    int carry = 0;                                            // vertices before record i0, in this chunk
    #pragma unroll 1
    for (int i0 = 0; i0 < recs; i0 += 32) {
        const int i = i0 + lane;
        int2 dm = make_int2(0, 0);
        int r0 = 0;
        if (i < recs) { dm = __ldg(desc - i); r0 = __ldg(c + dm.x); }
        const int size = r0 + __popc((u32)dm.y);
        const int incl = warp_inclusive_sum(size, lane);
        const int start = carry + incl - size;
        if (i < recs) offsets[rb + i] = vert_base[ch] + start;
        carry += __shfl_sync(FULL_MASK, incl, 31);
        const int k_end = min(32, recs - i0);
        #pragma unroll 1
        for (int k = 0; k < k_end; ++k) {
            const int g = __shfl_sync(FULL_MASK, dm.x, k);
            const u32 m = (u32)__shfl_sync(FULL_MASK, dm.y, k);
            int* out = out0 + __shfl_sync(FULL_MASK, start, k);
            if (g != cur) {                                   // a new group: its prefix into registers
                cur = g;
                rk = __shfl_sync(FULL_MASK, r0, k);
                pre0 = lane < rk ? __ldg(order + __ldg(c + g + 1 + lane)) : 0;
                pre1 = lane + 32 < rk ? __ldg(order + __ldg(c + g + 33 + lane)) : 0;
                have = false;
            }
            const bool mine = (m >> lane) & 1;
            if (mine && !have) { lid = __ldg(order + __ldg(c + g + 1 + rk + lane)); have = true; }
            if (lane < rk) out[lane] = pre0;
            if (lane + 32 < rk) out[lane + 32] = pre1;
            #pragma unroll 1
            for (int j = 64 + lane; j < rk; j += 32) out[j] = __ldg(order + __ldg(c + g + 1 + j));
            if (mine) out[rk + __popc(m & lanemask_lt())] = lid;
        }
    }
}
