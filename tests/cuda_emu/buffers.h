// The device buffers of one emulated launch (tests/emulated.py writes them, the drivers
// launch_main.cpp and args_main.cpp read them): an 8-byte count, then per buffer its 8-byte
// size and bytes. A pointer is coded as (buffer + 1) << 40 | byte offset, 0 for null.
#pragma once
#include <cstdio>
#include <vector>
#include <cstdint>

inline std::vector<std::vector<uint64_t>> g_bufs;
inline std::vector<long long> g_sizes;

inline long long read_i8(FILE* f) {
    long long v;
    if (fread(&v, 8, 1, f) != 1) throw 1;
    return v;
}

inline void read_buffers(FILE* in) {
    g_bufs.resize(read_i8(in));
    for (auto& b : g_bufs) {
        g_sizes.push_back(read_i8(in));
        b.resize(g_sizes.back() / 8 + 2);   // 8-byte aligned for atomic_ref; never empty
        if (fread(b.data(), 1, g_sizes.back(), in) != (size_t)g_sizes.back()) throw 3;
    }
}

inline void* buffer_pointer(uint64_t code) {
    return code ? (unsigned char*)g_bufs[(code >> 40) - 1].data() + (code & ((1ull << 40) - 1)) : nullptr;
}

inline void write_buffers(const char* path) {
    FILE* out = fopen(path, "wb");
    for (size_t i = 0; i < g_bufs.size(); ++i) fwrite(g_bufs[i].data(), 1, g_sizes[i], out);
    fclose(out);
}
