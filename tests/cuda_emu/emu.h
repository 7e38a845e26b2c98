// A small CPU emulation of the CUDA features the mce_kit kernels use, so a
// kernel's logic (indexing, barriers, warp collectives, the worker list) can
// be checked on a machine without a GPU. Every CUDA thread is an OS thread;
// every block runs at once, so blocks that wait for each other work as on a GPU.
// Warp collectives assume full-warp convergence (FULL_MASK), as the kernels do.
#pragma once
#include <atomic>
#include <barrier>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#define __device__
#define __global__
#define __host__
#define __forceinline__ inline
#define __noinline__
#define __constant__
#define __launch_bounds__(...)
#define __align__(n)

struct dim3e { unsigned x = 1, y = 1, z = 1; };
struct int2 { int x, y; };
inline int2 make_int2(int x, int y) { return int2{x, y}; }
struct WarpX {
    std::barrier<> bar{32};
    unsigned long long slot[32];
};
struct BlockX {
    std::unique_ptr<std::barrier<>> bar;
    std::vector<std::unique_ptr<WarpX>> warps;
    std::atomic<int> orv{0};
    std::atomic<int> generation{0};
    alignas(16) unsigned char smem[65536];
};
struct ThreadCtx { dim3e tid, bid; BlockX* blk; };
inline thread_local ThreadCtx tctx;
inline dim3e blockDim_g;
#define threadIdx (tctx.tid)
#define blockIdx (tctx.bid)
#define blockDim (blockDim_g)

inline void __syncthreads() { tctx.blk->bar->arrive_and_wait(); }
inline int __syncthreads_or(int p) {
    BlockX* b = tctx.blk;
    b->bar->arrive_and_wait();
    if (tctx.tid.x == 0) b->orv.store(0);
    b->bar->arrive_and_wait();
    if (p) b->orv.fetch_or(1);
    b->bar->arrive_and_wait();
    int r = b->orv.load();
    b->bar->arrive_and_wait();
    return r;
}
inline void __syncwarp(unsigned = 0xffffffffu) { tctx.blk->warps[tctx.tid.x >> 5]->bar.arrive_and_wait(); }

template <class T> inline T* exchange(T v) {
    WarpX* w = tctx.blk->warps[tctx.tid.x >> 5].get();
    w->bar.arrive_and_wait();
    std::memcpy(&w->slot[tctx.tid.x & 31], &v, sizeof(T));
    w->bar.arrive_and_wait();
    return nullptr;
}
template <class T> inline T slot_of(int lane) {
    T v;
    std::memcpy(&v, &tctx.blk->warps[tctx.tid.x >> 5]->slot[lane], sizeof(T));
    return v;
}
inline void warp_done() { tctx.blk->warps[tctx.tid.x >> 5]->bar.arrive_and_wait(); }

inline unsigned __ballot_sync(unsigned, int p) {
    exchange<int>(p != 0);
    unsigned r = 0;
    for (int i = 0; i < 32; ++i) r |= (slot_of<int>(i) ? 1u : 0u) << i;
    warp_done();
    return r;
}
inline int __any_sync(unsigned m, int p) { return __ballot_sync(m, p) != 0; }
inline int __all_sync(unsigned m, int p) { return __ballot_sync(m, p) == 0xffffffffu; }
template <class T> inline T __shfl_sync(unsigned, T v, int src, int = 32) {
    exchange<T>(v);
    T r = slot_of<T>(src & 31);
    warp_done();
    return r;
}
template <class T> inline T __shfl_xor_sync(unsigned, T v, int m, int = 32) {
    exchange<T>(v);
    T r = slot_of<T>((tctx.tid.x & 31) ^ m);
    warp_done();
    return r;
}
template <class T> inline T __shfl_up_sync(unsigned, T v, int d, int = 32) {
    exchange<T>(v);
    int l = tctx.tid.x & 31;
    T r = l >= d ? slot_of<T>(l - d) : v;
    warp_done();
    return r;
}
inline unsigned __reduce_add_sync(unsigned, unsigned v) {
    exchange<unsigned>(v);
    unsigned r = 0;
    for (int i = 0; i < 32; ++i) r += slot_of<unsigned>(i);
    warp_done();
    return r;
}
inline int __reduce_add_sync(unsigned m, int v) { return (int)__reduce_add_sync(m, (unsigned)v); }
inline unsigned __reduce_or_sync(unsigned, unsigned v) {
    exchange<unsigned>(v);
    unsigned r = 0;
    for (int i = 0; i < 32; ++i) r |= slot_of<unsigned>(i);
    warp_done();
    return r;
}
inline int __reduce_max_sync(unsigned, int v) {
    exchange<int>(v);
    int r = slot_of<int>(0);
    for (int i = 1; i < 32; ++i) r = slot_of<int>(i) > r ? slot_of<int>(i) : r;
    warp_done();
    return r;
}

inline int __popc(unsigned v) { return __builtin_popcount(v); }
inline int __ffs(unsigned v) { return __builtin_ffs((int)v); }
inline void __threadfence() { std::atomic_thread_fence(std::memory_order_seq_cst); }
inline void __nanosleep(unsigned) { std::this_thread::yield(); }
inline long long clock64() {
    static std::atomic<long long> c{0};
    return c.fetch_add(1);
}
template <class T> inline T atomicAdd(T* p, T v) { return std::atomic_ref<T>(*p).fetch_add(v); }
template <class T> inline T atomicSub(T* p, T v) { return std::atomic_ref<T>(*p).fetch_sub(v); }
template <class T> inline T atomicOr(T* p, T v) { return std::atomic_ref<T>(*p).fetch_or(v); }
template <class T> inline T atomicExch(T* p, T v) { return std::atomic_ref<T>(*p).exchange(v); }
template <class T> inline T atomicMax(T* p, T v) {
    std::atomic_ref<T> r(*p);
    T cur = r.load();
    while (cur < v && !r.compare_exchange_weak(cur, v)) {}
    return cur;
}
template <class T> inline T atomicCAS(T* p, T cmp, T v) {
    std::atomic_ref<T>(*p).compare_exchange_strong(cmp, v);
    return cmp;
}
inline int min(int a, int b) { return a < b ? a : b; }
inline int max(int a, int b) { return a > b ? a : b; }

// Run `kernel` with `blocks` x `threads`, every thread an OS thread.
inline void launch(int blocks, int threads, const std::function<void()>& kernel) {
    blockDim_g.x = threads;
    std::vector<std::unique_ptr<BlockX>> bx;
    for (int b = 0; b < blocks; ++b) {
        auto x = std::make_unique<BlockX>();
        x->bar = std::make_unique<std::barrier<>>(threads);
        for (int w = 0; w < threads / 32; ++w) x->warps.push_back(std::make_unique<WarpX>());
        bx.push_back(std::move(x));
    }
    std::vector<std::thread> ts;
    for (int b = 0; b < blocks; ++b)
        for (int t = 0; t < threads; ++t)
            ts.emplace_back([&, b, t] {
                tctx.tid.x = t; tctx.bid.x = b; tctx.blk = bx[b].get();
                kernel();
            });
    for (auto& t : ts) t.join();
}
