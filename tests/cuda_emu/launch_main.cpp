// One emulated launch of any kernel that takes its parameters from `__constant__ Params G`
// (kernel.inc and -DKERNEL=name come from tests/emulated.py). argv[1] holds the buffers and
// the Params image; a pointer field holds (buffer + 1) << 40 | byte offset, or 0 for null.
// The buffers, as the kernel left them, go to argv[2]. Blocks run one after another.
#include <cstdio>
#include <vector>
#include "emu.h"
#define __shared__ static
#include "kernel.inc"

static long long read_i8(FILE* f) {
    long long v;
    if (fread(&v, 8, 1, f) != 1) throw 1;
    return v;
}

int main(int argc, char** argv) {
    if (argc != 3) return 2;
    FILE* in = fopen(argv[1], "rb");
    std::vector<std::vector<u64>> bufs(read_i8(in));
    std::vector<long long> sizes;
    for (auto& b : bufs) {
        sizes.push_back(read_i8(in));
        b.resize(sizes.back() / 8 + 2);   // 8-byte aligned for atomic_ref; never empty
        if (fread(b.data(), 1, sizes.back(), in) != (size_t)sizes.back()) return 3;
    }
    const long long pointers = read_i8(in), bytes = read_i8(in), blocks = read_i8(in), threads = read_i8(in);
    std::vector<unsigned char> image(sizeof(Params) > bytes ? sizeof(Params) : bytes);
    if (fread(image.data(), 1, bytes, in) != (size_t)bytes) return 3;
    fclose(in);
    for (long long i = 0; i < pointers; ++i) {
        u64 code;
        std::memcpy(&code, image.data() + 8 * i, 8);
        void* p = code ? (unsigned char*)bufs[(code >> 40) - 1].data() + (code & ((1ull << 40) - 1)) : nullptr;
        std::memcpy(image.data() + 8 * i, &p, 8);
    }
    std::memcpy(&G, image.data(), sizeof(Params));
    launch_fibers((int)blocks, (int)threads, [] { KERNEL(); }, true);
    FILE* out = fopen(argv[2], "wb");
    for (size_t i = 0; i < bufs.size(); ++i) fwrite(bufs[i].data(), 1, sizes[i], out);
    fclose(out);
    return 0;
}
