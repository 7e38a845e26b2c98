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

#include "common.cuh"

#define FLAG_EXPOSE 1
#define FLAG_AGGRESSIVE 2
#define FLAG_LIST 4

#define ERR_CAPACITY 1

struct Task {           // the sub-graph a task runs on (the seed's origin worker)
    const u32* rows;    // row stride Wr = W rounded up to 4 words (16-byte loads)
    const u32* colx;
    const int* pids;    // global ids of P's vertices
    int origin, p, xn, W, Wr, Wx;
};

__device__ __forceinline__ int round4(int w) { return (w + 3) & ~3; }

#define WARPS_PER_BLOCK 4
#define PCACHE 64      // words of P kept in shared memory per warp

struct Stack {          // a worker's own DFS stack
    u32* lv;            // levels, stride S words: P | XP | VP | XX
    int* rlen;          // |R| at each level
    int* mode;          // 1 once a level has been exposed (frozen)
    int* R;             // clique vertices (listing mode)
    u32* pc;            // shared-memory copy of P (PCACHE words)
    u32* ac;            // shared-memory aggressive set A (PCACHE words)
    int S;
};

__device__ __forceinline__ int level_stride(int W, int Wx) { return 3 * W + Wx; }
__device__ __forceinline__ int depth_cap(int p) { return p + 2; }

__device__ __forceinline__ Stack stack_at(u32* base, int p, int W, int Wx, u32* pc) {
    Stack s;
    s.pc = pc;
    s.ac = pc + PCACHE;
    s.S = level_stride(W, Wx);
    s.lv = base;
    s.rlen = (int*)(base + (long long)depth_cap(p) * s.S);
    s.mode = s.rlen + depth_cap(p);
    s.R = s.mode + depth_cap(p);
    return s;
}

__device__ __forceinline__ u32* P_of(const Stack& s, int l) { return s.lv + (long long)l * s.S; }

struct Out {            // where results go
    u64 count, nodes;
    int* list;          // listing: [size, v...] records
    long long list_cap;
    u64* list_pos;
    int* list_overflow;
};

// Record R (R[0..r)) as a maximal clique.
__device__ void emit(Out& o, const int* R, int r, int flags, int lane) {
    if (lane == 0) o.count++;
    if (!(flags & FLAG_LIST)) return;
    long long at = 0;
    if (lane == 0) at = (long long)atomicAdd(o.list_pos, (u64)(r + 1));
    at = __shfl_sync(FULL_MASK, at, 0);
    if (at + r + 1 > o.list_cap) {
        if (lane == 0) atomicExch(o.list_overflow, 1);
        return;
    }
    if (lane == 0) o.list[at] = r;
    for (int i = lane; i < r; i += 32) o.list[at + 1 + i] = R[i];
}

__device__ __forceinline__ int bm_count(const u32* a, int W, int lane) {
    int c = 0;
    for (int w = lane; w < W; w += 32) c += __popc(a[w]);
    return warp_sum(c);
}

__device__ __forceinline__ bool bm_any(const u32* a, int W, int lane) {
    u32 o = 0;
    for (int w = lane; w < W; w += 32) o |= a[w];
    return __any_sync(FULL_MASK, o != 0);
}

// |P ∩ N(u)| for the row of local vertex u.
// P is the 16-byte aligned shared-memory copy, zero-padded to Wr words.
__device__ __forceinline__ int row_hits(const Task& t, const u32* P, int u) {
    const uint4* r = (const uint4*)(t.rows + (long long)u * t.Wr);
    const uint4* q = (const uint4*)P;
    int c = 0;
    for (int w = 0; w < (t.Wr >> 2); ++w) {
        uint4 a = r[w], b = q[w];
        c += __popc(a.x & b.x) + __popc(a.y & b.y) + __popc(a.z & b.z) + __popc(a.w & b.w);
    }
    return c;
}

__device__ __forceinline__ int row_hits_global(const Task& t, const u32* P, int u) {
    const u32* r = t.rows + (long long)u * t.Wr;
    int c = 0;
    for (int w = 0; w < t.W; ++w) c += __popc(P[w] & r[w]);
    return c;
}

// Pivot scan state: candidates are packed 32 at a time, one per lane, so
// every lane counts a row even when the bitmaps are sparse.
struct Scan {
    int np;             // |P|
    int best_c, best_u; // this lane's best pivot so far
    bool pruned;        // an excluded vertex sees all of P
    int fill, u;        // batch fill level; this lane's candidate (-1: none)
    bool in_p;
};

__device__ __forceinline__ void scan_batch(const Task& t, const u32* Pc, bool cached, u32* A, Scan& sc, int lane) {
    int c = -1;
    if (sc.u >= 0) c = cached ? row_hits(t, Pc, sc.u) : row_hits_global(t, Pc, sc.u);
    if (__any_sync(FULL_MASK, !sc.in_p && c == sc.np)) sc.pruned = true;
    if (A && sc.in_p && c == sc.np - 1) atomicOr(A + (sc.u >> 5), 1u << (sc.u & 31));
    if (c > sc.best_c) { sc.best_c = c; sc.best_u = sc.u; }
    sc.fill = 0;
    sc.u = -1;
}

// Feed the set bits of word k of a candidate bitmap (vertex ids base + bit).
__device__ __forceinline__ void scan_word(const Task& t, const u32* Pc, bool cached, u32* A, Scan& sc,
                                          u32 cand, int base, u32 pmask, int lane) {
    while (cand) {
        int nb = __popc(cand), take = nb < 32 - sc.fill ? nb : 32 - sc.fill;
        int r = lane - sc.fill;
        if (r >= 0 && r < take) {
            int pos = __fns(cand, 0, r + 1);
            sc.u = base + pos;
            sc.in_p = (pmask >> pos) & 1;
        }
        cand = take == nb ? 0u : cand & ~((1u << __fns(cand, 0, take + 1)) - 1);
        sc.fill += take;
        if (sc.fill == 32) scan_batch(t, Pc, cached, A, sc, lane);
    }
}

// Pivot choice, pruning and aggressive node generation for the node at
// level l, whose P, XP, XX and R are set. Returns true when it has branches
// (VP written), false when it was a leaf (emitted if maximal) or pruned.
__device__ __forceinline__ bool expand(const Task& t, Stack& s, int l, int flags, Out& o, int lane) {
    u32* P = P_of(s, l);
    u32* XP = P + t.W;
    u32* VP = XP + t.W;
    u32* XX = VP + t.W;
    const bool cached = t.Wr <= PCACHE;            // P (and A) in shared memory when they fit
    bool aggressive = (flags & FLAG_AGGRESSIVE) && cached;
    o.nodes += (lane == 0);
    for (;;) {
        const u32* Pc = P;
        if (cached) {
            for (int w = lane; w < t.Wr; w += 32) { s.pc[w] = w < t.W ? P[w] : 0u; s.ac[w] = 0u; }
            __syncwarp();
            Pc = s.pc;
        }
        Scan sc;
        sc.np = bm_count(Pc, t.W, lane);
        if (sc.np == 0) {
            if (!bm_any(XP, t.W, lane) && !bm_any(XX, t.Wx, lane)) emit(o, s.R, s.rlen[l], flags, lane);
            return false;
        }
        sc.best_c = -1; sc.best_u = 0; sc.pruned = false; sc.fill = 0; sc.u = -1; sc.in_p = false;
        u32* A = aggressive ? s.ac : nullptr;
        for (int w0 = 0; w0 < t.W; w0 += 32) {          // candidates in P ∪ XP
            int w = w0 + lane;
            u32 mine = w < t.W ? (Pc[w] | XP[w]) : 0u;
            u32 nz = __ballot_sync(FULL_MASK, mine != 0);
            while (nz) {
                int j = __ffs(nz) - 1;
                nz &= nz - 1;
                scan_word(t, Pc, cached, A, sc, __shfl_sync(FULL_MASK, mine, j), (w0 + j) * 32, Pc[w0 + j], lane);
            }
        }
        for (int w0 = 0; w0 < t.Wx; w0 += 32) {         // candidates in XX
            int w = w0 + lane;
            u32 mine = w < t.Wx ? XX[w] : 0u;
            u32 nz = __ballot_sync(FULL_MASK, mine != 0);
            while (nz && !sc.pruned) {
                int j = __ffs(nz) - 1;
                nz &= nz - 1;
                scan_word(t, Pc, cached, A, sc, __shfl_sync(FULL_MASK, mine, j), t.p + (w0 + j) * 32, 0u, lane);
            }
        }
        if (sc.fill) scan_batch(t, Pc, cached, A, sc, lane);
        if (sc.pruned) return false;
        __syncwarp();
        if (aggressive && bm_any(s.ac, t.W, lane)) {
            // Every a in A is adjacent to the rest of P: move A into R at once.
            int r = s.rlen[l];
            for (int k = 0; k < t.W; ++k) {
                u32 a = s.ac[k];
                while (a) {
                    int v = k * 32 + __ffs(a) - 1;
                    a &= a - 1;
                    const u32* rv = t.rows + (long long)v * t.Wr;
                    const u32* cv = t.colx + (long long)v * t.Wx;
                    for (int w = lane; w < t.W; w += 32) XP[w] &= rv[w];
                    for (int w = lane; w < t.Wx; w += 32) XX[w] &= cv[w];
                    if ((flags & FLAG_LIST) && lane == 0) s.R[r] = t.pids[v];
                    r++;
                }
            }
            for (int w = lane; w < t.W; w += 32) P[w] &= ~s.ac[w];
            if (lane == 0) s.rlen[l] = r;
            __syncwarp();
            aggressive = false;  // removing A creates no new such vertex
            continue;
        }
        int best_c = sc.best_c, best_u = sc.best_u;
        for (int off = 16; off > 0; off >>= 1) {
            int oc = __shfl_xor_sync(FULL_MASK, best_c, off);
            int ou = __shfl_xor_sync(FULL_MASK, best_u, off);
            if (oc > best_c || (oc == best_c && ou < best_u)) { best_c = oc; best_u = ou; }
        }
        const u32* rp = t.rows + (long long)best_u * t.Wr;
        for (int w = lane; w < t.W; w += 32) VP[w] = Pc[w] & ~rp[w];
        __syncwarp();
        return true;
    }
}

enum { CHILD_MAXIMAL = 0, CHILD_NOT_MAXIMAL = 1, CHILD_INNER = 2 };

// Child of node `src` (a level, possibly another worker's) on branch v.
// Vertices in q (the branches ranked before v at a frozen level) move from
// P to X first. A child with an empty P is a leaf and is not written; one
// with candidates is written to level dst of stack s.
__device__ int make_child(const Task& t, const u32* src, int v, int qw, u32 qbits, Stack& s, int dst, int lane) {
    const u32* sP = src;
    const u32* sXP = src + t.W;
    const u32* sVP = sXP + t.W;
    const u32* sXX = sVP + t.W;
    const u32* rv = t.rows + (long long)v * t.Wr;
    const u32* cv = t.colx + (long long)v * t.Wx;
    u32 any = 0;
    for (int w = lane; w < t.W; w += 32) {
        u32 q = w < qw ? sVP[w] : (w == qw ? (sVP[w] & qbits) : 0u);
        any |= (sP[w] & ~q) & rv[w];
    }
    if (!__any_sync(FULL_MASK, any)) {
        u32 x = 0;
        for (int w = lane; w < t.W; w += 32) {
            u32 q = w < qw ? sVP[w] : (w == qw ? (sVP[w] & qbits) : 0u);
            x |= (sXP[w] | q) & rv[w];
        }
        for (int w = lane; w < t.Wx; w += 32) {
            u32 xx = sXX[w];
            if (xx) x |= xx & cv[w];
        }
        return __any_sync(FULL_MASK, x) ? CHILD_NOT_MAXIMAL : CHILD_MAXIMAL;
    }
    u32* P = P_of(s, dst);
    u32* XP = P + t.W;
    u32* XX = XP + 2 * t.W;
    for (int w = lane; w < t.W; w += 32) {
        u32 q = w < qw ? sVP[w] : (w == qw ? (sVP[w] & qbits) : 0u);
        P[w] = (sP[w] & ~q) & rv[w];
        XP[w] = (sXP[w] | q) & rv[w];
    }
    for (int w = lane; w < t.Wx; w += 32) {
        u32 xx = sXX[w];
        XX[w] = xx ? xx & cv[w] : 0u;
    }
    __syncwarp();
    return CHILD_INNER;
}

// Position (word, bit) of the set bit of rank idx (0-based, ascending) in VP.
__device__ int nth_set_bit(const u32* VP, int W, int idx, int lane) {
    int base = 0;
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
__device__ long long claim(u64* expo, int v) {
    u64 w = volatile_load(expo + v);
    for (;;) {
        u32 cnt = (u32)w;
        if (cnt == 0) return -1;
        u64 old = atomicCAS(expo + v, w, w - 1);
        if (old == w) return (long long)(((w >> 32) << 32) | (u64)(cnt - 1));
        w = old;
    }
}

struct Shared {         // global bookkeeping, one entry per worker where indexed
    const int* indptr;
    const int* indices;
    const int* seed_u;
    const int* seed_v;  // -1 for vertex seeds
    int n_seeds;
    u32* rows_buf;
    long long rows_cap;
    u32* stack_buf;
    long long stack_cap;
    u64* expo;
    int* copying;
    int* rows_users;
    int* task_info;     // 8 ints per worker: origin, p, xn, W, Wx
    int* ctrl;          // [0] next seed, [1] active tasks, [2] error flags
    int tau, flags, n_workers;
};

__device__ __forceinline__ Task task_of(const Shared& g, int origin, int p, int xn, int W, int Wx) {
    Task t;
    t.origin = origin; t.p = p; t.xn = xn; t.W = W; t.Wr = round4(W); t.Wx = Wx;
    u32* base = g.rows_buf + (long long)origin * g.rows_cap;
    t.pids = (const int*)base;
    t.rows = base + round4(p);
    t.colx = t.rows + (long long)(p + xn) * t.Wr;
    return t;
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

// Build the root of a seed in this worker's buffers. Returns false when the
// seed was finished without a task (no P: emitted or not maximal).
__device__ __noinline__ bool build_seed(const Shared& g, int me, int seed, Task& t, Stack& s, Out& o, int lane) {
    int a = g.seed_u[seed], b = g.seed_v[seed];
    const int* Na = g.indices + g.indptr[a];
    int da = g.indptr[a + 1] - g.indptr[a];
    u32* rbase = g.rows_buf + (long long)me * g.rows_cap;
    u32* sbase = g.stack_buf + (long long)me * g.stack_cap;
    int* pids = (int*)rbase;
    int* xids = (int*)sbase;  // scratch until level 0 is written
    int p = 0, x = 0, last = b >= 0 ? b : a;
    if (b < 0) {                                   // vertex seed: split N(a) at a
        int split = lower_bound(Na, da, a);
        for (int i = lane; i < da; i += 32) {
            int z = Na[i];
            if (i < split) xids[i] = z; else pids[i - split] = z;
        }
        x = split; p = da - split;
    } else {                                       // edge seed: N(a) ∩ N(b), split at b
        const int* Nb = g.indices + g.indptr[b];
        int db = g.indptr[b + 1] - g.indptr[b];
        const int* S = da <= db ? Na : Nb; int ds = da <= db ? da : db;
        const int* L = da <= db ? Nb : Na; int dl = da <= db ? db : da;
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
    if (rows_words(p, x) > g.rows_cap || stack_words(p, x) > g.stack_cap) {
        if (lane == 0) atomicOr(g.ctrl + 2, ERR_CAPACITY);
        return false;
    }
    __syncwarp();
    if (p == 0) {                                  // R = seed is maximal iff X is empty
        if (x == 0) {
            int r[2] = {a, b};
            emit(o, r, b >= 0 ? 2 : 1, g.flags, lane);
        }
        return false;
    }
    int W = (p + 31) / 32, Wr = round4(W);
    u32* rows = rbase + round4(p);
    // P rows, then rows of X vertices that see P (the others never matter).
    int xn = 0;
    for (int i = 0; i < p + x; ++i) {
        int z = i < p ? pids[i] : xids[i - p];
        const int* Nz = g.indices + g.indptr[z];
        int dz = g.indptr[z + 1] - g.indptr[z];
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
    t = task_of(g, me, p, xn, W, Wx);
    s = stack_at(sbase, p, W, Wx, s.pc);
    u32* P0 = P_of(s, 0);
    for (int w = lane; w < W; w += 32) {
        int left = p - w * 32;
        P0[w] = left >= 32 ? FULL_MASK : ((1u << left) - 1);
        P0[W + w] = 0;
    }
    for (int w = lane; w < Wx; w += 32) {
        int left = xn - w * 32;
        P0[3 * W + w] = left >= 32 ? FULL_MASK : ((1u << left) - 1);
    }
    if (lane == 0) {
        s.rlen[0] = b >= 0 ? 2 : 1;
        s.mode[0] = 0;
        s.R[0] = a;
        if (b >= 0) s.R[1] = b;
    }
    __syncwarp();
    return true;
}

__device__ void publish_task(const Shared& g, int me, const Task& t) {
    int* ti = g.task_info + 8 * me;
    ti[0] = t.origin; ti[1] = t.p; ti[2] = t.xn; ti[3] = t.W; ti[4] = t.Wx;
}

// Find the shallowest private level in [lo, l] with |P| > tau and branches
// left, freeze it and publish it. Called when nothing is exposed.
__device__ int expose(const Shared& g, int me, const Task& t, Stack& s, int& lo, int& frozen_hi, int l, int lane) {
    for (int L = lo; L <= l; ++L) {
        if (s.mode[L]) continue;
        const u32* P = P_of(s, L);
        if (bm_count(P, t.W, lane) <= g.tau) continue;
        int nv = bm_count(P + 2 * t.W, t.W, lane);
        if (nv == 0) continue;
        if (lane == 0) s.mode[L] = 1;
        if (L > frozen_hi) frozen_hi = L;
        __threadfence();
        __syncwarp();
        if (lane == 0) atomicExch(g.expo + me, ((u64)L << 32) | (u64)nv);
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

// Depth-first search of a task whose root, at level 0, is set but not yet
// expanded. Kept out of line so the hot loop stays one compact piece of code.
__device__ __noinline__ void run_task(const Shared& g, int me, const Task t, Stack s, Out* out, int lane) {
    Out o = *out;                                         // counters stay in registers
    const bool expo_on = g.flags & FLAG_EXPOSE;
    int l = -1, c = 0, xptr = -1, lo = 0, frozen_hi = -1;  // c: a new node waiting to be expanded
    unsigned tick = 0;
    for (;;) {
        if (c >= 0) {
            if (expand(t, s, c, g.flags, o, lane)) { l = c; if (lo > c) lo = c; }
            c = -1;
            if (expo_on && (xptr < 0 || (++tick & 15) == 0)) {
                if (xptr >= 0) {
                    u64 w = 0;
                    if (lane == 0) w = volatile_load(g.expo + me);
                    w = __shfl_sync(FULL_MASK, w, 0);
                    if ((u32)w == 0 && xptr != l) xptr = -1;  // exhausted; its level stays frozen
                }
                if (xptr < 0 && lo <= l) xptr = expose(g, me, t, s, lo, frozen_hi, l, lane);
            }
        }
        if (l < 0) break;
        u32* Lv = P_of(s, l);
        u32* VP = Lv + 2 * t.W;
        int v, qw = -1;
        u32 qbits = 0;
        if (l == xptr) {                                  // exposed: claim like a thief
            long long cl = 0;
            if (lane == 0) cl = claim(g.expo, me);
            cl = __shfl_sync(FULL_MASK, cl, 0);
            if (cl < 0) { wait_zero(g.copying + me); xptr = -1; --l; continue; }
            v = nth_set_bit(VP, t.W, (int)(cl & 0xffffffffll), lane);
            qw = v >> 5; qbits = (1u << (v & 31)) - 1;
        } else if (l <= frozen_hi && s.mode[l]) {         // exposed earlier, all claimed
            --l; continue;
        } else {                                          // private: take the lowest branch
            int k = -1;
            for (int w0 = 0; w0 < t.W && k < 0; w0 += 32) {
                u32 hit = __ballot_sync(FULL_MASK, w0 + lane < t.W && VP[w0 + lane] != 0);
                if (hit) k = w0 + __ffs(hit) - 1;
            }
            if (k < 0) { --l; continue; }
            v = k * 32 + __ffs(VP[k]) - 1;
        }
        int d = l + 1;
        if (d <= frozen_hi && s.mode[d]) wait_zero(g.copying + me);  // reusing a frozen level
        int r = s.rlen[l];
        if (lane == 0) {
            s.rlen[d] = r + 1;
            if (g.flags & FLAG_LIST) s.R[r] = t.pids[v];
        }
        int kind = make_child(t, Lv, v, qw, qbits, s, d, lane);
        if (qw < 0 && lane == 0) {                        // private: v moves from P to X
            u32 bit = 1u << (v & 31);
            VP[v >> 5] &= ~bit; Lv[v >> 5] &= ~bit; Lv[t.W + (v >> 5)] |= bit;
        }
        if (kind == CHILD_INNER && lane == 0) s.mode[d] = 0;  // stale flags may remain from older tasks
        __syncwarp();
        if (kind == CHILD_INNER) {
            c = d;
        } else {
            o.nodes += (lane == 0);
            if (kind == CHILD_MAXIMAL) emit(o, s.R, r + 1, g.flags, lane);
        }
    }
    *out = o;
}

// Pull a branch from some worker's exposed level into our level 0. Returns
// -1 when nothing was pulled, else the kind of the child (see make_child).
__device__ __noinline__ int steal(const Shared& g, int me, Task& t, Stack& s, Out& o, int lane, int& start, u32* pc) {
    int victim = -1;
    long long c = -1;
    if (lane == 0) {
        for (int i = 0; i < g.n_workers && victim < 0; ++i) {
            int v = (start + i) % g.n_workers;
            if (v == me || (u32)volatile_load(g.expo + v) == 0) continue;
            atomicAdd(g.copying + v, 1);
            __threadfence();
            c = claim(g.expo, v);
            if (c >= 0) { victim = v; atomicAdd(g.ctrl + 1, 1); }
            else atomicSub(g.copying + v, 1);
        }
        if (victim >= 0) start = victim;
    }
    victim = __shfl_sync(FULL_MASK, victim, 0);
    if (victim < 0) return -1;
    c = __shfl_sync(FULL_MASK, c, 0);
    __threadfence();
    const int* ti = g.task_info + 8 * victim;
    t = task_of(g, ti[0], ti[1], ti[2], ti[3], ti[4]);
    if (lane == 0) atomicAdd(g.rows_users + t.origin, 1);
    Stack vs = stack_at(g.stack_buf + (long long)victim * g.stack_cap, t.p, t.W, t.Wx, pc);
    s = stack_at(g.stack_buf + (long long)me * g.stack_cap, t.p, t.W, t.Wx, pc);
    int L = (int)(c >> 32), idx = (int)(c & 0xffffffffll);
    const u32* src = P_of(vs, L);
    int v = nth_set_bit(src + 2 * t.W, t.W, idx, lane);
    int r = vs.rlen[L];
    if (g.flags & FLAG_LIST)
        for (int i = lane; i < r; i += 32) s.R[i] = vs.R[i];
    if (lane == 0) {
        s.rlen[0] = r + 1;
        s.mode[0] = 0;
        if (g.flags & FLAG_LIST) s.R[r] = t.pids[v];
    }
    int kind = make_child(t, src, v, v >> 5, (1u << (v & 31)) - 1, s, 0, lane);
    __threadfence();
    __syncwarp();
    if (lane == 0) atomicSub(g.copying + victim, 1);
    if (kind != CHILD_INNER) {
        o.nodes += (lane == 0);
        if (kind == CHILD_MAXIMAL) emit(o, s.R, r + 1, g.flags, lane);
    }
    return kind;
}

__device__ void end_task(const Shared& g, int me, const Task& t, int lane) {
    if (g.flags & FLAG_EXPOSE) {
        if (lane == 0) atomicExch(g.expo + me, 0ull);
        __threadfence();
        if (lane == 0) wait_zero(g.copying + me);
    }
    __threadfence();
    __syncwarp();
    if (lane == 0) { atomicSub(g.rows_users + t.origin, 1); atomicSub(g.ctrl + 1, 1); }
}

#ifndef MIN_BLOCKS
#define MIN_BLOCKS 8      // 8 x 128 threads per SM: at most 64 registers, up to 32 warps/SM
#endif

extern "C" __global__ void __launch_bounds__(32 * WARPS_PER_BLOCK, MIN_BLOCKS) rdmce_kernel(
    const int* indptr, const int* indices, const int* seed_u, const int* seed_v, int n_seeds,
    u32* rows_buf, long long rows_cap, u32* stack_buf, long long stack_cap,
    u64* expo, int* copying, int* rows_users, int* task_info, int* ctrl,
    int tau, int flags, int n_workers,
    u64* worker_count, u64* worker_nodes, u64* worker_cycles, int* worker_seeds, int* worker_steals,
    int* list, long long list_cap, u64* list_pos, int* list_overflow)
{
    const int lane = threadIdx.x & 31;
    const int me = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    if (me >= n_workers) return;
    Shared g;
    g.indptr = indptr; g.indices = indices; g.seed_u = seed_u; g.seed_v = seed_v; g.n_seeds = n_seeds;
    g.rows_buf = rows_buf; g.rows_cap = rows_cap; g.stack_buf = stack_buf; g.stack_cap = stack_cap;
    g.expo = expo; g.copying = copying; g.rows_users = rows_users; g.task_info = task_info;
    g.ctrl = ctrl; g.tau = tau; g.flags = flags; g.n_workers = n_workers;
    Out o;
    o.count = 0; o.nodes = 0; o.list = list; o.list_cap = list_cap; o.list_pos = list_pos;
    o.list_overflow = list_overflow;
    u64 busy = 0;
    int seeds = 0, steals = 0, start = (me * 7919 + 1) % n_workers;
    const bool expo_on = flags & FLAG_EXPOSE;
    __shared__ __align__(16) u32 pcache[WARPS_PER_BLOCK][2 * PCACHE];
    u32* pc = pcache[threadIdx.x >> 5];
    for (;;) {
        Task t;
        Stack s;
        s.pc = pc;
        s.ac = pc + PCACHE;
        int kind;
        int seed = -1;                       // -1: none left, -2: our rows are still in use
        if (lane == 0) {
            if (volatile_load(rows_users + me) != 0) seed = -2;
            else {
                atomicAdd(ctrl + 1, 1);
                seed = atomicAdd(ctrl, 1);
                if (seed >= n_seeds) { seed = -1; atomicSub(ctrl + 1, 1); }
            }
        }
        seed = __shfl_sync(FULL_MASK, seed, 0);
        long long t0 = clock64();
        if (seed >= 0) {
            __threadfence();
            seeds++;
            if (lane == 0) atomicExch(rows_users + me, 1);
            if (build_seed(g, me, seed, t, s, o, lane)) {
                publish_task(g, me, t);
                run_task(g, me, t, s, &o, lane);
                end_task(g, me, t, lane);
            } else if (lane == 0) {
                atomicExch(rows_users + me, 0);
                atomicSub(ctrl + 1, 1);
            }
        } else if (expo_on && (kind = steal(g, me, t, s, o, lane, start, pc)) >= 0) {
            steals++;
            publish_task(g, me, t);
            if (kind == CHILD_INNER) run_task(g, me, t, s, &o, lane);
            end_task(g, me, t, lane);
        } else {
            int done = 0;
            if (lane == 0)
                done = seed == -1 && (!expo_on || (volatile_load(ctrl) >= n_seeds && volatile_load(ctrl + 1) == 0));
            if (__shfl_sync(FULL_MASK, done, 0)) break;
            __nanosleep(256);
            continue;
        }
        busy += clock64() - t0;
    }
    if (lane == 0) {
        worker_count[me] = o.count;
        worker_nodes[me] = o.nodes;
        worker_cycles[me] = busy;
        worker_seeds[me] = seeds;
        worker_steals[me] = steals;
    }
}
