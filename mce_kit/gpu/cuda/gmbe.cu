// GMBE+: maximal biclique enumeration on the GPU (after the GMBE+ paper; see notebooks/40_gmbe).
//
// V (the smaller side) is numbered by ascending degree; a vertex's number is its rank. A task
// is a subtree of the set-enumeration tree over V:
//   seed s      L* = N(s), R* = the 2-hop vertices covering L*, C* = later 2-hop vertices, X* = earlier
//               ones (skipped when an earlier vertex covers L*: found from that vertex);
//   sub-task    (s, j): the seed's child through its candidate W[j], with every earlier candidate
//               traversed (the load-aware split of a large seed; pushed to the block's queue, then the
//               global one). The seed's worker builds W, the local neighbourhoods and the root's states
//               once, in the seed's slot of the arena; a sub-task reads them there (read-only) and keeps
//               only its own mutable fields, so a split costs one 2-hop build, not one per candidate.
//
// Node reuse: a worker (warp, or block for the BLOCK variant) keeps one node_buf per task, laid out
// once from the seed's sizes. The task's 2-hop set W holds every V vertex that can matter; it is the
// union of N(u), u in L*: scattered into a per-worker bitmap over V and read back in order (union
// "scatter"), or merged list by list with the group-wide merge-path union (the paper's warp-wide
// union, "merge"), or by one thread ("serial", the w/o-UNION ablation). Each w in W keeps its local
// neighbourhood adj(w) = N(w) ∩ L* (local ids) and per-vertex depth fields:
//   depthL[i]  u_i is in L of the node at depth D iff depthL[i] >= D;
//   st[j]      INF while w_j is open (a candidate), else (depth << 2 | kind): kind R (joined R at that
//              depth) or X (traversed at that depth, or excluded at the root);
//   pm[j]      bit D: pruned at depth D by local neighbourhood size (GMBE+'s pruning).
// Each depth's vertex set (its candidates and excluded vertices) is a prefix of the permutation Wt,
// partitioned in place when a child is made, so a node scans only its own set and vertices pruned at
// a node stay out of its later children. A child at depth D+1 (candidate q of the node at depth D)
// rewrites only depths; popping it resets the fields equal to D+1. The child is maximal iff no X
// vertex covers its L; a non-maximal child is not expanded (every node below it has the same
// covering X vertex).
// Bitmaps: at the first node on a path with |L| <= tau, each local neighbourhood becomes an |L|-bit
// row and the L of each level a row too; below it an intersection is ceil(|L|/32) ANDs.
//
// Launch parameters live in the __constant__ struct G (set by gmbe.py before each launch).

#include "common.cuh"

#define F_PRUNE 1
#define F_BITMAP 2
#define F_SPLIT 4
#define F_UNION 8
#define F_LIST 16
#define F_SCATTER 32       // 2-hop union through the per-worker bitmap over V (else merge / serial)
#define F_DONATE 64        // a busy worker hands the rest of a node's children to idle workers (any depth)
#define F_DONATE_ALL 128   // ... at every check, idle workers or not (tests: every snapshot path runs)

#define ERR_QUEUE 1

#define WARPS_PER_BLOCK 4
#ifndef GMBE_XFIRST
#define GMBE_XFIRST 0      // 1: check a child's maximality before classifying its candidates (probe)
#endif
#ifndef MIN_BLOCKS
#define MIN_BLOCKS 8       // 8 x 128 threads per SM: at most 64 registers, up to 32 warps/SM
#endif
#define SQ_CAP 64           // per-block task queue (shared memory)
#define SQ_SHARE 8          // at most this many sub-tasks of one split go to the block's queue
#define INF_ST 0x7fffffff
#define K_R 1
#define K_X 2
#define EMPTY_TASK 0xffffffffffffffffull
#define NOOP_TASK 0xfffffffffffffffeull
#define SNAP_TASK 0x8000000000000000ull  // (1 << 63 | snapshot slot << 32 | candidate): a donated child
#define OUT_ST 0x3         // a snapshot's vertex that is neither candidate, R nor X of the node (kind 3)
#define SNAP_HDR 4         // snapshot header words: seed index, |R|, |L|, depth at the donor
#define DONATE_EVERY 4     // nodes between two looks at the idle-worker count

// per-worker statistics (u64 each), NSTAT per worker
#define S_COUNT 0
#define S_NODES 1
#define S_FAILED 2
#define S_PRUNED 3
#define S_SEEDS 4
#define S_SUBTASKS 5
#define S_SPLITS 6
#define S_CYCLES 7
#define S_T0 8
#define S_T1 9
#define S_SM 10
#define S_BITMAPS 11
#define S_SETUP 12
#define S_DONATIONS 13
#define NSTAT 14

struct Params {            // one launch; fields must match PARAMS in gmbe.py (a CPU test checks)
    const int* u_indptr;   // U -> V (V ids are ranks)
    const int* u_indices;
    const int* v_indptr;   // V -> U
    const int* v_indices;
    const int* seeds;      // seed vertex of each task of this pass
    const int* seed_nw;    // |N2(s) ∪ {s}|: bounds the 2-hop set of the seed and of its sub-tasks
    const long long* seed_p2;  // 2-paths from s: bounds the local neighbourhoods
    u32* buf;              // buf_cap words per worker (node_buf)
    u32* arena;            // per splittable seed: [|W|, |R*|, W, off, adj, root states] (read by sub-tasks)
    const long long* arena_off;  // word offset of each seed's arena slot, -1: the seed never splits
    u32* vmap;             // vmap_words per worker: bitmap over V, then per-word prefix counts (scatter)
    u64* gq;               // global task queue: (seed index << 32 | candidate), EMPTY_TASK until written
    int* ctrl;             // [0] next seed, [1] gq tail, [2] gq head, [3] workers holding a task, [4] errors,
                           // [5] idle workers, [6] snapshot pool top (32-word units)
    int* next;             // the next task: ctrl[0], or a queue shared by several GPUs (take_next)
    u64* stats;            // NSTAT per worker
    int* list;             // listing: [|L|, |R|, L..., R...] records
    u64* list_pos;
    int* list_overflow;
    u32* snap;             // donated nodes: [SNAP_HDR words, st of each W vertex, L membership (0 / -1)]
    long long buf_cap;
    long long gq_cap;
    long long list_cap;
    long long bound_size;
    long long vmap_words;
    long long snap_cap;    // snapshot pool size in 32-word units (< 2^31 - 1)
    int n_seeds;
    int tau;
    int tw;                // words of a bitmap row: ceil(tau / 32)
    int flags;
    int n_workers;
    int bound_height;
    int min_left;
    int min_right;
};

__constant__ Params G;

__device__ __forceinline__ int mk_st(int d, int k) { return (d << 2) | k; }
__device__ __forceinline__ int lo32(long long x) { return (int)(x & 0xffffffff); }

__device__ __forceinline__ int smid() {
    int s;
    asm volatile("mov.u32 %0, %smid;" : "=r"(s));
    return s;
}

// ---- worker groups: a warp, or a whole block (the BLOCK variant) ----

struct Warp {
    static constexpr int size = 32;
    static constexpr bool is_block = false;
    __device__ int rank() const { return threadIdx.x & 31; }
    __device__ int worker() const { return (blockIdx.x * blockDim.x + threadIdx.x) >> 5; }
    __device__ void sync() const { __syncwarp(); }
    __device__ int sum(int v) const { return __reduce_add_sync(FULL_MASK, v); }
    __device__ int vmin(int v) const { return __reduce_min_sync(FULL_MASK, v); }
    __device__ bool any(bool p) const { return __any_sync(FULL_MASK, p); }
    // exclusive count of set flags before this thread; total in tot
    __device__ int scan1(bool f, int& tot) const {
        u32 b = __ballot_sync(FULL_MASK, f);
        tot = __popc(b);
        return __popc(b & ((1u << rank()) - 1u));
    }
    __device__ int scan(int v, int& tot) const {  // exclusive sum
        int x = v;
        #pragma unroll
        for (int o = 1; o < 32; o <<= 1) {
            int y = __shfl_up_sync(FULL_MASK, x, o);
            if (rank() >= o) x += y;
        }
        tot = __shfl_sync(FULL_MASK, x, 31);
        return x - v;
    }
    __device__ long long bcast(long long v, int src) const { return __shfl_sync(FULL_MASK, v, src); }
    __device__ int prev(int v, int carry) const {  // value of the previous thread; carry for rank 0
        int p = __shfl_up_sync(FULL_MASK, v, 1);
        return rank() == 0 ? carry : p;
    }
};

__shared__ int blk_red[WARPS_PER_BLOCK + 1];
__shared__ long long blk_b64;
__shared__ int blk_vals[WARPS_PER_BLOCK * 32];

struct Block {
    static constexpr int size = WARPS_PER_BLOCK * 32;
    static constexpr bool is_block = true;
    __device__ int rank() const { return threadIdx.x; }
    __device__ int worker() const { return blockIdx.x; }
    __device__ void sync() const { __syncthreads(); }
    __device__ int sum(int v) const {
        int w = __reduce_add_sync(FULL_MASK, v);
        if ((threadIdx.x & 31) == 0) blk_red[threadIdx.x >> 5] = w;
        __syncthreads();
        int t = 0;
        #pragma unroll
        for (int i = 0; i < WARPS_PER_BLOCK; ++i) t += blk_red[i];
        __syncthreads();
        return t;
    }
    __device__ int vmin(int v) const {
        int w = __reduce_min_sync(FULL_MASK, v);
        if ((threadIdx.x & 31) == 0) blk_red[threadIdx.x >> 5] = w;
        __syncthreads();
        int t = blk_red[0];
        #pragma unroll
        for (int i = 1; i < WARPS_PER_BLOCK; ++i) t = min(t, blk_red[i]);
        __syncthreads();
        return t;
    }
    __device__ bool any(bool p) const { return sum(p ? 1 : 0) > 0; }
    __device__ int scan(int v, int& tot) const {
        int lane = threadIdx.x & 31, wp = threadIdx.x >> 5;
        int x = warp_inclusive_sum(v, lane);
        if (lane == 31) blk_red[wp] = x;
        __syncthreads();
        int before = 0;
        tot = 0;
        #pragma unroll
        for (int i = 0; i < WARPS_PER_BLOCK; ++i) {
            if (i < wp) before += blk_red[i];
            tot += blk_red[i];
        }
        __syncthreads();
        return before + x - v;
    }
    __device__ int scan1(bool f, int& tot) const { return scan(f ? 1 : 0, tot); }
    __device__ long long bcast(long long v, int src) const {
        if ((int)threadIdx.x == src) blk_b64 = v;
        __syncthreads();
        long long r = blk_b64;
        __syncthreads();
        return r;
    }
    __device__ int prev(int v, int carry) const {
        blk_vals[threadIdx.x] = v;
        __syncthreads();
        int p = threadIdx.x == 0 ? carry : blk_vals[threadIdx.x - 1];
        __syncthreads();
        return p;
    }
};

// ---- the node_buf of one task, carved from the worker's region by the seed's sizes ----

struct Buf {
    u64* pm;
    const int* Lids;        // L* = N(s) (global, read-only)
    int *depthL, *pos, *posinv, *pre;
    int *W, *Wt, *st, *tmp, *off;  // W, off, adj: in the arena for a splittable seed
    u32* rows;
    int* adj;
    int *trav, *cnt, *nRD;  // per depth: traversed vertex, size of the vertex set, |R|
    int* stp;               // per depth: children through W[j], j >= stp, are not made here (given away)
    u32* Lb;
};

__device__ __forceinline__ Buf carve(u32* base, int nLc, int nWc, long long p2c, int tw) {
    Buf b;
    int lcap = min(nLc, nWc) + 2;
    b.pm = (u64*)base;
    int* p = (int*)(base + 2LL * nWc);
    b.depthL = p; p += nLc;
    b.pos = p; p += nLc;
    b.posinv = p; p += nLc;
    b.pre = p; p += nLc + 1;
    b.W = p; p += nWc;
    b.Wt = p; p += nWc;
    b.st = p; p += nWc;
    b.tmp = p; p += nWc;
    b.off = p; p += nWc + 1;
    b.rows = (u32*)p; p += (long long)nWc * tw;
    b.adj = p; p += p2c;
    b.trav = p; p += lcap;
    b.cnt = p; p += lcap;
    b.nRD = p; p += lcap;
    b.stp = p; p += lcap;
    b.Lb = (u32*)p;
    return b;
}

// ---- set union of two sorted lists (no duplicates inside either) ----

// Merge path: thread d of a window takes step d of the merged sequence (ties: A first) and keeps
// it unless it equals step d-1. Windows of g.size steps; the last value is carried across.
template <class Grp>
__device__ int group_union(const Grp& g, const int* A, int na, const int* B, int nb, int* out) {
    int n = na + nb, outn = 0, carry = -1;
    #pragma unroll 1
    for (int base = 0; base < n; base += Grp::size) {
        int d = base + g.rank();
        bool valid = d < n;
        int val = -1;
        if (valid) {
            int lo = max(0, d - nb), hi = min(d, na);
            while (lo < hi) {
                int mid = (lo + hi) >> 1;
                if (A[mid] <= B[d - 1 - mid]) lo = mid + 1; else hi = mid;
            }
            int x = lo, y = d - lo;
            val = (x < na && (y >= nb || A[x] <= B[y])) ? A[x] : B[y];
        }
        int pv = g.prev(val, carry);
        bool keep = valid && val != pv;
        int tot, k = g.scan1(keep, tot);
        if (keep) out[outn + k] = val;
        outn += tot;
        carry = (int)g.bcast(val, min(Grp::size, n - base) - 1);
    }
    g.sync();
    return outn;
}

// The w/o-UNION variant: one thread merges.
template <class Grp>
__device__ int serial_union(const Grp& g, const int* A, int na, const int* B, int nb, int* out) {
    int outn = 0;
    if (g.rank() == 0) {
        int x = 0, y = 0;
        while (x < na || y < nb) {
            int v;
            if (y >= nb || (x < na && A[x] < B[y])) v = A[x++];
            else if (x >= na || B[y] < A[x]) v = B[y++];
            else { v = A[x++]; y++; }
            out[outn++] = v;
        }
    }
    outn = (int)g.bcast(outn, 0);
    return outn;
}

// f(i, v) for every 2-path s - u_i - v, spread evenly over the group (pre: degree prefix over L*).
template <class Grp, class F>
__device__ __forceinline__ void for_each_2path(const Grp& g, const int* Lids, int nL, const int* pre, F f) {
    const int total = pre[nL];
    int i = 0;
    #pragma unroll 1
    for (int e = g.rank(); e < total; e += Grp::size) {
        int hi = nL - 1;  // last i with pre[i] <= e (pre strictly increases: every u in L* has degree >= 1)
        while (i < hi) {
            int mid = (i + hi + 1) >> 1;
            if (pre[mid] <= e) i = mid; else hi = mid - 1;
        }
        int u = Lids[i];
        f(i, G.u_indices[G.u_indptr[u] + (e - pre[i])]);
    }
}

// ---- task queues ----

__shared__ u64 sq[SQ_CAP];
__shared__ int sq_lock, sq_head, sq_tail;

__device__ __forceinline__ void sq_acquire() {
    while (atomicCAS(&sq_lock, 0, 1) != 0) __nanosleep(32);
    __threadfence_block();
}

__device__ __forceinline__ void sq_release() {
    __threadfence_block();
    atomicExch(&sq_lock, 0);
}

__device__ u64 sq_pop() {  // lane 0 only
    u64 e = EMPTY_TASK;
    if (*(volatile int*)&sq_head == *(volatile int*)&sq_tail) return e;
    sq_acquire();
    int h = *(volatile int*)&sq_head;
    if (h < *(volatile int*)&sq_tail) {
        e = ((volatile u64*)sq)[h % SQ_CAP];
        *(volatile int*)&sq_head = h + 1;
    }
    sq_release();
    return e;
}

__device__ __forceinline__ bool gq_looks_empty() {
    const int* ctrl = G.ctrl;
    return volatile_load(ctrl + 2) >= min((long long)volatile_load(ctrl + 1), G.gq_cap);
}

__device__ u64 gq_pop() {  // lane 0 only; a few tries (a lost race means another worker got the entry)
    int* ctrl = G.ctrl;
    #pragma unroll 1
    for (int tries = 0; tries < 4; ++tries) {
        int h = volatile_load(ctrl + 2);
        long long t = min((long long)volatile_load(ctrl + 1), G.gq_cap);
        if (h >= t) return EMPTY_TASK;
        if (atomicCAS(ctrl + 2, h, h + 1) == h) {
            u64 e;
            while ((e = volatile_load(G.gq + h)) == EMPTY_TASK) __nanosleep(64);
            return e;
        }
        __nanosleep(32 << tries);
    }
    return EMPTY_TASK;
}

// Next task for this worker: (seed index << 32 | candidate index in W), 0xffffffff for the seed
// itself, or SNAP_TASK | (snapshot slot << 32 | candidate); -1 when everything is done. Lane 0 /
// thread 0 only. Where tasks are shared, ctrl[3] counts the workers holding one (raised before taking,
// so a worker that may still push keeps the others from leaving) and ctrl[5] the idle ones; an idle
// worker naps longer each empty look (up to ~8 us) so that polling takes no issue slots or L2
// bandwidth from the busy ones.
template <class Grp>
__device__ long long fetch_task() {
    int* ctrl = G.ctrl;
    const bool share = G.flags & (F_SPLIT | F_DONATE);
    const bool local = !Grp::is_block && (G.flags & F_SPLIT);
    bool idle = false;
    int nap = 0;
    #pragma unroll 1
    while (true) {
        if (share) {
            u64 e = EMPTY_TASK;
            if (local && *(volatile int*)&sq_head != *(volatile int*)&sq_tail) {
                atomicAdd(ctrl + 3, 1);
                e = sq_pop();
                if (e == EMPTY_TASK) atomicSub(ctrl + 3, 1);
            }
            if (e == EMPTY_TASK && !gq_looks_empty()) {
                atomicAdd(ctrl + 3, 1);
                e = gq_pop();
                if (e == EMPTY_TASK) atomicSub(ctrl + 3, 1);
            }
            if (e == NOOP_TASK) { atomicSub(ctrl + 3, 1); continue; }
            if (e != EMPTY_TASK) {
                if (idle) atomicSub(ctrl + 5, 1);
                return (long long)e;
            }
        }
        if (volatile_load(ctrl) < G.n_seeds) {
            if (share) atomicAdd(ctrl + 3, 1);
            int s = take_next(G.next, ctrl, G.n_seeds);
            if (s < G.n_seeds) {
                if (idle) atomicSub(ctrl + 5, 1);
                return ((long long)s << 32) | 0xffffffffll;
            }
            if (share) atomicSub(ctrl + 3, 1);
        }
        if (!share) return -1;
        if (!idle) { idle = true; atomicAdd(ctrl + 5, 1); }
        if (volatile_load(ctrl + 3) == 0) {
            __threadfence();
            bool sq_empty = *(volatile int*)&sq_head == *(volatile int*)&sq_tail;
            if (gq_looks_empty() && sq_empty && volatile_load(ctrl + 3) == 0) {
                atomicSub(ctrl + 5, 1);
                return -1;
            }
        }
        __nanosleep(128u << nap);
        nap = min(nap + 1, 6);
    }
}

// ---- one task ----

struct Task {
    Buf b;
    int nL, nW, tw, bm, bmW;  // bm: depth where bitmap mode began (-1: list mode)
};

template <class Grp>
__device__ __forceinline__ void add_stat(const Grp& g, int which, u64 v) {
    if (g.rank() == 0 && v) atomicAdd(G.stats + (long long)g.worker() * NSTAT + which, v);
}

// |adj(w_j) ∩ L_D| for D = Dl (c0) and Dl + 1 (c1) in list mode.
__device__ __forceinline__ void overlap2(const Task& t, int j, int Dl, int& c0, int& c1) {
    const Buf& b = t.b;
    c0 = c1 = 0;
    #pragma unroll 1
    for (int k = b.off[j]; k < b.off[j + 1]; ++k) {
        int d = b.depthL[b.adj[k]];
        c0 += d >= Dl;
        c1 += d > Dl;
    }
}

__device__ __forceinline__ int overlap_bm(const Task& t, int j, int Dl) {
    int c = 0;
    for (int w = 0; w < t.bmW; ++w) c += __popc(t.b.rows[(long long)j * t.tw + w] & t.b.Lb[Dl * t.tw + w]);
    return c;
}

// What vertex j is to the node at depth D: 1 an open candidate (not pruned here), 2 excluded, 0 neither.
__device__ __forceinline__ int kind_of(const Buf& b, int j, u64 bit) {
    const int s = b.st[j];
    if (s == INF_ST) return (b.pm[j] & bit) ? 0 : 1;
    return (s & 3) == K_X ? 2 : 0;
}

// c0 = |adj(w_j) ∩ L_D|, c1 = |adj(w_j) ∩ L_{D+1}| for each lane's vertex j (kind != 0). Bitmap mode:
// ANDs of rows; list mode: a lane walks a short adj(w_j) alone, and the warp walks each long one
// together (one lane's long list would leave the other 31 idle).
#define LONG_ADJ 48
__device__ __forceinline__ void overlaps(const Task& t, int j, int kind, int D, bool prune, int& c0, int& c1) {
    const Buf& b = t.b;
    c0 = c1 = 0;
    if (t.bm >= 0) {
        if (kind) {
            c1 = overlap_bm(t, j, D + 1);
            c0 = kind == 1 && prune ? overlap_bm(t, j, D) : -1;
        }
        return;
    }
    const int a = kind ? b.off[j] : 0, e = kind ? b.off[j + 1] : 0;
    const bool longl = e - a > LONG_ADJ;
    if (!longl) {
        #pragma unroll 1
        for (int k = a; k < e; ++k) {
            int d = b.depthL[b.adj[k]];
            c0 += d >= D;
            c1 += d > D;
        }
    }
    u32 todo = __ballot_sync(FULL_MASK, longl);
    const int lane = threadIdx.x & 31;
    #pragma unroll 1
    while (todo) {
        const int src = __ffs(todo) - 1;
        todo &= todo - 1;
        const int aa = __shfl_sync(FULL_MASK, a, src), ee = __shfl_sync(FULL_MASK, e, src);
        int x0 = 0, x1 = 0;
        #pragma unroll 1
        for (int k = aa + lane; k < ee; k += 32) {
            int d = b.depthL[b.adj[k]];
            x0 += d >= D;
            x1 += d > D;
        }
        x0 = __reduce_add_sync(FULL_MASK, x0);
        x1 = __reduce_add_sync(FULL_MASK, x1);
        if (lane == src) { c0 = x0; c1 = x1; }
    }
}

// Vertex j of the node at depth D (kind, overlaps c0, c1), when its child through q (|L'| = nl1) is
// made: counts it into the child's R, its candidates, the pruned ones, or flags the child non-maximal
// (an excluded vertex covering L'); true iff j belongs to the child's vertex set (a candidate or an
// excluded vertex meeting L').
__device__ __forceinline__ bool classify(const Buf& b, int j, int kind, int c0, int c1, int D, int nl1, bool prune,
                                         u64 bit, int& nr_new, int& nc_new, int& n_pruned, bool& fail) {
    if (!kind || c1 == 0) return false;
    if (kind == 2) {
        fail |= c1 == nl1;
        return true;
    }
    bool rel = c1 != nl1;
    if (rel) ++nc_new;
    else { b.st[j] = mk_st(D + 1, K_R); ++nr_new; }
    if (prune && c1 == c0 && D < 64) { b.pm[j] |= bit; ++n_pruned; }
    return rel;
}

// Bitmap mode from depth D on: L_D's members get bit positions; every vertex of the depth's set its row.
template <class Grp>
__device__ void enter_bitmap(const Grp& g, Task& t, int D) {
    Buf& b = t.b;
    int run = 0;
    #pragma unroll 1
    for (int base = 0; base < t.nL; base += Grp::size) {
        int i = base + g.rank();
        bool in = i < t.nL && b.depthL[i] >= D;
        int tot, k = g.scan1(in, tot);
        if (in) { b.pos[i] = run + k; b.posinv[run + k] = i; }
        run += tot;
    }
    g.sync();
    t.bmW = (run + 31) >> 5;
    const int n_rows = b.cnt[D];
    #pragma unroll 1
    for (int k = g.rank(); k < n_rows; k += Grp::size) {
        const int j = b.Wt[k];
        u32* row = b.rows + (long long)j * t.tw;
        for (int w = 0; w < t.tw; ++w) row[w] = 0;
        int s = b.st[j];
        if (s != INF_ST && (s & 3) == K_R) continue;
        #pragma unroll 1
        for (int k = b.off[j]; k < b.off[j + 1]; ++k) {
            int i = b.adj[k];
            if (b.depthL[i] >= D) row[b.pos[i] >> 5] |= 1u << (b.pos[i] & 31);
        }
    }
    for (int w = g.rank(); w < t.tw; w += Grp::size) {
        int bits = run - 32 * w;
        b.Lb[D * t.tw + w] = bits >= 32 ? FULL_MASK : (bits <= 0 ? 0u : ((1u << bits) - 1u));
    }
    t.bm = D;
    g.sync();
}

// Undo depth Dc: every field equal to Dc goes back to the parent's value.
template <class Grp>
__device__ void pop_level(const Grp& g, Task& t, int Dc) {
    Buf& b = t.b;
    u64 clear = Dc < 64 ? ~(1ull << Dc) : ~0ull;
    const int n_set = b.cnt[Dc - 1];  // the parent's set holds every vertex that changed at depth Dc
    #pragma unroll 1
    for (int k = g.rank(); k < n_set; k += Grp::size) {
        const int j = b.Wt[k];
        int s = b.st[j];
        if (s != INF_ST && (s >> 2) == Dc) b.st[j] = INF_ST;
        if (Dc < 64) b.pm[j] &= clear;
    }
    if (t.bm < 0 || t.bm == Dc) {
        #pragma unroll 1
        for (int i = g.rank(); i < t.nL; i += Grp::size)
            if (b.depthL[i] == Dc) b.depthL[i] = Dc - 1;
    }
    if (t.bm == Dc) t.bm = -1;
    g.sync();
}

// Listing: write [|L|, |R|, L (U ids), R (V ranks)] of the node at depth Dl.
template <class Grp>
__device__ void emit(const Grp& g, const Task& t, int Dl, int nl, int nr) {
    const Buf& b = t.b;
    long long at = 0;
    if (g.rank() == 0) at = (long long)atomicAdd(G.list_pos, (u64)(nl + nr + 2));
    at = g.bcast(at, 0);
    if (at + nl + nr + 2 > G.list_cap) {
        if (g.rank() == 0) atomicExch(G.list_overflow, 1);
        return;
    }
    if (g.rank() == 0) { G.list[at] = nl; G.list[at + 1] = nr; }
    int* out = G.list + at + 2;
    int run = 0;
    if (t.bm >= 0) {
        #pragma unroll 1
        for (int base = 0; base < 32 * t.bmW; base += Grp::size) {
            int k = base + g.rank();
            bool in = k < 32 * t.bmW && ((t.b.Lb[Dl * t.tw + (k >> 5)] >> (k & 31)) & 1);
            int tot, x = g.scan1(in, tot);
            if (in) out[run + x] = b.Lids[b.posinv[k]];
            run += tot;
        }
    } else {
        #pragma unroll 1
        for (int base = 0; base < t.nL; base += Grp::size) {
            int i = base + g.rank();
            bool in = i < t.nL && b.depthL[i] >= Dl;
            int tot, x = g.scan1(in, tot);
            if (in) out[run + x] = b.Lids[i];
            run += tot;
        }
    }
    out += nl;
    run = 0;
    #pragma unroll 1
    for (int base = 0; base < t.nW; base += Grp::size) {
        int j = base + g.rank();
        int s = j < t.nW ? b.st[j] : INF_ST;
        bool in = s != INF_ST && (s & 3) == K_R && (s >> 2) <= Dl;
        int tot, x = g.scan1(in, tot);
        if (in) out[run + x] = b.W[j];
        run += tot;
    }
}

template <class Grp>
__device__ __forceinline__ void count_found(const Grp& g, const Task& t, int Dl, int nl, int nr) {
    if (nl < G.min_left || nr < G.min_right) return;
    add_stat(g, S_COUNT, 1);
    if (G.flags & F_LIST) emit(g, t, Dl, nl, nr);
}

// The seed's 2-hop set W (sorted) and local neighbourhoods (off, adj), from L* = N(s).
template <class Grp>
__device__ void build_root(const Grp& g, Task& t, u32* vmap) {
    Buf& b = t.b;
    const int nL = t.nL;
    // degree prefix over L*
    int carry = 0;
    #pragma unroll 1
    for (int base = 0; base < nL; base += Grp::size) {
        int i = base + g.rank();
        int d = 0;
        if (i < nL) { int u = b.Lids[i]; d = G.u_indptr[u + 1] - G.u_indptr[u]; }
        int tot, x = g.scan(d, tot);
        if (i < nL) b.pre[i] = carry + x;
        carry += tot;
    }
    if (g.rank() == 0) b.pre[nL] = carry;
    g.sync();

    u32* vb = vmap;
    int* vpre = (int*)(vmap + G.vmap_words / 2);
    bool scatter = G.flags & F_SCATTER;
    int lo_w = 0, hi_w = -1;
    if (scatter) {  // the words of V that W can touch: first to last neighbour over L*
        int mn = INF_ST, mx = 0;
        for (int i = g.rank(); i < nL; i += Grp::size) {
            int u = b.Lids[i];
            mn = min(mn, G.u_indices[G.u_indptr[u]]);
            mx = max(mx, G.u_indices[G.u_indptr[u + 1] - 1]);
        }
        lo_w = g.vmin(mn) >> 5;
        hi_w = (-g.vmin(-mx)) >> 5;
        scatter = hi_w - lo_w < 2 * carry + 1024;  // else reading the words back costs more than merging
    }
    if (scatter) {
        for_each_2path(g, b.Lids, nL, b.pre, [&](int, int v) { atomicOr(vb + (v >> 5), 1u << (v & 31)); });
        g.sync();
        int run = 0;
        #pragma unroll 1
        for (int base = lo_w; base <= hi_w; base += Grp::size) {
            int w = base + g.rank();
            u32 x = w <= hi_w ? vb[w] : 0u;
            int tot, k = g.scan(__popc(x), tot);
            if (w <= hi_w) {
                k += run;
                vpre[w] = k;
                while (x) { b.W[k++] = 32 * w + __ffs(x) - 1; x &= x - 1; }
            }
            run += tot;
        }
        t.nW = run;
    } else {  // union list by list, ping-pong between W and Wt
        int* a = b.W;
        int* o = b.Wt;
        int na = 0;
        #pragma unroll 1
        for (int i = 0; i < nL; ++i) {
            int u = b.Lids[i];
            const int* Nu = G.u_indices + G.u_indptr[u];
            int du = G.u_indptr[u + 1] - G.u_indptr[u];
            na = (G.flags & F_UNION) ? group_union(g, a, na, Nu, du, o) : serial_union(g, a, na, Nu, du, o);
            int* tmp = a; a = o; o = tmp;
        }
        if (a != b.W)
            for (int j = g.rank(); j < na; j += Grp::size) b.W[j] = a[j];
        t.nW = na;
    }
    for (int j = g.rank(); j <= t.nW; j += Grp::size) b.off[j] = 0;
    g.sync();
    auto widx = [&](int v) {
        if (!scatter) return lower_bound(b.W, t.nW, v);
        int w = v >> 5;
        return vpre[w] + __popc(vb[w] & ((1u << (v & 31)) - 1u));
    };
    // local neighbourhoods: sizes, offsets, then fill (the order inside adj(w) does not matter)
    for_each_2path(g, b.Lids, nL, b.pre, [&](int, int v) { atomicAdd(b.off + widx(v), 1); });
    g.sync();
    carry = 0;
    #pragma unroll 1
    for (int base = 0; base <= t.nW; base += Grp::size) {
        int j = base + g.rank();
        int v = j <= t.nW ? b.off[j] : 0;
        int tot, x = g.scan(v, tot);
        if (j <= t.nW) b.off[j] = carry + x;
        carry += tot;
    }
    g.sync();
    for (int j = g.rank(); j < t.nW; j += Grp::size) b.tmp[j] = b.off[j];  // fill cursors
    g.sync();
    for_each_2path(g, b.Lids, nL, b.pre, [&](int i, int v) { b.adj[atomicAdd(b.tmp + widx(v), 1)] = i; });
    g.sync();
    if (scatter)
        for (int w = lo_w + g.rank(); w <= hi_w; w += Grp::size) vb[w] = 0u;
    g.sync();
}

// Is W[j] a candidate of the node at depth d that the node has not made a child of yet and will
// (open at d, not pruned there, after the child in progress, before the node's stop)?
__device__ __forceinline__ bool still_to_make(const Buf& b, int j, int d) {
    const int x = b.st[j];
    if (x != INF_ST && (x >> 2) <= d) return false;  // R or X at depth <= d
    if (d < 64 && ((b.pm[j] >> d) & 1)) return false;
    return j > b.trav[d] && j < b.stp[d];
}

// The node at depth d as a snapshot, with the children still to make handed to the global queue
// as (snapshot, candidate) tasks; the worker then makes none of them (stp[d]). A receiver starts from
// the snapshot as its root: R and X as at the node (the child in progress is X), every vertex pruned at
// the node or outside its vertex set OUT_ST, L as 0 / -1. It loses only the pruning that the node's
// later children would have done for each other (a receiver finds such children non-maximal at once).
// Needs the seed's W, off, adj in its arena slot. False when the pool or the queue is full.
template <class Grp>
__device__ bool donate(const Grp& g, Task& t, int d, int si) {
    Buf& b = t.b;
    int n = 0;
    for (int k = g.rank(); k < b.cnt[d]; k += Grp::size) n += still_to_make(b, b.Wt[k], d);
    n = g.sum(n);
    if (n == 0) {
        if (g.rank() == 0) b.stp[d] = 0;
        g.sync();
        return true;
    }
    const long long units = (SNAP_HDR + t.nW + t.nL + 31) / 32;
    long long at = -1, gat = 0;
    if (g.rank() == 0) {
        int* ctrl = G.ctrl;
        if (volatile_load(ctrl + 6) + units <= G.snap_cap && volatile_load(ctrl + 1) + (long long)n <= G.gq_cap) {
            at = atomicAdd(ctrl + 6, (int)units);
            if (at + units > G.snap_cap) at = -1;
        }
        if (at >= 0) {
            gat = atomicAdd(ctrl + 1, n);
            if (gat + n > G.gq_cap) {  // no room: our reserved slots become no-ops
                for (long long k = gat; k < G.gq_cap; ++k) ((volatile u64*)G.gq)[k] = NOOP_TASK;
                atomicOr(ctrl + 4, ERR_QUEUE);
                at = -1;
            }
        }
    }
    at = g.bcast(at, 0);
    if (at < 0) return false;
    gat = g.bcast(gat, 0);
    int* hdr = (int*)(G.snap + at * 32);
    int* sst = hdr + SNAP_HDR;
    int* sL = sst + t.nW;
    for (int j = g.rank(); j < t.nW; j += Grp::size) {
        const int x = b.st[j];
        sst[j] = x != INF_ST && (x & 3) == K_R && (x >> 2) <= d ? mk_st(0, K_R) : OUT_ST;
    }
    g.sync();
    const u64 bit = d < 64 ? 1ull << d : 0ull;
    for (int k = g.rank(); k < b.cnt[d]; k += Grp::size) {
        const int j = b.Wt[k], x = b.st[j];
        int v;
        if (x != INF_ST && (x >> 2) <= d) v = (x & 3) == K_X ? mk_st(0, K_X) : mk_st(0, K_R);
        else if (j == b.trav[d] || j >= b.stp[d]) v = mk_st(0, K_X);  // in progress here / made elsewhere
        else v = (b.pm[j] & bit) ? OUT_ST : INF_ST;
        sst[j] = v;
    }
    int nl = 0;
    for (int i = g.rank(); i < t.nL; i += Grp::size) {
        bool in;
        if (t.bm >= 0 && d > t.bm)
            in = b.depthL[i] >= t.bm && ((b.Lb[d * t.tw + (b.pos[i] >> 5)] >> (b.pos[i] & 31)) & 1);
        else
            in = b.depthL[i] >= d;
        sL[i] = in ? 0 : -1;
        nl += in;
    }
    nl = g.sum(nl);
    if (g.rank() == 0) { hdr[0] = si; hdr[1] = b.nRD[d]; hdr[2] = nl; hdr[3] = d; }
    __threadfence();
    g.sync();
    // the queue entries, in W order (earlier candidates first: their subtrees are the larger ones)
    int run = 0;
    #pragma unroll 1
    for (int base = 0; base < t.nW; base += Grp::size) {
        const int j = base + g.rank();
        const bool c = j < t.nW && j > b.trav[d] && sst[j] == INF_ST;
        int tot, k = g.scan1(c, tot);
        if (c) ((volatile u64*)G.gq)[gat + run + k] = SNAP_TASK | ((u64)at << 32) | (u32)j;
        run += tot;
    }
    __threadfence();
    g.sync();
    if (g.rank() == 0) b.stp[d] = b.trav[d] + 1;
    add_stat(g, S_DONATIONS, 1);
    g.sync();
    return true;
}

template <class Grp>
__device__ void run_task(const Grp& g, u32* region, u32* vmap, long long task) {
    const bool deep = (u64)task >= SNAP_TASK;
    const int* snap = deep ? (const int*)(G.snap + (((u64)task >> 32) & 0x7fffffffull) * 32) : nullptr;
    const int si = deep ? snap[0] : (int)(task >> 32);
    const int jc = lo32(task);
    const int s = G.seeds[si];
    const bool sub = jc >= 0;
    const long long aoff = G.arena_off[si];
    Task t;
    t.tw = G.tw;
    t.bm = -1;
    t.bmW = 0;
    t.nL = G.v_indptr[s + 1] - G.v_indptr[s];
    t.b = carve(region, t.nL, G.seed_nw[si], G.seed_p2[si], t.tw);
    Buf& b = t.b;
    b.Lids = G.v_indices + G.v_indptr[s];
    int* ast = nullptr;  // the root's states in the arena
    int* ahdr = nullptr;
    if (aoff >= 0) {
        ahdr = (int*)(G.arena + aoff);
        b.W = ahdr + 2;
        b.off = b.W + G.seed_nw[si];
        b.adj = b.off + G.seed_nw[si] + 1;
        ast = b.adj + G.seed_p2[si];
    }
    int nR = 0, nl0 = t.nL;
    int stop = sub ? jc + 1 : INF_ST;
    if (sub) {  // the seed's root (or a donated node), with the candidates before W[jc] traversed
        t.nW = ahdr[0];
        const int* from = deep ? snap + SNAP_HDR : ast;
        nR = deep ? snap[1] : ahdr[1];
        nl0 = deep ? snap[2] : t.nL;
        for (int j = g.rank(); j < t.nW; j += Grp::size) {
            int x = from[j];
            b.st[j] = x == INF_ST && j < jc ? mk_st(0, K_X) : x;
            b.pm[j] = 0;
        }
        const int* sL = deep ? snap + SNAP_HDR + t.nW : nullptr;
        for (int i = g.rank(); i < t.nL; i += Grp::size) b.depthL[i] = deep ? sL[i] : 0;
        g.sync();
        add_stat(g, S_SUBTASKS, 1);
    } else {
        if (t.nL == 0) return;  // never (seeds have degree > 0); kept for safety
        long long c0 = clock64();
        build_root(g, t, vmap);
        add_stat(g, S_SETUP, (u64)(clock64() - c0));

        // the root: classify W
        int nC = 0;
        bool bad = false;  // an earlier vertex covers L*
        #pragma unroll 1
        for (int j = g.rank(); j < t.nW; j += Grp::size) {
            int w = b.W[j];
            int st;
            if (b.off[j + 1] - b.off[j] == t.nL) { st = mk_st(0, K_R); bad |= w < s; }
            else st = w > s ? INF_ST : mk_st(0, K_X);
            b.st[j] = st;
            b.pm[j] = 0;
            nC += st == INF_ST;
            nR += st != INF_ST && (st & 3) == K_R;
        }
        for (int i = g.rank(); i < t.nL; i += Grp::size) b.depthL[i] = 0;
        nC = g.sum(nC);
        nR = g.sum(nR);
        bad = g.any(bad);
        g.sync();
        add_stat(g, S_SEEDS, 1);
        add_stat(g, S_NODES, 1);
        if (aoff >= 0 && g.rank() == 0) { ahdr[0] = t.nW; ahdr[1] = nR; }  // for sub-tasks and donations
        long long h = min(t.nL, nC);
        const bool split = !Grp::is_block && (G.flags & F_SPLIT) && aoff >= 0 && !bad && h > G.bound_height
                           && h * nC > G.bound_size;
        if (bad) return;
        count_found(g, t, 0, t.nL, nR);
        if (nC == 0) return;

        // load-aware split of a large seed: one sub-task per candidate, reading the root from the arena
        if (split) {
            for (int j = g.rank(); j < t.nW; j += Grp::size) ast[j] = b.st[j];
            __threadfence();
            g.sync();
            int n_sh = 0, at = 0;
            if (g.rank() == 0) {
                sq_acquire();
                int hd = *(volatile int*)&sq_head, tl = *(volatile int*)&sq_tail;
                n_sh = min(min(nC, SQ_SHARE), SQ_CAP - (tl - hd));
                at = tl;
            }
            n_sh = (int)g.bcast(n_sh, 0);
            at = (int)g.bcast(at, 0);
            int n_gl = nC - n_sh;
            long long gat = 0;
            if (g.rank() == 0 && n_gl > 0) gat = atomicAdd(G.ctrl + 1, n_gl);
            gat = g.bcast(gat, 0);
            bool fits = gat + n_gl <= G.gq_cap;
            // the first (heaviest) n_gl sub-tasks go to the global queue for any idle warp; the last
            // (lightest) n_sh to this block's queue
            int run = 0, first_local = INF_ST;
            #pragma unroll 1
            for (int base = 0; base < t.nW; base += Grp::size) {
                int j = base + g.rank();
                bool c = j < t.nW && b.st[j] == INF_ST;
                int tot, k = g.scan1(c, tot);
                int r = run + k;
                if (c) {
                    u64 e = ((u64)si << 32) | (u32)j;
                    if (r >= n_gl) ((volatile u64*)sq)[(at + r - n_gl) % SQ_CAP] = e;
                    else if (fits) ((volatile u64*)G.gq)[gat + r] = e;
                    if (r == n_gl) first_local = j;
                }
                run += tot;
            }
            first_local = g.vmin(first_local);
            if (!fits)  // no room: fill our reserved slots with no-ops and run the rest here
                for (long long k = gat + g.rank(); k < G.gq_cap; k += Grp::size) ((volatile u64*)G.gq)[k] = NOOP_TASK;
            __threadfence();
            g.sync();
            if (g.rank() == 0) {
                *(volatile int*)&sq_tail = at + n_sh;
                sq_release();
                if (!fits) atomicOr(G.ctrl + 4, ERR_QUEUE);
                __threadfence();
            }
            if (fits) {
                add_stat(g, S_SPLITS, 1);
                return;
            }
            // the queue was full: the root's children up to the block-queued ones are made below, un-split
            stop = first_local;
        }
    }

    // iterative search with node reuse; the root's children from W[stop] on are not made here (a
    // sub-task makes only W[jc]; a seed that found the global queue full leaves the queued ones)
    {  // the root's vertex set: candidates and excluded vertices (R never changes below)
        int run = 0;
        #pragma unroll 1
        for (int base = 0; base < t.nW; base += Grp::size) {
            int j = base + g.rank();
            int x = j < t.nW ? b.st[j] : mk_st(0, K_R);
            bool in = x == INF_ST || (x & 3) == K_X;
            int tot, k = g.scan1(in, tot);
            if (in) b.Wt[run + k] = j;
            run += tot;
        }
        if (g.rank() == 0) { b.cnt[0] = run; b.trav[0] = sub ? jc - 1 : -1; b.nRD[0] = nR; b.stp[0] = stop; }
    }
    g.sync();
    if ((G.flags & F_BITMAP) && nl0 <= G.tau) { enter_bitmap(g, t, 0); add_stat(g, S_BITMAPS, 1); }
    const bool prune = G.flags & F_PRUNE;
    bool giving = (G.flags & F_DONATE) && aoff >= 0;  // off for good once the pool or the queue is full
    int tick = 0;
    int D = 0;
    #pragma unroll 1
    while (true) {
        if (giving && ++tick == DONATE_EVERY) {  // idle workers and nothing queued: give the shallowest
            tick = 0;                           // node's remaining children away
            int want = 0;
            if (g.rank() == 0)
                want = (G.flags & F_DONATE_ALL) || (volatile_load(G.ctrl + 5) > 0 && gq_looks_empty());
            if (g.bcast(want, 0)) {
                #pragma unroll 1
                for (int d = 0; d <= D; ++d) {
                    if (b.stp[d] != INF_ST) continue;
                    giving = donate(g, t, d, si);
                    if (!giving || b.stp[d] != 0) break;  // one node per look (stp 0: it had none left)
                }
            }
        }
        // next candidate of the node at depth D
        int q = INF_ST;
        const u64 bit = D < 64 ? 1ull << D : 0ull;
        const int n_set = b.cnt[D], after = b.trav[D];
        #pragma unroll 1
        for (int k = g.rank(); k < n_set; k += Grp::size) {
            int j = b.Wt[k];
            if (j > after && j < q && b.st[j] == INF_ST && !(b.pm[j] & bit)) q = j;
        }
        q = g.vmin(q);
        if (q >= b.stp[D]) q = INF_ST;
        if (q == INF_ST) {
            if (D == 0) break;
            pop_level(g, t, D);
            --D;
            if (g.rank() == 0) b.st[b.trav[D]] = mk_st(D, K_X);
            g.sync();
            continue;
        }
        if (g.rank() == 0) { b.trav[D] = q; b.st[q] = mk_st(D + 1, K_R); }
        g.sync();
        // L' = L ∩ N(w_q)
        int nl1 = 0;
        if (t.bm >= 0) {
            for (int w = g.rank(); w < t.tw; w += Grp::size) {
                u32 x = w < t.bmW ? b.Lb[D * t.tw + w] & b.rows[(long long)q * t.tw + w] : 0u;
                b.Lb[(D + 1) * t.tw + w] = x;
                nl1 += __popc(x);
            }
        } else {
            #pragma unroll 1
            for (int k = b.off[q] + g.rank(); k < b.off[q + 1]; k += Grp::size) {
                int i = b.adj[k];
                if (b.depthL[i] >= D) { b.depthL[i] = D + 1; ++nl1; }
            }
        }
        nl1 = g.sum(nl1);
        g.sync();
#if GMBE_XFIRST
        {  // the maximality check first: an excluded vertex covering L' ends the child before any candidate work
            bool f = false;
            #pragma unroll 1
            for (int base = 0; base < b.cnt[D]; base += Grp::size) {
                const int k = base + g.rank();
                const int j = k < b.cnt[D] ? b.Wt[k] : -1;
                const int kind = j >= 0 && j != q && kind_of(b, j, bit) == 2 ? 2 : 0;
                int c0, c1;
                overlaps(t, j, kind, D, false, c0, c1);
                f = g.any(kind == 2 && c1 == nl1);
                if (f) break;
            }
            if (f) {
                add_stat(g, S_NODES, 1);
                add_stat(g, S_FAILED, 1);
                pop_level(g, t, D + 1);
                if (g.rank() == 0) b.st[q] = mk_st(D, K_X);
                g.sync();
                continue;
            }
        }
#endif
        // one pass over the node's vertex set: the child's R and candidates, the maximality check,
        // pruning marks; the child's set moves to the front of the permutation (through tmp)
        int nr_new = 0, nc_new = 0, n_pruned = 0;
        bool fail = false;
        const int n_cur = b.cnt[D];
        int rel_run = 0, oth_run = 0;
        #pragma unroll 1
        for (int base = 0; base < n_cur; base += Grp::size) {
            const int k = base + g.rank();
            const bool valid = k < n_cur;
            const int j = valid ? b.Wt[k] : -1;
            const int kind = valid && j != q ? kind_of(b, j, bit) : 0;
            int c0, c1;
            overlaps(t, j, kind, D, prune, c0, c1);
            const bool rel = classify(b, j, kind, c0, c1, D, nl1, prune, bit, nr_new, nc_new, n_pruned, fail);
            int tot, r = g.scan1(rel, tot);
            if (valid) {
                if (rel) b.tmp[rel_run + r] = j;
                else b.tmp[n_cur - 1 - (oth_run + (k - base) - r)] = j;
            }
            rel_run += tot;
            oth_run += min(Grp::size, n_cur - base) - tot;
        }
        g.sync();
        for (int k = g.rank(); k < n_cur; k += Grp::size) b.Wt[k] = b.tmp[k];
        g.sync();
        fail = g.any(fail);
        nr_new = g.sum(nr_new);
        nc_new = g.sum(nc_new);
        n_pruned = g.sum(n_pruned);
        add_stat(g, S_NODES, 1);
        add_stat(g, S_PRUNED, n_pruned);
        int nr1 = b.nRD[D] + 1 + nr_new;
        if (fail) add_stat(g, S_FAILED, 1);
        else count_found(g, t, D + 1, nl1, nr1);
        if (fail || nc_new == 0) {  // nothing below: undo the child at once
            pop_level(g, t, D + 1);
            if (g.rank() == 0) b.st[q] = mk_st(D, K_X);
            g.sync();
            continue;
        }
        ++D;
        if (g.rank() == 0) { b.trav[D] = -1; b.cnt[D] = rel_run; b.nRD[D] = nr1; b.stp[D] = INF_ST; }
        g.sync();
        if ((G.flags & F_BITMAP) && t.bm < 0 && nl1 <= G.tau) { enter_bitmap(g, t, D); add_stat(g, S_BITMAPS, 1); }
    }
}

template <class Grp>
__device__ void worker_main(const Grp& g) {
    int wid = g.worker();
    if (wid >= G.n_workers) return;
    u64* S = G.stats + (long long)wid * NSTAT;
    u32* region = G.buf + (long long)wid * G.buf_cap;
    u32* vmap = G.vmap + (long long)wid * G.vmap_words;
    if (g.rank() == 0) { S[S_T0] = global_ns(); S[S_SM] = smid(); }
    #pragma unroll 1
    while (true) {
        long long task = 0;
        if (g.rank() == 0) task = fetch_task<Grp>();
        task = g.bcast(task, 0);
        if (task == -1) break;  // (a donated child's entry has bit 63 set: negative, never -1)
        long long c0 = clock64();
        run_task(g, region, vmap, task);
        g.sync();
        if (g.rank() == 0) {
            S[S_CYCLES] += clock64() - c0;
            if (G.flags & (F_SPLIT | F_DONATE)) { __threadfence(); atomicSub(G.ctrl + 3, 1); }  // done
        }
    }
    if (g.rank() == 0) S[S_T1] = global_ns();
}

__device__ void init_block_queue() {
    if (threadIdx.x == 0) { sq_lock = 0; sq_head = 0; sq_tail = 0; }
    __syncthreads();
}

extern "C" __global__ void __launch_bounds__(WARPS_PER_BLOCK * 32, MIN_BLOCKS) gmbe_warp_kernel() {
    init_block_queue();
    worker_main(Warp());
}

extern "C" __global__ void __launch_bounds__(WARPS_PER_BLOCK * 32, 4) gmbe_block_kernel() {
    init_block_queue();
    worker_main(Block());
}

// Preparation: out[v] = |N(N(v))| over side A (v itself included, 0 when v has no neighbours), the
// row sizes of A A^T. n_warps warps stride over the vertices, each marking A's vertices in a bitmap
// of its own (``words`` words per warp, zero on entry and left zero); a lane counts the bits its
// atomicOr set first.
extern "C" __global__ void two_hop_sizes(const int* a_ptr, const int* a_idx, const int* b_ptr,
                                         const int* b_idx, int n_a, int n_warps, u32* marks,
                                         long long words, long long* out) {
    const int lane = threadIdx.x & 31;
    const int warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    u32* mine = marks + (long long)warp * words;
    for (int v = warp; v < n_a; v += n_warps) {
        int found = 0;
        for (int pass = 0; pass < 2; pass++) {   // pass 0 marks and counts, pass 1 clears
            for (int i = a_ptr[v]; i < a_ptr[v + 1]; i++) {
                const int u = a_idx[i];
                for (int j = b_ptr[u] + lane; j < b_ptr[u + 1]; j += 32) {
                    const int w = b_idx[j];
                    if (pass == 0) {
                        const u32 bit = 1u << (w & 31);
                        found += (atomicOr(mine + (w >> 5), bit) & bit) == 0;
                    } else {
                        mine[w >> 5] = 0u;
                    }
                }
            }
            __syncwarp();
        }
        found = warp_sum(found);
        if (lane == 0) out[v] = found;
    }
}
