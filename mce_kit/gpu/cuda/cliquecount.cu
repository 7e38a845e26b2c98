// Clique counts for every k at once, without listing: the succinct clique tree
// of Pivoter, one warp per oriented edge task (see mce_kit/cpu/pivot.py, the
// same algorithm on the CPU).
//
// Vertices are renumbered by an orientation order; indices holds every
// neighbour, sorted. Task (u, v), u < v: the cliques whose two earliest
// vertices are u and v live in C = later common neighbours, with undirected
// bitmap rows over C. A tree node (P, h, p) holds h vertices for sure and p
// pivots that may or may not be taken. The warp picks the pivot x of P with
// the most neighbours in P (lanes over candidates, warp arg-max), then
// branches on every w in P \ N(x): w == x adds a pivot, any other w is held.
// A leaf (P empty) adds one to leaves[h * pc + p]; the host turns leaves into
// counts with exact binomials (C(p, j) cliques of size h + j). A branch whose
// held count reaches k_max stops: it is one clique of size k_max.
// Leaf counters are u64: each leaf costs the GPU a tree step, so they cannot wrap.
//
// Split tasks: an edge whose tree would outlast the launch's other work runs as several tasks
// (pieces). Every piece walks the tree's top (same pivots, same order): the shared nodes, those
// with at least max(SPLIT_BIG, SPLIT_PCT% of s) candidates whose parent is shared, the first SPLIT_SHARED
// of them in walk order. A child of a shared node that is not shared itself is entered only by the
// piece whose number is its rank among such children (rank % tps == tp); leaves of shared nodes
// are counted by piece 0 alone. So each leaf is counted exactly once, whatever the rule. (On
// ego-Facebook's heaviest edges the tree is a near-clique chain whose tail and side branches stay
// large deep down: a depth rule left a quarter of the tree in one piece, this rule at 45% about 3%,
// and at 20% its four heaviest edges take 72 ms of the launch instead of 115: cliquecount.py.)

#include "subgraph.cuh"

#define ERR_CAPACITY 1
#define WARPS_PER_BLOCK 4
#define SH_C 1024
#define SPLIT_BIG 40       // split tasks: a shared node has this many candidates at least
#define SPLIT_SHARED 4096  // and is among the first this many shared nodes
#ifndef SPLIT_PCT
#define SPLIT_PCT 20       // a shared node has this share of s (percent) at least
#endif
#ifndef MIN_BLOCKS
#define MIN_BLOCKS 8
#endif

struct Params {            // one launch; fields must match PARAMS in cliquecount.py (a CPU test checks)
    const int* indptr;     // undirected CSR in orientation order, sorted
    const int* indices;
    const int* tasks;      // task t is the edge (tasks[2 t], tasks[2 t + 1]), largest first
    const int* split;      // null, or task t is piece split[t] & 0xffff of split[t] >> 16 of its edge
    const int* stop;       // set by the host on Ctrl-C (gpu/watch.py): take no further task
    u32* work;             // work_cap words per worker
    int* ctrl;             // [0] next task, [1] error flags
    int* next;             // the next task: ctrl[0], or a queue shared by several GPUs (take_next)
    u64* leaves;           // [(k_max + 1) * pc] leaf counts by (held h, pivots p)
    int* worker_tasks;
    u64* worker_nodes;
    u64* task_log;         // null, or per task: start and end (global ns), tree nodes (a timeline)
    long long work_cap;
    int n_tasks;
    int k_max;
    int pc;
    int n_workers;
};

__constant__ Params G;

__shared__ int sh_C[WARPS_PER_BLOCK][SH_C];
__shared__ RowScratch sh_build[WARPS_PER_BLOCK];

__device__ __forceinline__ int round4(int w) { return (w + 3) & ~3; }

__device__ __forceinline__ void leaf(int h, int p, int lane) {
    if (lane == 0) atomicAdd(G.leaves + (long long)h * G.pc + p, 1ull);
}

extern "C" __global__ void __launch_bounds__(32 * WARPS_PER_BLOCK, MIN_BLOCKS) cliquecount_kernel() {
    const int lane = threadIdx.x & 31, wl = threadIdx.x >> 5;
    const int wid = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    if (wid >= G.n_workers) return;
    u32* ws = G.work + (long long)wid * G.work_cap;
    int tasks = 0, last = -1;
    u64 nodes = 0, since = 0, nodes_before = 0;
    #pragma unroll 1
    for (;;) {
        int task = 0;
        if (lane == 0) task = volatile_load(G.stop) ? G.n_tasks : take_next(G.next, G.ctrl, G.n_tasks);
        task = __shfl_sync(FULL_MASK, task, 0);
        if (G.task_log && lane == 0) {
            const u64 now = global_ns();
            if (last >= 0) {
                u64* log = G.task_log + 3LL * last;
                log[0] = since;
                log[1] = now;
                log[2] = nodes - nodes_before;
            }
            since = now;
            nodes_before = nodes;
        }
        last = task;
        if (task >= G.n_tasks) break;
        tasks++;
        const int u = G.tasks[2 * task], v = G.tasks[2 * task + 1];
        int tp = 0, tps = 1;
        if (G.split) {
            tp = G.split[task] & 0xffff;
            tps = G.split[task] >> 16;
        }
        int rank = 0;   // children of shared nodes met so far (the same walk in every piece)
        int shared = tps > 1 ? 1 : 0;   // depths 0 .. shared - 1 of the path are shared nodes
        int n_shared = 1;
        const int* a = G.indices + G.indptr[u];
        const int* b = G.indices + G.indptr[v];
        int na = G.indptr[u + 1] - G.indptr[u], nb = G.indptr[v + 1] - G.indptr[v];
        int sa = lower_bound(a, na, v + 1), sb = lower_bound(b, nb, v + 1);  // later than v only
        a += sa; na -= sa;
        b += sb; nb -= sb;
        int* C = min(na, nb) <= SH_C ? sh_C[wl] : (int*)ws;
        const int s = intersect_sorted(a, na, b, nb, C, lane);
        if (s == 0) {
            if (tp == 0) leaf(2, 0, lane);
            continue;
        }
        const int W = (s + 31) >> 5;
        u32* rows = ws + round4(s);
        u32* lv = rows + (long long)s * W;             // level l: P at lv + 2 W l, B after it
        int* meta = (int*)(lv + 2LL * W * (s + 2));    // level l: h, p, pivot
        if ((long long)((u32*)(meta + 3 * (s + 2)) - ws) > G.work_cap) {
            if (lane == 0) atomicOr(G.ctrl + 1, ERR_CAPACITY);
            continue;
        }
        build_rows(G.indptr, G.indices, C, s, W, rows, false, false, sh_build[wl], lane);
        #pragma unroll 1
        for (int q = lane; q < W; q += 32) lv[q] = q < (s >> 5) ? ~0u : (1u << (s & 31)) - 1;
        if (lane == 0) {
            meta[0] = 2;
            meta[1] = 0;
        }
        __syncwarp();
        int depth = 0;
        bool enter = true;
        #pragma unroll 1
        while (depth >= 0) {
            u32* P = lv + 2LL * W * depth;
            u32* B = P + W;
            if (enter) {
                enter = false;
                if (depth == shared && depth > 0 && rank++ % tps != tp) {  // another piece's node
                    depth--;
                    continue;   // (its parent is shared, so the shared prefix is unchanged)
                }
                nodes++;
                u32 any = 0;
                #pragma unroll 1
                for (int q = lane; q < W; q += 32) any |= P[q];
                if (!__any_sync(FULL_MASK, any != 0)) {
                    if (tp == 0 || depth >= shared) leaf(meta[3 * depth], meta[3 * depth + 1], lane);
                    depth--;
                    shared = min(shared, depth + 1);
                    continue;
                }
                // pivot: the vertex of P with the most neighbours in P
                long long best = -1;
                #pragma unroll 1
                for (int x = lane; x < s; x += 32) {
                    if (!((P[x >> 5] >> (x & 31)) & 1)) continue;
                    const u32* rx = rows + (long long)x * W;
                    int c = 0;
                    #pragma unroll 1
                    for (int q = 0; q < W; q++) c += __popc(P[q] & rx[q]);
                    long long key = ((long long)c << 32) | x;
                    best = key > best ? key : best;
                }
                #pragma unroll
                for (int o = 16; o > 0; o >>= 1) {
                    long long other = __shfl_xor_sync(FULL_MASK, best, o);
                    best = other > best ? other : best;
                }
                const int piv = (int)(best & 0xffffffff);
                const u32* rp = rows + (long long)piv * W;
                #pragma unroll 1
                for (int q = lane; q < W; q += 32) B[q] = P[q] & ~rp[q];
                if (lane == 0) meta[3 * depth + 2] = piv;
                __syncwarp();
            }
            // next branch: the lowest bit of B
            int w = -1;
            #pragma unroll 1
            for (int q0 = 0; q0 < W; q0 += 32) {
                u32 bq = q0 + lane < W ? B[q0 + lane] : 0u;
                u32 m = __ballot_sync(FULL_MASK, bq != 0);
                if (m) {
                    int ql = __ffs(m) - 1;
                    u32 word = __shfl_sync(FULL_MASK, bq, ql);
                    w = (q0 + ql) * 32 + __ffs(word) - 1;
                    break;
                }
            }
            if (w < 0) {
                depth--;
                shared = min(shared, depth + 1);
                continue;
            }
            const int h = meta[3 * depth], p = meta[3 * depth + 1], piv = meta[3 * depth + 2];
            __syncwarp();
            if (lane == 0) B[w >> 5] &= ~(1u << (w & 31));
            if (w != piv && h + 1 >= G.k_max) {
                if (lane == 0) P[w >> 5] &= ~(1u << (w & 31));
                if (tp == 0 || depth >= shared) leaf(h + 1, 0, lane);
                __syncwarp();
                continue;
            }
            u32* Pc = P + 2 * W;
            const u32* rw = rows + (long long)w * W;
            #pragma unroll 1
            for (int q = lane; q < W; q += 32) Pc[q] = P[q] & rw[q];
            __syncwarp();
            if (lane == 0) {
                P[w >> 5] &= ~(1u << (w & 31));
                meta[3 * depth + 3] = w == piv ? h : h + 1;
                meta[3 * depth + 4] = w == piv ? p + 1 : p;
            }
            __syncwarp();
            if (depth == shared - 1 && n_shared < SPLIT_SHARED) {   // a shared parent: is the child?
                int c = 0;
                #pragma unroll 1
                for (int q = lane; q < W; q += 32) c += __popc(Pc[q]);
                #pragma unroll
                for (int o = 16; o > 0; o >>= 1) c += __shfl_xor_sync(FULL_MASK, c, o);
                if (c >= max(SPLIT_BIG, s * SPLIT_PCT / 100)) {
                    shared = depth + 2;
                    n_shared++;
                }
            }
            depth++;
            enter = true;
        }
        __syncwarp();
    }
    if (lane == 0) {
        G.worker_tasks[wid] = tasks;
        G.worker_nodes[wid] = nodes;
    }
}
