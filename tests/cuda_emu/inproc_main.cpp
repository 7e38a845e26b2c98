// A kernel as a shared library for tests/fake_cupy.py: launches run in the calling process, on
// its own memory, so a pointer is an address (device arrays holding addresses work too).
// -DWITH_ARGS: the kernel takes ordinary arguments (call.inc, as for args_main.cpp); otherwise it
// reads `__constant__ Params G` (-DSYMBOL=H for another), which set_constant fills.
#include "emu.h"
inline void* buffer_pointer(unsigned long long address) { return (void*)address; }
#define __shared__ static
#include "kernel.inc"
#ifndef SYMBOL
#define SYMBOL G
#endif
#ifndef FIBER_STACK
#define FIBER_STACK (1 << 18)
#endif

#ifdef WITH_ARGS
template <class T> T scalar(unsigned long long slot) {
    T v;
    std::memcpy(&v, &slot, sizeof(T));
    return v;
}
#include "call.inc"
extern "C" void launch(int blocks, int threads, const unsigned long long* a) {
    launch_fibers(blocks, threads, [&] { CALL(a); }, true, FIBER_STACK);
}
#else
extern "C" void set_constant(const void* image, long long bytes) {
    std::memcpy((void*)&SYMBOL, image, bytes < (long long)sizeof(SYMBOL) ? bytes : sizeof(SYMBOL));
}
extern "C" void launch(int blocks, int threads, const unsigned long long*) {
    launch_fibers(blocks, threads, [] { KERNEL(); }, true, FIBER_STACK);
}
#endif
