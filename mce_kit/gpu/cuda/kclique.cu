// KCMiner-style k-clique counting and listing (after the KCMiner paper; see notebooks/30_kcminer).
//
// Vertices are renumbered by an orientation order (degree or degeneracy), and
// indices holds each vertex's later neighbours, sorted. One warp is one worker;
// a task is an oriented edge (u, v). Its sub-graph is C = N+(u) ∩ N+(v) with
// oriented bitmap rows: row i has bit j (j > i) when C[j] is a later neighbour
// of C[i]. Every k-clique with u, v as its two earliest vertices is then a
// (k-2)-clique of that bitmap graph.
//
// Descent is thread-parallel: the first-level branches i are spread over the
// lanes, and each lane walks its own part of the tree alone (lane_dfs), with
// its bitmaps in a per-lane stack. Switches (Params.flags):
//   FLAG_SCHED    lane scheduling: the second-level tasks (i, j) of all lanes go
//                 through a 64-entry shared queue filled with __ballot_sync /
//                 __popc and fired 32 at a time, so every lane has a task;
//   FLAG_DYNAMIC  dynamic bitmap level: when the density gamma = edges / s^2 of
//                 the edge's bitmap is at most lambda (lam_milli / 1000), the
//                 bitmaps are built one level deeper (per child i, over row i's
//                 bits: shorter and denser);
//   FLAG_SIZE     size specialisation: a bitmap of one word (s <= 32) lives in
//                 shared memory and each lane keeps its stack in registers; the tasks with
//                 the most candidates run on a block each (kclique_block_kernel, FLAG_BLOCK);
//   FLAG_LIST     write every clique (k vertex ids) to list;
//   FLAG_STATS    per-task cycles by density bin and bitmap level (Fig 9);
//   FLAG_BYROW    build the bitmap rows one after the other (else all rows' lists at once,
//                 see build_rows in subgraph.cuh);
//   FLAG_BLOCK    one task per block (the launch of the tasks with the most candidates; the
//                 host sets it for the tasks whose bound exceeds block_min, with FLAG_SIZE).
// Compile-time: KC_ACTIVE_LANES counts __popc(__activemask()) in the lane loops (Fig 8).
//
// Counts: each lane keeps a 128-bit counter (two u64 words, add with carry);
// the warp's sum goes to acc[2 w], acc[2 w + 1] at the end, and is added into total[0..1]
// (atomics with carry), all an answer-only call reads back.
//
// Split tasks: an edge whose sub-tree would outlast the launch's other work runs as several
// tasks (pieces), each taking every tps-th first-level vertex; each piece intersects and builds
// the rows again (cheap beside the sub-tree), so the heaviest edge no longer bounds the launch.

#include "subgraph.cuh"

#define FLAG_SCHED 1
#define FLAG_DYNAMIC 2
#define FLAG_SIZE 4
#define FLAG_LIST 8
#define FLAG_STATS 16
#define FLAG_BYROW 32
#define FLAG_BLOCK 64

#define ERR_CAPACITY 1

#define WARPS_PER_BLOCK 4
#define SH_C 1024          // common-neighbour lists up to this length stay in shared memory
#define KMAX 32            // largest k
#define NBINS 20           // density bins of FLAG_STATS (gamma in steps of 1/NBINS)
#ifndef MIN_BLOCKS
#define MIN_BLOCKS 8
#endif

struct Params {            // one launch; fields must match PARAMS in kclique.py (a CPU test checks)
    const int* indptr;     // oriented CSR: later neighbours, sorted
    const int* indices;
    const int* tasks;      // task t is the oriented edge (tasks[2 t], tasks[2 t + 1]), largest first
    const int* split;      // null, or task t is piece split[t] & 0xffff of split[t] >> 16 of its edge
    const int* stop;       // set by the host on Ctrl-C (gpu/watch.py): take no further task
    u32* work;             // work_cap words per worker
    int* ctrl;             // [0] next task, [1] error flags
    int* next;             // the next task: ctrl[0], or a queue shared by several GPUs (take_next)
    u64* acc;              // per worker: 128-bit count (lo, hi)
    u64* total;            // the launch's 128-bit count (lo, hi), zeroed by the host
    int* worker_tasks;
    u64* worker_cycles;
    u64* bins;             // FLAG_STATS: [level 2/3][NBINS][tasks, cycles]
    u64* active;           // KC_ACTIVE_LANES: [sum of active lanes, samples]
    int* list;             // FLAG_LIST: k ids per clique
    u64* list_pos;
    long long work_cap;
    long long list_cap;
    int n_tasks;
    int k;
    int flags;
    int lam_milli;
    int n_workers;
};

__constant__ Params G;

__shared__ int sh_C[WARPS_PER_BLOCK][SH_C];
__shared__ RowScratch sh_build[WARPS_PER_BLOCK];
__shared__ u32 sh_rows1[WARPS_PER_BLOCK][32];
__shared__ int sh_qi[WARPS_PER_BLOCK][64];
__shared__ int sh_qj[WARPS_PER_BLOCK][64];
__shared__ int sh_block[3];     // FLAG_BLOCK: the block's task, s, edges

__device__ __forceinline__ int round4(int w) { return (w + 3) & ~3; }

__device__ __forceinline__ void sample_active() {
#ifdef KC_ACTIVE_LANES
    u32 m = __activemask();
    if ((int)(threadIdx.x & 31) == __ffs(m) - 1) {
        atomicAdd(G.active, (u64)__popc(m));
        atomicAdd(G.active + 1, 1ull);
    }
#endif
}

// One lane writes one clique (G.k ids).
__device__ __forceinline__ void emit(const int* ids) {
    u64 at = atomicAdd(G.list_pos, (u64)G.k);
    if (at + G.k <= (u64)G.list_cap) {
        #pragma unroll 1
        for (int q = 0; q < G.k; q++) G.list[at + q] = ids[q];
    }
}

// The bitmap graph a warp counts in: s vertices, rows of W words (bits above the row only).
struct Sub {
    const u32* rows;
    const u32* r1;         // the rows in shared memory when W == 1 and FLAG_SIZE, else null
    const int* C;          // vertex ids of the bits (listing)
    int s, W;
    u32* stk;              // this lane's stack: level l, word q at stk[(l * W + q) * 32]
};

// r-cliques (r >= 2) inside the set at stk level 0 (bits >= start only), one lane alone.
template <bool LIST>
__device__ __forceinline__ void lane_dfs(const Sub& g, int r, int start, U128& acc, int* ids, int nid) {
    int pos[KMAX];
    int depth = 0;
    pos[0] = start;
    const int W = g.W;
    #pragma unroll 1
    while (depth >= 0) {
        sample_active();
        u32* L = g.stk + (long long)depth * W * 32;
        int p = pos[depth];
        int w = p >> 5, x = -1;
        if (w < W) {
            u32 b = L[w * 32] & (~0u << (p & 31));
            #pragma unroll 1
            while (!b && ++w < W) b = L[w * 32];
            if (b) x = w * 32 + __ffs(b) - 1;
        }
        if (x < 0) {
            depth--;
            continue;
        }
        pos[depth] = x + 1;
        int rem = r - depth;
        const u32* rx = g.rows + (long long)x * W;
        if (LIST) ids[nid + depth] = g.C[x];
        if (rem == 2) {
            u64 c = 0;
            #pragma unroll 1
            for (int q = x >> 5; q < W; q++) {
                u32 b = L[q * 32] & rx[q];
                if (LIST) {
                    #pragma unroll 1
                    while (b) {
                        ids[nid + depth + 1] = g.C[q * 32 + __ffs(b) - 1];
                        b &= b - 1;
                        emit(ids);
                        c++;
                    }
                } else {
                    c += __popc(b);
                }
            }
            add128(acc, c);
        } else {
            u32* N = L + W * 32;
            int c = 0;
            #pragma unroll 1
            for (int q = x >> 5; q < W; q++) {
                u32 b = L[q * 32] & rx[q];
                N[q * 32] = b;
                c += __popc(b);
            }
            if (c >= rem - 1) {
                depth++;
                pos[depth] = x + 1;
            }
        }
    }
}

// The same for a one-word bitmap in shared memory, the stack in registers/local memory.
__device__ __forceinline__ void lane_dfs1(const u32* r1, u32 P, int r, U128& acc) {
    u32 st[KMAX];
    int depth = 0;
    st[0] = P;
    #pragma unroll 1
    while (depth >= 0) {
        sample_active();
        u32 b = st[depth];
        if (!b) {
            depth--;
            continue;
        }
        int x = __ffs(b) - 1;
        b &= b - 1;
        st[depth] = b;
        u32 nb = b & r1[x];
        int rem = r - depth;
        if (rem == 2) {
            add128(acc, __popc(nb));
        } else if (__popc(nb) >= rem - 1) {
            st[++depth] = nb;
        }
    }
}

// Lane task (i, j), i < j adjacent: count the t-cliques of g that start with i, j.
template <bool LIST>
__device__ __forceinline__ void run_pair(const Sub& g, int i, int j, int t, U128& acc, int* ids) {
    sample_active();
    int r = t - 2;  // vertices still to pick, inside row_i & row_j
    if (!LIST && g.r1) {
        u32 P = g.r1[i] & g.r1[j];
        if (r == 1) add128(acc, __popc(P));
        else lane_dfs1(g.r1, P, r, acc);
        return;
    }
    const int W = g.W;
    const u32* ri = g.rows + (long long)i * W;
    const u32* rj = g.rows + (long long)j * W;
    if (!LIST && r == 1) {
        u64 c = 0;
        #pragma unroll 1
        for (int q = j >> 5; q < W; q++) c += __popc(ri[q] & rj[q]);
        add128(acc, c);
        return;
    }
    if (LIST) {
        ids[2] = g.C[i];
        ids[3] = g.C[j];
    }
    if (LIST && r == 1) {
        #pragma unroll 1
        for (int q = j >> 5; q < W; q++) {
            u32 b = ri[q] & rj[q];
            #pragma unroll 1
            while (b) {
                ids[4] = g.C[q * 32 + __ffs(b) - 1];
                b &= b - 1;
                emit(ids);
                add128(acc, 1);
            }
        }
        return;
    }
    #pragma unroll 1
    for (int q = j >> 5; q < W; q++) g.stk[q * 32] = ri[q] & rj[q];
    lane_dfs<LIST>(g, r, j + 1, acc, ids, 4);
}

// The t-cliques of the bitmap graph g, by the whole warp. When several workers share g (the warps
// of a block, the pieces of a split task), this one takes the first-level vertices piece,
// piece + pieces, ..., 32 at a time (lane l of round r: piece + (32 r + l) * pieces).
template <bool LIST>
__device__ __forceinline__ void count_cliques(const Sub& g, int t, U128& acc, int* ids, int lane, int wl,
                                              int piece, int pieces) {
    const int s = g.s, W = g.W;
    const int first = piece + lane * pieces, step = 32 * pieces;
    if (t == 1) {
        if (LIST) {
            #pragma unroll 1
            for (int i = first; i < s; i += step) {
                ids[2] = g.C[i];
                emit(ids);
            }
        }
        if (lane == 0 && piece == 0) add128(acc, (u64)s);
        return;
    }
    if (t == 2) {
        #pragma unroll 1
        for (int i = first; i < s; i += step) {
            const u32* ri = g.rows + (long long)i * W;
            u64 c = 0;
            #pragma unroll 1
            for (int q = i >> 5; q < W; q++) {
                u32 b = ri[q];
                c += __popc(b);
                if (LIST) {
                    ids[2] = g.C[i];
                    #pragma unroll 1
                    while (b) {
                        ids[3] = g.C[q * 32 + __ffs(b) - 1];
                        b &= b - 1;
                        emit(ids);
                    }
                }
            }
            add128(acc, c);
        }
        return;
    }
    if (!(G.flags & FLAG_SCHED)) {
        // thread-parallel only: lane i walks its own branch, every j of row i in turn
        #pragma unroll 1
        for (int i = first; i < s; i += step) {
            const u32* ri = g.rows + (long long)i * W;
            #pragma unroll 1
            for (int q = i >> 5; q < W; q++) {
                u32 b = g.r1 ? g.r1[i] : ri[q];
                #pragma unroll 1
                while (b) {
                    int j = q * 32 + __ffs(b) - 1;
                    b &= b - 1;
                    run_pair<LIST>(g, i, j, t, acc, ids);
                }
            }
        }
        __syncwarp();
        return;
    }
    // lane scheduling: a 64-entry queue (two halves of 32) of (i, j) tasks, fired 32 at a time
    int* qi = sh_qi[wl];
    int* qj = sh_qj[wl];
    int head = 0, tail = 0;
    #pragma unroll 1
    for (int base = piece; base < s; base += step) {  // base: lane 0's vertex, the round's lowest
        int i = base + lane * pieces;
        bool valid = i < s;
        #pragma unroll 1
        for (int q = base >> 5; q < W; q++) {
            u32 b = !valid ? 0u : g.r1 ? g.r1[i] : g.rows[(long long)i * W + q];
            #pragma unroll 1
            while (__any_sync(FULL_MASK, b != 0)) {
                bool has = b != 0;
                int j = q * 32 + __ffs(b) - 1;
                b &= b - 1;
                u32 m = __ballot_sync(FULL_MASK, has);
                if (has) {
                    int slot = (tail + __popc(m & lanemask_lt())) & 63;
                    qi[slot] = i;
                    qj[slot] = j;
                }
                tail += __popc(m);
                __syncwarp();
                if (tail - head >= 32) {
                    int slot = (head + lane) & 63;
                    run_pair<LIST>(g, qi[slot], qj[slot], t, acc, ids);
                    head += 32;
                    __syncwarp();
                }
            }
        }
    }
    if (lane < tail - head) {
        int slot = (head + lane) & 63;
        run_pair<LIST>(g, qi[slot], qj[slot], t, acc, ids);
    }
    __syncwarp();
}

// One worker: a warp (BLOCK false) or a block of WARPS_PER_BLOCK warps sharing each task (BLOCK
// true, FLAG_BLOCK: the tasks with the most candidates, size specialisation). On a block, warp 0
// intersects, the warps build the bitmap rows 32 at a time in turn, and split the first-level
// vertices (or, with the bitmap one level deeper, the children) the same way; each warp has its
// own sub-bitmap, index list and lane stacks. Every branch on s, k or edges is uniform over the
// block, so the __syncthreads() below are reached by all its threads.
template <bool LIST, bool BLOCK>
__device__ __forceinline__ void kclique_worker() {
    const int lane = threadIdx.x & 31, wl = threadIdx.x >> 5;
    const int wid = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const int worker = BLOCK ? blockIdx.x : wid;
    const int part = BLOCK ? wl : 0, parts = BLOCK ? WARPS_PER_BLOCK : 1;
    if (worker >= G.n_workers) return;
    const int k = G.k;
    u32* ws = G.work + (long long)worker * G.work_cap;
    U128 acc = {0, 0};
    int ids[KMAX];
    int tasks = 0;
    u64 cycles = 0;
    #pragma unroll 1
    for (;;) {
        int task = 0;
        if (BLOCK) {
            if (threadIdx.x == 0) sh_block[0] = volatile_load(G.stop) ? G.n_tasks : take_next(G.next, G.ctrl, G.n_tasks);
            __syncthreads();
            task = sh_block[0];
        } else {
            if (lane == 0) task = volatile_load(G.stop) ? G.n_tasks : take_next(G.next, G.ctrl, G.n_tasks);
            task = __shfl_sync(FULL_MASK, task, 0);
        }
        if (task >= G.n_tasks) break;
        long long t0 = clock64();
        tasks += part == 0;
        const int u = G.tasks[2 * task], v = G.tasks[2 * task + 1];
        // a split task takes every tps-th first-level vertex from tp on (its warps share that again)
        int tp = 0, tps = 1;
        if (G.split) {
            tp = G.split[task] & 0xffff;
            tps = G.split[task] >> 16;
        }
        const int piece = tp * parts + part, pieces = tps * parts;
        const int* a = G.indices + G.indptr[u];
        const int* b = G.indices + G.indptr[v];
        int na = G.indptr[u + 1] - G.indptr[u], nb = G.indptr[v + 1] - G.indptr[v];
        int* C = !BLOCK && min(na, nb) <= SH_C ? sh_C[wl] : (int*)ws;
        int s;
        if (BLOCK) {
            if (wl == 0) {
                s = intersect_sorted(a, na, b, nb, C, lane);
                if (lane == 0) {
                    sh_block[1] = s;
                    sh_block[2] = 0;
                }
            }
            __syncthreads();
            s = sh_block[1];
        } else {
            s = intersect_sorted(a, na, b, nb, C, lane);
        }
        if (LIST) {
            ids[0] = u;
            ids[1] = v;
        }
        if (s < k - 2) continue;
        const int W = (s + 31) >> 5;
        u32* rows = ws + round4(s);
        const long long mine = (long long)s * W + round4(s) + 32LL * max(1, k - 4) * W;  // per warp
        u32* sub = rows + (long long)s * W + part * mine;
        int* li = (int*)(sub + (long long)s * W);
        u32* stk = (u32*)(li + round4(s));
        long long end = (rows - ws) + (long long)s * W + parts * mine;
        if (end > G.work_cap) {
            if (lane == 0) atomicOr(G.ctrl + 1, ERR_CAPACITY);
            continue;
        }
        if (!LIST && k == 3) {
            if (lane == 0 && piece == 0) add128(acc, (u64)s);
            continue;
        }
        int edges = build_rows(G.indptr, G.indices, C, s, W, rows, true, G.flags & FLAG_BYROW,
                               sh_build[wl], lane, part, parts);
        if (!LIST && k == 4) {
            if (lane == 0 && tp == 0) add128(acc, (u64)edges);  // this warp's rows
            continue;
        }
        if (BLOCK) {  // every warp's rows written and seen; the total edge count
            if (lane == 0) atomicAdd(sh_block + 2, edges);
            __syncthreads();
            edges = sh_block[2];
        }
        Sub g;
        g.C = C;
        g.stk = stk + lane;
        bool level3 = !LIST && k >= 5 && (G.flags & FLAG_DYNAMIC)
                      && (long long)edges * 1000 <= (long long)G.lam_milli * s * s;
        if (!level3) {
            g.rows = rows;
            g.s = s;
            g.W = W;
            g.r1 = nullptr;
            if (!LIST && W == 1 && (G.flags & FLAG_SIZE)) {
                sh_rows1[wl][lane] = lane < s ? rows[lane] : 0u;
                __syncwarp();
                g.r1 = sh_rows1[wl];
            }
            count_cliques<LIST>(g, k - 2, acc, ids, lane, wl, piece, pieces);
        } else {
            // bitmaps one level deeper: for each child i, the graph on row i's bits
            #pragma unroll 1
            for (int i = piece; i < s; i += pieces) {
                const u32* ri = rows + (long long)i * W;
                int si = 0;
                #pragma unroll 1
                for (int q = i >> 5; q < W; q++) {
                    u32 bq = ri[q];
                    if ((bq >> lane) & 1) li[si + __popc(bq & lanemask_lt())] = q * 32 + lane;
                    si += __popc(bq);
                }
                __syncwarp();
                if (si < k - 3) continue;
                const int Wi = (si + 31) >> 5;
                #pragma unroll 1
                for (int x = 0; x < si; x++) {
                    const u32* rx = rows + (long long)li[x] * W;
                    #pragma unroll 1
                    for (int q = x >> 5; q < Wi; q++) {
                        int y = q * 32 + lane;
                        bool in = y > x && y < si && ((rx[li[y] >> 5] >> (li[y] & 31)) & 1);
                        u32 m = __ballot_sync(FULL_MASK, in);
                        if (lane == 0) sub[(long long)x * Wi + q] = m;
                    }
                }
                __syncwarp();
                g.rows = sub;
                g.s = si;
                g.W = Wi;
                g.r1 = nullptr;
                if (Wi == 1 && (G.flags & FLAG_SIZE)) {
                    sh_rows1[wl][lane] = lane < si ? sub[lane] : 0u;
                    __syncwarp();
                    g.r1 = sh_rows1[wl];
                }
                count_cliques<false>(g, k - 3, acc, ids, lane, wl, 0, 1);
                __syncwarp();
            }
        }
        __syncwarp();
        if (G.flags & FLAG_STATS) {
            u64 dt = (u64)(clock64() - t0);
            cycles += dt;
            if (lane == 0 && piece == 0 && k >= 5) {
                int bin = min(NBINS - 1, (int)((long long)edges * NBINS / ((long long)s * s)));
                u64* at = G.bins + 2 * ((level3 ? NBINS : 0) + bin);
                atomicAdd(at, 1ull);
                atomicAdd(at + 1, dt);
            }
        }
    }
    U128 tot = warp_sum128(acc);
    if (lane == 0) {
        G.acc[2 * wid] = tot.lo;
        G.acc[2 * wid + 1] = tot.hi;
        const u64 before = atomicAdd(G.total, tot.lo);
        const u64 carry = before + tot.lo < before;   // the low word wrapped
        if (tot.hi + carry) atomicAdd(G.total + 1, tot.hi + carry);
        G.worker_tasks[wid] = tasks;
        G.worker_cycles[wid] = cycles;
    }
}

extern "C" __global__ void __launch_bounds__(32 * WARPS_PER_BLOCK, MIN_BLOCKS) kclique_kernel() {
    if (G.flags & FLAG_LIST) kclique_worker<true, false>();
    else kclique_worker<false, false>();
}

// The same with a block per task (FLAG_BLOCK); a kernel of its own so the warp kernel keeps its registers.
extern "C" __global__ void __launch_bounds__(32 * WARPS_PER_BLOCK, MIN_BLOCKS) kclique_block_kernel() {
    if (G.flags & FLAG_LIST) kclique_worker<true, true>();
    else kclique_worker<false, true>();
}

// |N+(u) ∩ N+(v)| of task t = (tasks[2 t], tasks[2 t + 1]), one thread per task (sorted lists,
// binary search of the shorter in the longer): the candidates a split is sized by.
extern "C" __global__ void common_sizes(const int* indptr, const int* indices, const int* tasks, int n,
                                        int* out) {
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    const int u = tasks[2 * t], v = tasks[2 * t + 1];
    const int* a = indices + indptr[u];
    const int* b = indices + indptr[v];
    int na = indptr[u + 1] - indptr[u], nb = indptr[v + 1] - indptr[v];
    if (na > nb) {
        const int* c = a; a = b; b = c;
        const int m = na; na = nb; nb = m;
    }
    int count = 0, lo = 0;
    #pragma unroll 1
    for (int i = 0; i < na; i++) {   // a rising: each search starts where the last one ended
        const int x = a[i];
        int hi = nb;
        #pragma unroll 1
        while (lo < hi) {
            const int mid = (lo + hi) >> 1;
            if (b[mid] < x) lo = mid + 1;
            else hi = mid;
        }
        count += lo < nb && b[lo] == x;
    }
    out[t] = count;
}
