// One emulated launch of any kernel that takes its parameters from `__constant__ Params G`
// (kernel.inc and -DKERNEL=name come from tests/emulated.py; -DSYMBOL=H for another constant
// struct). argv[1] holds the buffers (buffers.h) and the Params image, whose pointer fields hold
// buffer codes. The buffers, as the kernel left them, go to argv[2]. Blocks run one after another.
#include "emu.h"
#include "buffers.h"
#define __shared__ static
#include "kernel.inc"
#ifndef SYMBOL
#define SYMBOL G
#endif

int main(int argc, char** argv) {
    if (argc != 3) return 2;
    FILE* in = fopen(argv[1], "rb");
    read_buffers(in);
    const long long pointers = read_i8(in), bytes = read_i8(in), blocks = read_i8(in), threads = read_i8(in);
    std::vector<unsigned char> image(sizeof(SYMBOL) > (size_t)bytes ? sizeof(SYMBOL) : bytes);
    if (fread(image.data(), 1, bytes, in) != (size_t)bytes) return 3;
    fclose(in);
    for (long long i = 0; i < pointers; ++i) {
        u64 code;
        std::memcpy(&code, image.data() + 8 * i, 8);
        void* p = buffer_pointer(code);
        std::memcpy(image.data() + 8 * i, &p, 8);
    }
    std::memcpy((void*)&SYMBOL, image.data(), sizeof(SYMBOL));
    launch_fibers((int)blocks, (int)threads, [] { KERNEL(); }, true);
    write_buffers(argv[2]);
    return 0;
}
