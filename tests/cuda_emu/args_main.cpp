// One emulated launch of a kernel that takes ordinary arguments, e.g.
// build_adj(const int* indptr, ..., int n, int nw, u32* adj). argv[1] holds the buffers
// (buffers.h), then the argument count, blocks, threads and one 8-byte slot per argument: a buffer
// code for a pointer, the value's bytes for a scalar. call.inc (tests/emulated.py, from the
// kernel's signature) defines CALL(a), the kernel called with those slots. Output as launch_main.cpp.
#include "emu.h"
#include "buffers.h"
#define __shared__ static
#include "kernel.inc"

template <class T> T scalar(unsigned long long slot) {
    T v;
    std::memcpy(&v, &slot, sizeof(T));
    return v;
}
#include "call.inc"

int main(int argc, char** argv) {
    if (argc != 3) return 2;
    FILE* in = fopen(argv[1], "rb");
    read_buffers(in);
    const long long n_args = read_i8(in), blocks = read_i8(in), threads = read_i8(in);
    std::vector<unsigned long long> a(n_args + 1);
    if (fread(a.data(), 8, n_args, in) != (size_t)n_args) return 3;
    fclose(in);
    launch_fibers((int)blocks, (int)threads, [&] { CALL(a); }, true);
    write_buffers(argv[2]);
    return 0;
}
