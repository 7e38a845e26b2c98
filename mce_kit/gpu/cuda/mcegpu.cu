// mce-gpu: maximal clique enumeration with one thread block per independent
// sub-tree and a worker list (after the mce-gpu paper; see notebooks/20_mce_gpu).
//
// Vertices are numbered in degeneracy order. A seed is a vertex (L1: P = its
// later neighbours, X = its earlier ones) or an edge u < v (L2: P = common
// neighbours after v, X = common neighbours before v). The block that takes a
// seed encodes the induced sub-graph over the columns P* (the root's P):
//   rows[i]      W words: N(i) ∩ P* for the p vertices of P* and, with IPX,
//                for the x vertices of X* (with IP, X* is tested in the CSR)
// and runs an iterative DFS. Each level holds three bitmaps over P*: P, XP
// (the part of X inside P*) and VP (branches left). The part of X that came
// from X* only shrinks on the way down, so one array XX serves every level:
// XX[0 .. lp[l]) are the X* vertices still in X at level l; descending
// partitions that prefix (kept ones first, out of place through XT).
//
// Work inside a block is split at sub-warp granularity: a group of g lanes
// (g = next power of two >= W, at most 32; with FLAG_LANE4 >= W / 4, each lane
// taking up to four words) takes one pivot candidate and ANDs its row with P.
//
// Worker list: a block without a seed puts its id in a circular queue and
// waits on its flag. A busy block, at a branch whose child has |P| >= donate_min_p
// while it has other branches at this level and at an earlier one, pops a
// waiting block (reserved with an atomic counter, see wl_pop), copies the child (sub-graph, XX prefix, P, XP, R) into that
// block's buffers and raises its flag. ctrl[1] counts blocks holding work;
// a waiting block leaves once the seeds are gone and it reads zero.
//
// Launch parameters live in the __constant__ struct G (set by mcegpu.py).

#include "common.cuh"

#define FLAG_IPX 1
#define FLAG_WL 2
#define FLAG_LIST 4
#define FLAG_EDGE 8
#define FLAG_LANE4 16      // sub-warp groups of ceil(W / 4) lanes (each lane up to 4 words) instead of W

#define ERR_CAPACITY 1
#define MAX_WARPS 8
#ifndef MIN_BLOCKS
#define MIN_BLOCKS 4       // 4 x 256 threads per SM: at most 64 registers
#endif
#ifndef STOP_CHECK
#define STOP_CHECK 1       // 0: no Ctrl-C stop check (measures its cost: bench --define STOP_CHECK=0)
#endif
#define PCACHE 64           // words of P kept in shared memory (p <= 2048); larger P is read in place
#ifndef MCEGPU_PROFILE
#define MCEGPU_PROFILE 0    // 1: per-block cycles in build / pivot / set operations / worker list
#endif

struct Params {             // one launch; fields must match PARAMS in mcegpu.py (a CPU test checks)
    const int* indptr;
    const int* indices;
    const int* seed_u;
    const int* seed_v;      // -1 for vertex seeds
    u32* buf;               // buf_cap words per block
    int* task_info;         // 8 ints per block: p, x, W, np, lp, rlen of a donated task
    int* flag;              // per block: 1 = a task was donated to it
    int* queue;             // worker list: n_workers slots, -1 when empty
    u64* qpos;              // worker list counters: [Q_HEAD] head, [Q_TAIL] tail, [Q_AVAIL] unreserved
    int* ctrl;              // [0] next seed, [1] blocks holding work, [2] error flags
    int* next;             // the next task: ctrl[0], or a queue shared by several GPUs (take_next)
    u64* block_count;
    u64* block_nodes;
    u64* block_cycles;      // busy cycles (clock64), waiting excluded
    int* block_seeds;
    int* block_donated;     // branches given away
    int* block_received;    // branches received
    int* block_sm;
    u64* block_phase;       // 4 per block (profile build): build, pivot, set ops, worker list
    int* list;              // listing: [size, v...] records
    u64* list_pos;
    int* list_overflow;
    const int* stop;        // set by the host on Ctrl-C (gpu/watch.py): take no further seed
    long long buf_cap;
    long long list_cap;
    int n_seeds;
    int flags;
    int n_workers;
    int donate_min_p;
};

__constant__ Params G;

struct Clocks {                            // profile build: cycles per phase (thread 0)
    u64 build, pivot, sets, wl;
};

struct Stats {                             // a block's counters, kept by thread 0 in shared memory
    u64 count, nodes, busy;                // (not in registers: the search needs them)
    int seeds, donated, received, phase2;
    Clocks ck;
};

struct Shared {
    Stats st;
    u32 pc[PCACHE];
    u64 key[MAX_WARPS];
    int red[MAX_WARPS];
    int red2[MAX_WARPS];
    int keep, drop, seed, recv, any;
};

struct Task {               // a block's sub-tree: layout of its buffer (few registers: the rest is derived)
    int p, x, W, g;
    int* ids;               // p P* ids then x X* ids (sorted); then (p [+ x]) rows of W words
    int* xx;                // X_X: indices into X*; then the partition scratch XT
    u32* lv;                // levels: P | XP | VP, 3W words each
    int* lp;                // per level: |X_X|; then |P|, |R| per level and R of the current path
    __device__ __forceinline__ u32* rows() const { return (u32*)ids + (p + x); }
    __device__ __forceinline__ int* xt() const { return xx + x; }
    __device__ __forceinline__ int* npv() const { return lp + (p + 2); }
    __device__ __forceinline__ int* rlen() const { return lp + 2 * (p + 2); }
    __device__ __forceinline__ int* R() const { return lp + 3 * (p + 2); }
};

// Words of a block's buffer for a sub-tree with |P*| = p, |X*| = x (must match mcegpu.py).
__device__ __forceinline__ long long buffer_words(long long p, long long x, bool ipx) {
    long long W = (p + 31) / 32;
    return (p + x) + (p + (ipx ? x : 0)) * W + 2 * x + (p + 2) * 3 * W + 3 * (p + 2) + p + 4;
}

__device__ __forceinline__ Task task_at(u32* base, int p, int x, bool ipx) {
    Task t;
    t.p = p; t.x = x; t.W = (p + 31) >> 5;
    const int need = (G.flags & FLAG_LANE4) ? (t.W + 3) >> 2 : t.W;   // lanes a row needs
    int g = 1;
    while (g < need && g < 32) g <<= 1;
    t.g = g;
    t.ids = (int*)base;
    t.xx = (int*)(t.rows() + (long long)(p + (ipx ? x : 0)) * t.W);
    t.lv = (u32*)(t.xt() + x);
    t.lp = (int*)(t.lv + (long long)(p + 2) * 3 * t.W);
    return t;
}

__device__ __forceinline__ u32* P_of(const Task& t, int l) { return t.lv + (long long)l * 3 * t.W; }
__device__ __forceinline__ const u32* row_of(const Task& t, int r) { return t.rows() + (long long)r * t.W; }

__device__ __forceinline__ int nwarps() { return blockDim.x >> 5; }

// Block-wide sum and OR (one barrier pair).
__device__ __forceinline__ void block_sum_or(Shared& sh, int& sum, int& orv) {
    const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    int s = __reduce_add_sync(FULL_MASK, sum);
    int o = __reduce_or_sync(FULL_MASK, orv);
    if (lane == 0) { sh.red[w] = s; sh.red2[w] = o; }
    __syncthreads();
    s = 0; o = 0;
    for (int i = 0; i < nwarps(); ++i) { s += sh.red[i]; o |= sh.red2[i]; }
    __syncthreads();
    sum = s; orv = o;
}

// Adjacency of the X* vertices to one column v of P*, for a whole loop over X_X. With
// IPX it is a bit of the X* rows. With IP it is a binary search in the CSR, in one of
// three ways (a run-time switch): every lane in the same list N(v), cut to the range of
// the X* ids, so the searches share their first steps and cache lines (the default);
// each lane in the list of its own X* vertex x (the first version); or each lane in
// the shorter of N(v) and N(x).
#define FLAG_IP_XLIST 32
#define FLAG_IP_SHORTER 64
struct XCol {
    const int* N;           // IP: N(ids[v]) (default: within [ids[p], ids[p + x - 1]])
    int n;
    int v;                  // the column
    int z;                  // IP: ids[v]
};

__device__ __forceinline__ XCol x_column(const Task& t, int v, int n) {   // n: |X_X| to test
    XCol c;
    c.v = v;
    c.N = nullptr; c.n = 0; c.z = 0;
    if (!(G.flags & FLAG_IPX) && n > 0) {
        const int z = t.ids[v];
        c.z = z;
        if (G.flags & FLAG_IP_XLIST) return c;
        const int* N = G.indices + G.indptr[z];
        const int dz = G.indptr[z + 1] - G.indptr[z];
        if (G.flags & FLAG_IP_SHORTER) { c.N = N; c.n = dz; return c; }
        const int lo = lower_bound(N, dz, t.ids[t.p]);
        c.N = N + lo;
        c.n = lower_bound(N + lo, dz - lo, t.ids[t.p + t.x - 1] + 1);
    }
    return c;
}

// Is X* entry i (an index into X*) adjacent to the column of c?
__device__ __forceinline__ bool x_adjacent(const Task& t, const XCol& c, int i) {
    if (G.flags & FLAG_IPX) return (row_of(t, t.p + i)[c.v >> 5] >> (c.v & 31)) & 1;
    const int y = t.ids[t.p + i];
    if (G.flags & (FLAG_IP_XLIST | FLAG_IP_SHORTER)) {
        const int* Ny = G.indices + G.indptr[y];
        const int dy = G.indptr[y + 1] - G.indptr[y];
        if ((G.flags & FLAG_IP_XLIST) || dy < c.n) return sorted_contains(Ny, dy, c.z);
    }
    return sorted_contains(c.N, c.n, y);
}

__device__ void emit(const Task& t, int r, u64& count) {
    // thread 0 only
    count++;
    if (!(G.flags & FLAG_LIST)) return;
    long long at = (long long)atomicAdd(G.list_pos, (u64)(r + 1));
    if (at + r + 1 > G.list_cap) { atomicExch(G.list_overflow, 1); return; }
    G.list[at] = r;
    for (int i = 0; i < r; ++i) G.list[at + 1 + i] = t.R()[i];
}

// Score one candidate per group of g lanes: |N(j) ∩ P| (j < 0: no candidate in this
// group), summed over the group's lanes; keeps the best in (best_c, best_u). Every
// lane of the warp must call it. Returns whether some group of the warp reached `enough`.
__device__ __forceinline__ bool score(const Task& t, const u32* Pc, int j, int li, int enough,
                                      int& best_c, int& best_u) {
    const int g = t.g;
    int c = 0;
    if (j >= 0) {
        const u32* r = row_of(t, j);
        #pragma unroll 1
        for (int k = li; k < t.W; k += g) c += __popc(r[k] & Pc[k]);
    }
    for (int o = g >> 1; o > 0; o >>= 1) c += __shfl_xor_sync(FULL_MASK, c, o);
    if (j >= 0 && c > best_c) { best_c = c; best_u = j; }
    return __any_sync(FULL_MASK, j >= 0 && c >= enough);
}

// This warp's share of the candidates in the bitmap S (t.W words, the same in every
// lane), one per group of g lanes; stops early once a candidate reaches `enough`.
__device__ __forceinline__ bool score_bits(const Task& t, const u32* S, const u32* Pc, int enough,
                                          int& best_c, int& best_u) {
    const int lane = threadIdx.x & 31, g = t.g, groups = 32 / g, q = lane / g, li = lane % g;
    const u32 span = groups == 32 ? FULL_MASK : (1u << groups) - 1;
    #pragma unroll 1
    for (int w = threadIdx.x >> 5; w < t.W; w += nwarps()) {
        const u32 bits = S[w];
        if (!bits) continue;
        #pragma unroll 1
        for (int r = 0; r < g; ++r) {                // round r: bits r*groups .. +groups, one per group
            if (!((bits >> (r * groups)) & span)) continue;
            const int pos = r * groups + q;
            if (score(t, Pc, (bits >> pos) & 1 ? w * 32 + pos : -1, li, enough, best_c, best_u)) return true;
        }
    }
    return false;
}

// Pivot of the node at level l (P non-empty, |P| = np): the candidate of P ∪ XP
// (∪ X_X with IPX) with the most neighbours in P; writes VP = P \ N(pivot). X is
// scored first: an X vertex that sees all of P ends the scan (no branch at all), and
// after it a P vertex that sees the rest of P (one branch); any pivot of P ∪ X is exact.
__device__ __forceinline__ void expand(Shared& sh, const Task& t, int l, int np) {
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5, nw = nwarps();
    u32* P = P_of(t, l);
    u32* XP = P + t.W;
    u32* VP = XP + t.W;
    const bool cached = t.W <= PCACHE;
    for (int w = tid; w < t.W && cached; w += blockDim.x) sh.pc[w] = P[w];
    __syncthreads();
    const u32* Pc = cached ? sh.pc : P;
    const int g = t.g, groups = 32 / g, q = lane / g, li = lane % g;
    int best_c = -1, best_u = 0;
    bool done = score_bits(t, XP, Pc, np, best_c, best_u);
    if ((G.flags & FLAG_IPX) && !done) {             // candidates of X_X, one per group
        const int n = t.lp[l];
        #pragma unroll 1
        for (int base = warp * groups; base < n && !done; base += nw * groups) {
            const int i = base + q;
            done = score(t, Pc, i < n ? t.p + t.xx[i] : -1, li, np, best_c, best_u);
        }
    }
    if (!done) score_bits(t, Pc, Pc, np - 1, best_c, best_u);
    u64 key = best_c < 0 ? 0ull : ((u64)(best_c + 1) << 32) | (u32)best_u;
    for (int o = 16; o > 0; o >>= 1) {
        u64 other = __shfl_xor_sync(FULL_MASK, key, o);
        key = other > key ? other : key;
    }
    if (lane == 0) sh.key[warp] = key;
    __syncthreads();
    for (int i = 0; i < nw; ++i) key = sh.key[i] > key ? sh.key[i] : key;
    const u32* rp = row_of(t, (int)(u32)key);
    for (int w = tid; w < t.W; w += blockDim.x) VP[w] = Pc[w] & ~rp[w];
    __syncthreads();
}

// Worker list: a circular buffer of waiting block ids. qpos holds three counters, each
// on its own 128-byte line: the head and tail tickets and `avail`, the receivers queued
// and not yet reserved. A donor reserves one with an atomic decrement of avail (undone
// when it finds none) and then takes the next head ticket: no compare-and-swap that
// thousands of donors race on and mostly lose.
#define Q_HEAD 0
#define Q_TAIL 16
#define Q_AVAIL 32
#ifndef MCEGPU_CAS_POP
#define MCEGPU_CAS_POP 0    // 1: the first version's pop (CAS on the head); kept for comparison
#endif

// Worker list: add this block (thread 0).
__device__ void wl_push(int me) {
    u64 at = atomicAdd(G.qpos + Q_TAIL, 1ull);
    int* slot = G.queue + (int)(at % (u64)G.n_workers);
    while (atomicCAS(slot, -1, me) != -1) __nanosleep(64);
    atomicAdd(G.qpos + Q_AVAIL, 1ull);
}

// Worker list: one look, issued by thread 0 early in a branch and read after the set
// operations, which hide the round trip to L2. In phase 1 it is ctrl[0] - n_seeds (>= 0:
// the seeds are gone, phase 2 has begun); in phase 2, the receivers waiting unreserved.
__device__ __forceinline__ int wl_look(bool phase2) {
    if (!phase2) return volatile_load(G.ctrl) - G.n_seeds;
#if MCEGPU_CAS_POP
    return (int)(volatile_load(G.qpos + Q_TAIL) - volatile_load(G.qpos + Q_HEAD));
#else
    return (int)volatile_load(G.qpos + Q_AVAIL);
#endif
}

// Worker list: take a waiting block, or -1 (thread 0).
__device__ int wl_pop() {
#if MCEGPU_CAS_POP
    u64 h = volatile_load(G.qpos + Q_HEAD);
    if (h >= volatile_load(G.qpos + Q_TAIL)) return -1;
    if (atomicCAS(G.qpos + Q_HEAD, h, h + 1) != h) return -1;   // lost the race: try at a later branch
#else
    u64* avail = G.qpos + Q_AVAIL;
    if ((long long)atomicAdd(avail, ~0ull) <= 0) {             // none left: undo the reservation
        atomicAdd(avail, 1ull);
        return -1;
    }
    u64 h = atomicAdd(G.qpos + Q_HEAD, 1ull);
#endif
    int* slot = G.queue + (int)(h % (u64)G.n_workers);
    int r;
    while ((r = atomicExch(slot, -1)) == -1) __nanosleep(32);  // its receiver may still be writing it
    return r;
}

// Should the block at level l (child at l + 1 already built) give that child away?
// Thread 0: the child is big enough (checked by the caller), and there is other
// work at this level and at an earlier one.
__device__ bool worth_donating(const Task& t, int l) {
    const u32* VP = P_of(t, l) + 2 * t.W;
    bool here = false;
    for (int w = 0; w < t.W && !here; ++w) here = VP[w] != 0;
    if (!here) return false;
    for (int e = 0; e < l; ++e) {
        const u32* V = P_of(t, e) + 2 * t.W;
        for (int w = 0; w < t.W; ++w)
            if (V[w]) return true;
    }
    return false;
}

// Copy the child at level d of our task into block r's buffer as its root.
__device__ __noinline__ void donate(const Task& t, int d, int r) {   // rare: its registers stay out of the loop
    const int tid = threadIdx.x;
    const bool ipx = G.flags & FLAG_IPX;
    Task u = task_at(G.buf + (long long)r * G.buf_cap, t.p, t.x, ipx);
    const long long graph_words = (t.p + t.x) + (long long)(t.p + (ipx ? t.x : 0)) * t.W;
    const u32* src = (const u32*)t.ids;
    u32* dst = (u32*)u.ids;
    for (long long i = tid; i < graph_words; i += blockDim.x) dst[i] = src[i];
    const int n = t.lp[d];
    for (int i = tid; i < n; i += blockDim.x) u.xx[i] = t.xx[i];
    const u32* P = P_of(t, d);
    u32* Q = P_of(u, 0);
    for (int w = tid; w < 2 * t.W; w += blockDim.x) Q[w] = P[w];
    const int rl = t.rlen()[d];
    if (G.flags & FLAG_LIST)
        for (int i = tid; i < rl; i += blockDim.x) u.R()[i] = t.R()[i];
    if (tid == 0) {
        u.lp[0] = n; u.npv()[0] = t.npv()[d]; u.rlen()[0] = rl;
        int* ti = G.task_info + 8 * r;
        ti[0] = t.p; ti[1] = t.x;
        atomicAdd(G.ctrl + 1, 1);          // r holds work from now on
    }
    __threadfence();
    __syncthreads();
    if (tid == 0) atomicExch(G.flag + r, 1);
}

#if MCEGPU_PROFILE
#define TICK(var) long long var = clock64()
#define TOCK(field, var) if (threadIdx.x == 0) sh.st.ck.field += clock64() - var
#else
#define TICK(var)
#define TOCK(field, var)
#endif

// Depth-first search of a task whose root, at level 0, has P, XP, lp, npv and rlen set.
__device__ __forceinline__ void run_task(Shared& sh, const Task& t) {
    const int tid = threadIdx.x, lane = tid & 31;
    const bool wl = G.flags & FLAG_WL;
    int l = 0;
    {
        TICK(c0);
        expand(sh, t, 0, t.npv()[0]);
        TOCK(pivot, c0);
    }
    if (tid == 0) sh.st.nodes++;
    for (;;) {
        u32* P = P_of(t, l);
        u32* XP = P + t.W;
        u32* VP = XP + t.W;
        int v = -1;
        for (int w = 0; w < t.W; ++w) {                   // lowest branch left (every thread)
            u32 b = VP[w];
            if (b) { v = w * 32 + __ffs(b) - 1; break; }
        }
        if (v < 0) {
            if (--l < 0) break;
            continue;
        }
        TICK(c1);
        const int d = l + 1;
        const u32* rv = row_of(t, v);
        u32* Pd = P_of(t, d);
        int np = 0, anyx = 0;
        for (int w = tid; w < t.W; w += blockDim.x) {
            u32 a = P[w] & rv[w], b = XP[w] & rv[w];
            Pd[w] = a; Pd[t.W + w] = b;
            np += __popc(a); anyx |= b != 0;
        }
        block_sum_or(sh, np, anyx);                     // also: every thread has read level l
        const bool ask = wl && np >= G.donate_min_p;    // worker list: give this child away?
        int look = 0;
        if (ask && tid == 0) look = wl_look(sh.st.phase2);
        if (tid == 0) {
            const u32 bit = 1u << (v & 31);
            VP[v >> 5] &= ~bit; P[v >> 5] &= ~bit; XP[v >> 5] |= bit;
            t.rlen()[d] = t.rlen()[l] + 1;
            if (G.flags & FLAG_LIST) t.R()[t.rlen()[l]] = t.ids[v];
        }
        const int n = t.lp[l];
        if (np == 0) {                                  // a leaf: maximal iff X is empty too
            int seen = anyx;
            const XCol xc = x_column(t, v, seen ? 0 : n);
            #pragma unroll 1
            for (int base = 0; base < n && !seen; base += blockDim.x) {
                int i = base + tid;
                seen = __syncthreads_or(i < n && x_adjacent(t, xc, t.xx[i]));
            }
            __syncthreads();
            if (tid == 0) {
                sh.st.nodes++;
                if (!seen) emit(t, t.rlen()[l] + 1, sh.st.count);
            }
            TOCK(sets, c1);
            continue;
        }
        // partition X_X[0..n): neighbours of v first. One warp: the kept ones in place (a
        // kept entry moves only to an index already read), the others through XT; several
        // warps: all of them out of place through XT, then back.
        const XCol xc = x_column(t, v, n);
        const u32 below = (1u << lane) - 1;
        if (blockDim.x == 32) {
            int keep = 0, drop = 0;
            #pragma unroll 1
            for (int base = 0; base < n; base += 32) {
                const int i = base + lane;
                const int e = i < n ? t.xx[i] : -1;
                const bool a = e >= 0 && x_adjacent(t, xc, e);
                const u32 ka = __ballot_sync(FULL_MASK, a), kd = __ballot_sync(FULL_MASK, e >= 0 && !a);
                if (a) t.xx[keep + __popc(ka & below)] = e;
                else if (e >= 0) t.xt()[drop + __popc(kd & below)] = e;
                keep += __popc(ka); drop += __popc(kd);
            }
            __syncwarp();
            for (int i = lane; i < drop; i += 32) t.xx[keep + i] = t.xt()[i];
            if (lane == 0) { t.lp[d] = keep; t.npv()[d] = np; }
            __syncwarp();
        } else {
            if (tid == 0) { sh.keep = 0; sh.drop = 0; }
            __syncthreads();
            #pragma unroll 1
            for (int base = 0; base < n; base += blockDim.x) {
                int i = base + tid;
                int e = i < n ? t.xx[i] : -1;
                bool a = e >= 0 && x_adjacent(t, xc, e);
                u32 ka = __ballot_sync(FULL_MASK, a), kd = __ballot_sync(FULL_MASK, e >= 0 && !a);
                int k0 = 0, d0 = 0;
                if (lane == 0) {
                    if (ka) k0 = atomicAdd(&sh.keep, __popc(ka));
                    if (kd) d0 = atomicAdd(&sh.drop, __popc(kd));
                }
                k0 = __shfl_sync(FULL_MASK, k0, 0);
                d0 = __shfl_sync(FULL_MASK, d0, 0);
                if (a) t.xt()[k0 + __popc(ka & below)] = e;
                else if (e >= 0) t.xt()[n - 1 - (d0 + __popc(kd & below))] = e;
            }
            __syncthreads();
            for (int i = tid; i < n; i += blockDim.x) t.xx[i] = t.xt()[i];
            if (tid == 0) { t.lp[d] = sh.keep; t.npv()[d] = np; }
            __syncthreads();
        }
        TOCK(sets, c1);
        if (ask) {
            TICK(c2);
            if (tid == 0) {
                int r = -1;
                if (!sh.st.phase2) sh.st.phase2 = look >= 0;   // from the next branch on
                else if (look > 0 && worth_donating(t, l)) r = wl_pop();
                sh.recv = r;
            }
            __syncthreads();
            const int r = sh.recv;
            if (r >= 0) {
                donate(t, d, r);
                if (tid == 0) sh.st.donated++;
            }
            TOCK(wl, c2);
            if (r >= 0) continue;
        }
        l = d;
        {
            TICK(c3);
            expand(sh, t, l, np);
            TOCK(pivot, c3);
        }
        if (tid == 0) sh.st.nodes++;
    }
}

// Build the root of seed `seed` in this block's buffer. Returns (|P*|, |X*|), or p = -1
// when the seed was finished at the root (P empty: emitted iff X is empty too). Not
// inlined: its registers are not the search's (the main loop needs all 64).
__device__ __noinline__ int2 build_seed(Shared& sh, int seed) {
    const int tid = threadIdx.x, lane = tid & 31;
    const bool ipx = G.flags & FLAG_IPX;
    const int a = G.seed_u[seed], b = G.seed_v[seed];
    const int* Na = G.indices + G.indptr[a];
    const int da = G.indptr[a + 1] - G.indptr[a];
    u32* base = G.buf + (long long)blockIdx.x * G.buf_cap;
    int p, x;
    if (b < 0) {                                   // L1: split N(a) at a
        x = lower_bound(Na, da, a);
        p = da - x;
        if (buffer_words(p, x, ipx) > G.buf_cap) {
            if (tid == 0) atomicOr(G.ctrl + 2, ERR_CAPACITY);
            return make_int2(-1, 0);
        }
        int* ids = (int*)base;
        for (int i = tid; i < da; i += blockDim.x) ids[i < x ? p + i : i - x] = Na[i];
    } else {                                       // L2: N(a) ∩ N(b), split at b (warp 0, in order)
        const int* Nb = G.indices + G.indptr[b];
        const int db = G.indptr[b + 1] - G.indptr[b];
        const int* S = da <= db ? Na : Nb; const int ds = da <= db ? da : db;
        const int* L = da <= db ? Nb : Na; const int dl = da <= db ? db : da;
        if (tid < 32) {
            int cp = 0, cx = 0;
            for (int i0 = 0; i0 < ds; i0 += 32) {   // count first: the layout depends on p and x
                int i = i0 + lane;
                int z = i < ds ? S[i] : -1;
                bool hit = i < ds && z != a && z != b && sorted_contains(L, dl, z);
                cp += __popc(__ballot_sync(FULL_MASK, hit && z > b));
                cx += __popc(__ballot_sync(FULL_MASK, hit && z < b));
            }
            if (lane == 0) { sh.red[0] = cp; sh.red2[0] = cx; }
        }
        __syncthreads();
        p = sh.red[0]; x = sh.red2[0];
        __syncthreads();
        if (buffer_words(p, x, ipx) > G.buf_cap) {
            if (tid == 0) atomicOr(G.ctrl + 2, ERR_CAPACITY);
            return make_int2(-1, 0);
        }
        int* ids = (int*)base;
        if (tid < 32) {
            int cp = 0, cx = 0;
            for (int i0 = 0; i0 < ds; i0 += 32) {
                int i = i0 + lane;
                int z = i < ds ? S[i] : -1;
                bool hit = i < ds && z != a && z != b && sorted_contains(L, dl, z);
                u32 inP = __ballot_sync(FULL_MASK, hit && z > b), inX = __ballot_sync(FULL_MASK, hit && z < b);
                const u32 below = (1u << lane) - 1;
                if ((inP >> lane) & 1) ids[cp + __popc(inP & below)] = z;
                if ((inX >> lane) & 1) ids[p + cx + __popc(inX & below)] = z;
                cp += __popc(inP); cx += __popc(inX);
            }
        }
    }
    if (p == 0) {
        if (tid == 0) {
            sh.st.nodes++;
            if (x == 0) {
                sh.st.count++;
                if (G.flags & FLAG_LIST) {
                    long long at = (long long)atomicAdd(G.list_pos, (u64)(b >= 0 ? 3 : 2));
                    if (at + (b >= 0 ? 3 : 2) > G.list_cap) atomicExch(G.list_overflow, 1);
                    else { G.list[at] = b >= 0 ? 2 : 1; G.list[at + 1] = a; if (b >= 0) G.list[at + 2] = b; }
                }
            }
        }
        return make_int2(-1, 0);
    }
    const Task t = task_at(base, p, x, ipx);
    __syncthreads();
    // rows: one thread per row, merging N(z) with the sorted P* ids
    const int nrows = p + (ipx ? x : 0);
    const int lo_id = t.ids[0], hi_id = t.ids[p - 1];
    if (tid == 0) sh.keep = 0;
    __syncthreads();
    #pragma unroll 1
    for (int r = tid; r < nrows; r += blockDim.x) {
        const int z = t.ids[r];
        const int* Nz = G.indices + G.indptr[z];
        const int dz = G.indptr[z + 1] - G.indptr[z];
        int k = lower_bound(Nz, dz, lo_id);
        const int ke = lower_bound(Nz, dz, hi_id + 1);
        u32* row = t.rows() + (long long)r * t.W;
        u32 seen = 0;
        int j = 0;
        for (int w = 0; w < t.W; ++w) {
            u32 word = 0;
            const int je = min(p, 32 * (w + 1));
            if (ke - k > 4 * (je - j)) {                 // a long list: binary search each column
                for (; j < je; ++j) {
                    int at = k + lower_bound(Nz + k, ke - k, t.ids[j]);
                    if (at < ke && Nz[at] == t.ids[j]) word |= 1u << (j & 31);
                    k = at;
                }
            } else {
                for (; j < je; ++j) {
                    const int target = t.ids[j];
                    while (k < ke && Nz[k] < target) ++k;
                    if (k < ke && Nz[k] == target) word |= 1u << (j & 31);
                }
            }
            row[w] = word;
            seen |= word;
        }
        if (r >= p && seen) t.xx[atomicAdd(&sh.keep, 1)] = r - p;   // X* vertices that see P*
    }
    if (!ipx)
        for (int i = tid; i < x; i += blockDim.x) t.xx[i] = i;
    __syncthreads();
    u32* P0 = P_of(t, 0);
    for (int w = tid; w < t.W; w += blockDim.x) {
        int left = p - w * 32;
        P0[w] = left >= 32 ? FULL_MASK : ((1u << left) - 1);
        P0[t.W + w] = 0;
    }
    if (tid == 0) {
        t.lp[0] = ipx ? sh.keep : x;
        t.npv()[0] = p;
        t.rlen()[0] = b >= 0 ? 2 : 1;
        t.R()[0] = a;
        if (b >= 0) t.R()[1] = b;
    }
    __syncthreads();
    return make_int2(p, x);
}

extern "C" __global__ void __launch_bounds__(32 * MAX_WARPS, MIN_BLOCKS) mcegpu_kernel() {
    __shared__ Shared sh;
    const int tid = threadIdx.x, me = blockIdx.x;
    const bool ipx = G.flags & FLAG_IPX, wl = G.flags & FLAG_WL;
    Stats& st = sh.st;
    if (tid == 0) st = Stats{0, 0, 0, 0, 0, 0, 0, {0, 0, 0, 0}};
    bool queued = false;                     // thread 0: this block is in the worker list
    unsigned backoff = 32;
    u32* const base = G.buf + (long long)me * G.buf_cap;
    for (;;) {
        if (tid == 0) {
            int s = -1;
            if (volatile_load(G.ctrl) < G.n_seeds) {     // phase 1: independent sub-trees
                // Ctrl-C (one load per seed taken): the seeds count as gone, so the blocks with
                // work finish it (donating as in phase 2) and the waiting ones leave as usual.
                if (STOP_CHECK && volatile_load(G.stop)) atomicMax(G.ctrl, G.n_seeds);
                else {
                    atomicAdd(G.ctrl + 1, 1);
                    s = take_next(G.next, G.ctrl, G.n_seeds);
                    if (s >= G.n_seeds) { s = -1; atomicSub(G.ctrl + 1, 1); }
                }
            }
            sh.seed = s;
        }
        __syncthreads();
        const int seed = sh.seed;
        __syncthreads();
        long long t0 = clock64();
        int2 px;
        if (seed >= 0) {
            if (tid == 0) st.seeds++;
            px = build_seed(sh, seed);
#if MCEGPU_PROFILE
            if (tid == 0) st.ck.build += clock64() - t0;
#endif
        } else {
            if (!wl) break;
            // phase 2: wait in the worker list for a donated branch
            if (tid == 0) {
                int got = 0;
                if (!queued) { wl_push(me); queued = true; }
                // poll the own flag; the shared counters (the end test) only every 8th time, so
                // thousands of waiting blocks do not crowd the line the donors' atomics use
                for (unsigned polls = 1;; ++polls) {
                    if (volatile_load(G.flag + me)) { got = 1; break; }
                    if ((polls & 7) == 0 && volatile_load(G.ctrl) >= G.n_seeds && volatile_load(G.ctrl + 1) == 0)
                        break;
                    __nanosleep(backoff);
                    if (backoff < 2048) backoff <<= 1;
                }
                __threadfence();
                sh.recv = got;
            }
            __syncthreads();
            const int got = sh.recv;
            __syncthreads();
            if (!got) break;
            const long long w0 = t0;
            t0 = clock64();
            if (tid == 0) {
#if MCEGPU_PROFILE
                st.ck.wl += t0 - w0;
#endif
                st.received++;
                st.phase2 = 1;
            }
            (void)w0;
            px = make_int2(G.task_info[8 * me], G.task_info[8 * me + 1]);
        }
        if (px.x >= 0) run_task(sh, task_at(base, px.x, px.y, ipx));   // the one call site
        __syncthreads();
        if (tid == 0) {
            if (seed < 0) {
                backoff = 32;
                queued = false;
                atomicExch(G.flag + me, 0);
            }
            __threadfence();
            atomicSub(G.ctrl + 1, 1);
            st.busy += clock64() - t0;
        }
    }
    if (tid == 0) {
        G.block_count[me] = st.count;
        G.block_nodes[me] = st.nodes;
        G.block_cycles[me] = st.busy;
        G.block_seeds[me] = st.seeds;
        G.block_donated[me] = st.donated;
        G.block_received[me] = st.received;
        int sm;
        asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
        G.block_sm[me] = sm;
#if MCEGPU_PROFILE
        u64* ph = G.block_phase + 4 * me;
        ph[0] = st.ck.build; ph[1] = st.ck.pivot; ph[2] = st.ck.sets; ph[3] = st.ck.wl;
#endif
    }
}
