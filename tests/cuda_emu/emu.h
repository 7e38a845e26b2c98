// A small CPU emulation of the CUDA features the mce_kit kernels use, so a
// kernel's logic (indexing, barriers, warp collectives, the worker list) can
// be checked on a machine without a GPU. `launch`: every CUDA thread is an OS
// thread and every block runs at once, so blocks that wait for each other work
// as on a GPU. `launch_fibers`: every CUDA thread a fiber
// on one OS thread, switched at each barrier or sleep: about 60x faster.
// Warp collectives assume full-warp convergence (FULL_MASK), as the kernels do.
#pragma once
#include <atomic>
#include <barrier>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <thread>
#include <ucontext.h>
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
struct alignas(16) uint4 { unsigned x, y, z, w; };
template <class T> inline T __ldg(const T* p) { return *p; }
inline int2 make_int2(int x, int y) { return int2{x, y}; }
inline bool g_fibers = false;   // launch_fibers runs: barriers switch fibers
inline void fiber_yield();
struct FiberBarrier {           // n fibers meet: the last to arrive goes on, the others wait
    int n, count = 0;
    unsigned generation = 0;
    void wait() {
        const unsigned g = generation;
        if (++count == n) {
            count = 0;
            ++generation;
            return;
        }
        while (generation == g) fiber_yield();
    }
};
struct WarpX {
    std::barrier<> bar{32};
    FiberBarrier fbar{32};
    unsigned long long slot[32];
    void wait() { g_fibers ? fbar.wait() : bar.arrive_and_wait(); }
};
struct BlockX {
    std::unique_ptr<std::barrier<>> bar;
    FiberBarrier fbar{0};
    void wait() { g_fibers ? fbar.wait() : bar->arrive_and_wait(); }
    std::vector<std::unique_ptr<WarpX>> warps;
    std::atomic<int> orv{0};
    std::atomic<int> generation{0};
    alignas(16) unsigned char smem[65536];
};
struct ThreadCtx { dim3e tid, bid; BlockX* blk; };
inline thread_local ThreadCtx tctx;
inline dim3e blockDim_g, gridDim_g;
#define threadIdx (tctx.tid)
#define blockIdx (tctx.bid)
#define blockDim (blockDim_g)
#define gridDim (gridDim_g)

inline void __syncthreads() { tctx.blk->wait(); }
// A barrier that also combines one int of every thread (add: what a thread with p != 0 does to it).
template <class Add> inline int block_combine(int p, Add add) {
    BlockX* b = tctx.blk;
    b->wait();
    if (tctx.tid.x == 0) b->orv.store(0);
    b->wait();
    if (p) add(b->orv);
    b->wait();
    int r = b->orv.load();
    b->wait();
    return r;
}
inline int __syncthreads_or(int p) { return block_combine(p, [](std::atomic<int>& v) { v.fetch_or(1); }); }
inline int __syncthreads_count(int p) { return block_combine(p, [](std::atomic<int>& v) { v.fetch_add(1); }); }
inline void __syncwarp(unsigned = 0xffffffffu) { tctx.blk->warps[tctx.tid.x >> 5]->wait(); }

template <class T> inline T* exchange(T v) {
    WarpX* w = tctx.blk->warps[tctx.tid.x >> 5].get();
    w->wait();
    std::memcpy(&w->slot[tctx.tid.x & 31], &v, sizeof(T));
    w->wait();
    return nullptr;
}
template <class T> inline T slot_of(int lane) {
    T v;
    std::memcpy(&v, &tctx.blk->warps[tctx.tid.x >> 5]->slot[lane], sizeof(T));
    return v;
}
inline void warp_done() { tctx.blk->warps[tctx.tid.x >> 5]->wait(); }

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
template <class T> inline unsigned __match_any_sync(unsigned, T v) {
    exchange<T>(v);
    unsigned r = 0;
    for (int i = 0; i < 32; ++i) r |= (slot_of<T>(i) == v ? 1u : 0u) << i;
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
inline unsigned __reduce_and_sync(unsigned, unsigned v) {
    exchange<unsigned>(v);
    unsigned r = ~0u;
    for (int i = 0; i < 32; ++i) r &= slot_of<unsigned>(i);
    warp_done();
    return r;
}
inline int __reduce_min_sync(unsigned, int v) {
    exchange<int>(v);
    int r = slot_of<int>(0);
    for (int i = 1; i < 32; ++i) r = slot_of<int>(i) < r ? slot_of<int>(i) : r;
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
inline void __threadfence_block() { std::atomic_thread_fence(std::memory_order_seq_cst); }
inline void __nanosleep(unsigned) { g_fibers ? fiber_yield() : std::this_thread::yield(); }
inline long long clock64() {
    static std::atomic<long long> c{0};
    return c.fetch_add(1);
}
template <class T> inline T atomicAdd(T* p, T v) { return std::atomic_ref<T>(*p).fetch_add(v); }
template <class T> inline T atomicSub(T* p, T v) { return std::atomic_ref<T>(*p).fetch_sub(v); }
template <class T> inline T atomicOr(T* p, T v) { return std::atomic_ref<T>(*p).fetch_or(v); }
template <class T> inline T atomicAnd(T* p, T v) { return std::atomic_ref<T>(*p).fetch_and(v); }
template <class T> inline T atomicExch(T* p, T v) { return std::atomic_ref<T>(*p).exchange(v); }
template <class T> inline T atomicAdd_system(T* p, T v) { return atomicAdd(p, v); }
template <class T> inline T atomicMax(T* p, T v) {
    std::atomic_ref<T> r(*p);
    T cur = r.load();
    while (cur < v && !r.compare_exchange_weak(cur, v)) {}
    return cur;
}
template <class T> inline T atomicMin(T* p, T v) {
    std::atomic_ref<T> r(*p);
    T cur = r.load();
    while (v < cur && !r.compare_exchange_weak(cur, v)) {}
    return cur;
}
template <class T> inline T atomicCAS(T* p, T cmp, T v) {
    std::atomic_ref<T>(*p).compare_exchange_strong(cmp, v);
    return cmp;
}
inline int min(int a, int b) { return a < b ? a : b; }
inline int max(int a, int b) { return a > b ? a : b; }
inline long long min(long long a, long long b) { return a < b ? a : b; }
inline long long max(long long a, long long b) { return a > b ? a : b; }

// A block of `threads` threads: its barriers (for OS threads and for fibers) and its warps.
inline std::unique_ptr<BlockX> new_block(int threads) {
    auto x = std::make_unique<BlockX>();
    x->bar = std::make_unique<std::barrier<>>(threads);
    x->fbar.n = threads;
    for (int w = 0; w < threads / 32; ++w) x->warps.push_back(std::make_unique<WarpX>());
    return x;
}

// Run `kernel` with `blocks` x `threads`, every thread an OS thread, every block at once.
inline void launch(int blocks, int threads, const std::function<void()>& kernel) {
    blockDim_g.x = threads;
    gridDim_g.x = blocks;
    std::vector<std::unique_ptr<BlockX>> bx;
    for (int b = 0; b < blocks; ++b) bx.push_back(new_block(threads));
    std::vector<std::thread> ts;
    for (int b = 0; b < blocks; ++b)
        for (int t = 0; t < threads; ++t)
            ts.emplace_back([&, b, t] {
                tctx.tid.x = t; tctx.bid.x = b; tctx.blk = bx[b].get();
                kernel();
            });
    for (auto& t : ts) t.join();
}

// A fiber switch saves the callee-saved registers on the old stack and pops them off the new one
// (x86-64 System V; ucontext elsewhere, whose signal-mask system call per switch costs 5x).
#if defined(__x86_64__)
extern "C" void emu_switch(void** save_sp, void* load_sp);
asm(R"(
.text
.globl emu_switch
.type emu_switch, @function
emu_switch:
    pushq %rbp
    pushq %rbx
    pushq %r12
    pushq %r13
    pushq %r14
    pushq %r15
    movq %rsp, (%rdi)
    movq %rsi, %rsp
    popq %r15
    popq %r14
    popq %r13
    popq %r12
    popq %rbx
    popq %rbp
    ret
)");
#endif
struct Fiber {
    std::unique_ptr<char[]> stack;
    ThreadCtx tc;
    bool done = false;
#if defined(__x86_64__)
    void* sp = nullptr;
#else
    ucontext_t ctx;
#endif
};
inline Fiber* g_running = nullptr;
inline const std::function<void()>* g_kernel = nullptr;
#if defined(__x86_64__)
inline void* g_scheduler_sp = nullptr;
inline void fiber_yield() { emu_switch(&g_running->sp, g_scheduler_sp); }
[[noreturn]] inline void fiber_main() {
    (*g_kernel)();
    g_running->done = true;
    emu_switch(&g_running->sp, g_scheduler_sp);
    __builtin_unreachable();
}
inline void fiber_start(Fiber& f, size_t size) {
    auto top = reinterpret_cast<uintptr_t>(f.stack.get() + size) & ~uintptr_t(15);
    void** sp = reinterpret_cast<void**>(top) - 1;   // fiber_main entered as if called: rsp % 16 == 8
    *--sp = reinterpret_cast<void*>(&fiber_main);      // emu_switch's ret goes here
    for (int r = 0; r < 6; ++r) *--sp = nullptr;      // rbp rbx r12..r15
    f.sp = sp;
}
inline void fiber_resume(Fiber& f) { emu_switch(&g_scheduler_sp, f.sp); }
#else
inline ucontext_t g_scheduler;
inline void fiber_yield() { swapcontext(&g_running->ctx, &g_scheduler); }
inline void fiber_main() {
    (*g_kernel)();
    g_running->done = true;   // uc_link returns to the scheduler
}
inline void fiber_start(Fiber& f, size_t size) {
    getcontext(&f.ctx);
    f.ctx.uc_stack.ss_sp = f.stack.get();
    f.ctx.uc_stack.ss_size = size;
    f.ctx.uc_link = &g_scheduler;
    makecontext(&f.ctx, fiber_main, 0);
}
inline void fiber_resume(Fiber& f) { swapcontext(&g_scheduler, &f.ctx); }
#endif

// `blocks` x `threads` fibers, round-robin, each until it waits at a barrier or sleeps. serial:
// one block after another (kernels whose blocks never wait for each other, so file-scope
// __shared__ arrays can be plain statics: launch_main.cpp); else every block at once (blocks that
// wait for each other must sleep in their wait loops, as the kernels do with __nanosleep).
inline void launch_fibers(int blocks, int threads, const std::function<void()>& kernel, bool serial,
                          size_t stack = 1 << 18) {
    blockDim_g.x = threads;
    gridDim_g.x = blocks;
    g_fibers = true;
    g_kernel = &kernel;
    const int rounds = serial ? blocks : 1, at_once = serial ? 1 : blocks;
    for (int r = 0; r < rounds; ++r) {
        std::vector<std::unique_ptr<BlockX>> bx;
        std::vector<Fiber> fs(at_once * threads);
        for (int b = 0; b < at_once; ++b) {
            bx.push_back(new_block(threads));
            for (int t = 0; t < threads; ++t) {
                Fiber& f = fs[b * threads + t];
                f.stack.reset(new char[stack]);
                fiber_start(f, stack);
                f.tc.tid.x = t;
                f.tc.bid.x = r + b;
                f.tc.blk = bx[b].get();
            }
        }
        for (bool left = true; left;) {
            left = false;
            for (Fiber& f : fs) {
                if (f.done) continue;
                left = true;
                g_running = &f;
                tctx = f.tc;
                fiber_resume(f);
            }
        }
    }
    g_fibers = false;
}
