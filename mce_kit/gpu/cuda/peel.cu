// Degeneracy order and core numbers by batch peeling, in one thread block: the same batches in the
// same order as the host's order.peel_arrays, so the arrays equal the host's.
//
// A level starts with k = the least degree left; its first batch is every live vertex of degree
// <= k (ascending). Removing a batch lowers its live neighbours' degrees; the next batch is those
// of them now at <= k (ascending); an empty batch starts the next level. The rounds are short
// (a few hundred on a million-entry graph, most batches a few vertices), so one block of
// PEEL_THREADS threads runs them all with block barriers instead of a launch per round.
//
// deg: degrees (int32, consumed); core: -1 on entry (alive), the core number on exit;
// order: the removal order; batch, hit, live: n ints each; mark: n zeroed ints (zero again on exit).
// live holds the vertices not yet removed (ascending; compacted at each level), so a level's scans
// shrink with the graph as the host's do. A batch's edges are shared out over the whole block, a
// thread per edge, a tile of PEEL_THREADS vertices at a time. Each batch after a level's first is put
// in order where it is found: by counting when short (most are), a bitonic sort when longer, a scan
// of the live when long.

#define PEEL_THREADS 1024
#define PEEL_ITEMS 4                     // vertices per thread per tile of a scan of all vertices
#define SORT_CAP 2048                    // a hit list up to this long is sorted in shared memory
#ifndef PEEL_FLAT_MAX_DEGREE             // a tile's edges are shared out over the block when each of
#define PEEL_FLAT_MAX_DEGREE (1 << 20)   // its rows is shorter (so their sum fits an int), else a
#endif                                   // warp walks each row

__device__ __forceinline__ int block_exclusive_scan(int x, int* warp_total, int* total) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    int incl = x;
    #pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
        const int y = __shfl_up_sync(0xffffffffu, incl, d);
        if (lane >= d) incl += y;
    }
    if (lane == 31) warp_total[warp] = incl;
    __syncthreads();
    if (warp == 0) {
        const int w = lane < PEEL_THREADS / 32 ? warp_total[lane] : 0;
        int s = w;
        #pragma unroll
        for (int d = 1; d < 32; d <<= 1) {
            const int y = __shfl_up_sync(0xffffffffu, s, d);
            if (lane >= d) s += y;
        }
        warp_total[lane] = s - w;       // exclusive prefix of the warp totals
        if (lane == 31) *total = s;
    }
    __syncthreads();
    const int out = warp_total[warp] + incl - x;
    __syncthreads();                     // warp_total is reused by the next scan
    return out;
}

// out[0..) = the entries x of src[0..len) with keep(x), in order; returns how many (every thread).
// out may be src: a tile is read whole before any of it is written, and written below its end.
template <typename Keep>
__device__ int compact(const int* src, int len, int* out, Keep keep, int* warp_total, int* total) {
    int count = 0;
    for (int base = 0; base < len; base += PEEL_THREADS * PEEL_ITEMS) {
        const int first = base + threadIdx.x * PEEL_ITEMS;
        int x[PEEL_ITEMS];
        bool take[PEEL_ITEMS];
        int mine = 0;
        #pragma unroll
        for (int j = 0; j < PEEL_ITEMS; j++) {
            take[j] = false;
            if (first + j < len) {
                x[j] = src[first + j];
                take[j] = keep(x[j]);
            }
            mine += take[j];
        }
        int at = count + block_exclusive_scan(mine, warp_total, total);
        #pragma unroll
        for (int j = 0; j < PEEL_ITEMS; j++)
            if (take[j]) out[at++] = x[j];
        count += *total;
        __syncthreads();                 // *total is rewritten by the next tile's scan
    }
    return count;
}

// A probe (build with PEEL_PROFILE): cycles by phase, level starts, edges, ordering. soc-Slashdot0902
// has 331 rounds in 55 levels; on one H200 its peel took 6.6 ms with a mark per touched vertex and a
// warp per batch vertex (13/51/36%), 2.7 ms now (25/64/11%): about 8 us a round, a chain of
// dependent global accesses and barriers. Unrolling the edge loop (2, 4, 8 edges a thread) gained nothing.
#ifdef PEEL_PROFILE
__device__ unsigned long long peel_prof[3];
#define PROF_MARK(i) \
    if (threadIdx.x == 0) { const long long now = clock64(); peel_prof[i] += now - t_prof; t_prof = now; }
#else
#define PROF_MARK(i)
#endif

extern "C" __global__ void __launch_bounds__(PEEL_THREADS)
peel_kernel(const long long* indptr, const int* indices, int n, int* deg, int* core, int* order,
            int* batch, int* hit, int* mark, int* live) {
    __shared__ int warp_total[32], total, n_hit, least;
    __shared__ int keys[SORT_CAP], row_at[PEEL_THREADS];
    __shared__ long long row_first[PEEL_THREADS];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    int k = 0, removed = 0, n_live = n;
    for (int v = threadIdx.x; v < n; v += PEEL_THREADS) live[v] = v;
    __syncthreads();
    int nb = compact(live, n, batch, [&](int v) { return deg[v] == 0; }, warp_total, &total);
#ifdef PEEL_PROFILE
    long long t_prof = clock64();
#endif
    while (true) {
        PROF_MARK(2)
        if (nb == 0) {
            if (removed == n) break;
            n_live = compact(live, n_live, live, [&](int v) { return core[v] < 0; }, warp_total, &total);
            if (threadIdx.x == 0) least = 0x7fffffff;
            __syncthreads();
            int m = 0x7fffffff;
            for (int i = threadIdx.x; i < n_live; i += PEEL_THREADS) m = min(m, deg[live[i]]);
            #pragma unroll
            for (int d = 16; d > 0; d >>= 1) m = min(m, __shfl_xor_sync(0xffffffffu, m, d));
            if (lane == 0) atomicMin(&least, m);
            __syncthreads();
            k = least;
            nb = compact(live, n_live, batch, [&](int v) { return deg[v] <= k; }, warp_total, &total);
        }
        PROF_MARK(0)
        for (int i = threadIdx.x; i < nb; i += PEEL_THREADS) {
            core[batch[i]] = k;
            order[removed + i] = batch[i];
        }
        removed += nb;
        if (threadIdx.x == 0) n_hit = 0;
        __syncthreads();
        // the batch's live neighbours lose a degree each. Every live vertex outside the batch is
        // above k (the level's first batch took all at <= k, each later one all that came down to
        // it), so the next batch is those whose degree passes k + 1 -> k now: the one decrement
        // that sees k + 1 lists it, once.
        auto lose = [&](int w) {
            if (core[w] < 0 && atomicSub(&deg[w], 1) == k + 1) hit[atomicAdd(&n_hit, 1)] = w;
        };
        // a tile of up to PEEL_THREADS batch vertices at a time (most batches are one tile of a few):
        // its edges shared out over the whole block, a thread per edge. A warp per vertex left most
        // warps idle on a short batch and walked a long one's many short rows one vertex at a time.
        for (int t0 = 0; t0 < nb; t0 += PEEL_THREADS) {
            const int tn = min(PEEL_THREADS, nb - t0);
            int row_len = 0;
            long long first = 0;
            if (threadIdx.x < tn) {
                const int v = batch[t0 + threadIdx.x];
                first = indptr[v];
                row_len = (int)min(indptr[v + 1] - first, (long long)PEEL_FLAT_MAX_DEGREE);
            }
            if (__syncthreads_or(row_len >= PEEL_FLAT_MAX_DEGREE)) {   // rows too long to sum in an int
                for (int i = warp; i < tn; i += PEEL_THREADS / 32) {
                    const int v = batch[t0 + i];
                    for (long long e = indptr[v] + lane; e < indptr[v + 1]; e += 32) lose(indices[e]);
                }
                continue;
            }
            const int at = block_exclusive_scan(row_len, warp_total, &total);
            if (threadIdx.x < tn) { row_at[threadIdx.x] = at; row_first[threadIdx.x] = first; }
            __syncthreads();
            const int edges = total;
            for (int f = threadIdx.x; f < edges; f += PEEL_THREADS) {
                int lo = 0, hi = tn - 1;  // the tile vertex of edge f: the last row_at <= f
                while (lo < hi) {
                    const int mid = (lo + hi + 1) >> 1;
                    if (row_at[mid] <= f) lo = mid; else hi = mid - 1;
                }
                lose(indices[row_first[lo] + (f - row_at[lo])]);
            }
        }
        __syncthreads();
        PROF_MARK(1)
        const int nh = n_hit;            // the next batch, in the order found
        if (nh <= PEEL_THREADS) {        // short: an id's place is how many ids are smaller
            int key = 0x7fffffff;        // (two barriers; a sort of a few ids cost up to 55)
            if (threadIdx.x < nh) keys[threadIdx.x] = key = hit[threadIdx.x];
            __syncthreads();
            if (threadIdx.x < nh) {
                int place = 0;
                for (int j = 0; j < nh; j++) place += keys[j] < key;
                batch[place] = key;
            }
            __syncthreads();
        } else if (nh <= SORT_CAP) {     // longer: sort the ids here
            int size = 1;
            while (size < nh) size <<= 1;
            for (int i = threadIdx.x; i < size; i += PEEL_THREADS) keys[i] = i < nh ? hit[i] : 0x7fffffff;
            __syncthreads();
            for (int len = 2; len <= size; len <<= 1) {
                for (int half = len >> 1; half > 0; half >>= 1) {
                    for (int i = threadIdx.x; i < size; i += PEEL_THREADS) {
                        const int j = i ^ half;
                        if (j > i) {
                            const bool up = (i & len) == 0;
                            const int a = keys[i], b = keys[j];
                            if ((a > b) == up) { keys[i] = b; keys[j] = a; }
                        }
                    }
                    __syncthreads();
                }
            }
            for (int i = threadIdx.x; i < nh; i += PEEL_THREADS) batch[i] = keys[i];
            __syncthreads();
        } else {                         // long: mark the next batch, then one ordered scan of the live
            for (int i = threadIdx.x; i < nh; i += PEEL_THREADS) mark[hit[i]] = 1;
            __syncthreads();
            compact(live, n_live, batch, [&](int v) { return mark[v] == 1; }, warp_total, &total);
            for (int i = threadIdx.x; i < nh; i += PEEL_THREADS) mark[batch[i]] = 0;
            __syncthreads();
        }
        nb = nh;
    }
}
