// A tiny end-to-end kernel: degrees from CSR and the popcount of a bitmap.
#include "common.cuh"

extern "C" __global__ void csr_degrees(const int* indptr, int n, int* degree) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v < n) degree[v] = indptr[v + 1] - indptr[v];
}

// Template kernel (instantiated through name_expressions): out[i] = value.
template <typename T>
__global__ void fill_value(T* out, T value, long long n) {
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = value;
}

// One warp per block of 32 words; total popcount accumulated in a 64-bit counter.
extern "C" __global__ void bitmap_popcount(const u32* words, long long n_words, u64* total) {
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    int c = i < n_words ? __popc(words[i]) : 0;
    c = warp_sum(c);
    if ((threadIdx.x & 31) == 0 && c) atomicAdd(total, (u64)c);
}
