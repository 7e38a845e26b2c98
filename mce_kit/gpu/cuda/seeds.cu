// RDMCE's edge seeds on the GPU: the graph's edges u < w in CSR order (rows sorted, relabelled in
// degeneracy order) with the bounds p >= |P| and x >= |X| that size a worker's buffers. The same
// arrays as seeds.seed_bounds(..., "edge"), in two launches and a scan instead of some twenty
// array operations.
#include "common.cuh"

// later[v]: v's neighbours with a larger id, the end of its sorted row past v.
extern "C" __global__ void later_counts(const int* indptr, const int* indices, int n, long long* later) {
    const int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= n) return;
    const int lo = indptr[v], hi = indptr[v + 1];
    later[v] = hi - lo - lower_bound(indices + lo, hi - lo, v + 1);
}

// One thread per adjacency entry e = (u, w) with w > u: seed seed_end[u] - (row end - e) gets
// u, w, p = min(later[u], later[w]), x = min(deg[w] - later[w], deg[u]). seed_end: the inclusive
// scan of later (seed_end[u] is one past u's last seed).
extern "C" __global__ void edge_seeds(const int* indptr, const int* indices, int n, long long n_entries,
                                      const long long* later, const long long* seed_end,
                                      int* su, int* sv, long long* sp, long long* sx) {
    const long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= n_entries) return;
    const int u = lower_bound(indptr + 1, n, (int)(e + 1));   // the row holding entry e
    const int w = indices[e];
    if (w <= u) return;
    const long long i = seed_end[u] - (indptr[u + 1] - e);
    const long long lu = later[u], lw = later[w];
    const long long du = indptr[u + 1] - indptr[u], dw = indptr[w + 1] - indptr[w];
    su[i] = u;
    sv[i] = w;
    sp[i] = lu < lw ? lu : lw;
    sx[i] = dw - lw < du ? dw - lw : du;
}
