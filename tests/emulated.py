"""Any mce_kit kernel, run on CPU fibers (no GPU needed).

``build`` compiles a kernel's source with g++ against tests/cuda_emu/emu.h (one fiber per
CUDA thread, warp collectives through barriers, blocks one after another) and a driver:
tests/cuda_emu/launch_main.cpp for a kernel that reads ``__constant__ Params G``, whose struct
``launch`` fills the way ``launch.set_params`` does; tests/cuda_emu/args_main.cpp for a kernel
that takes ordinary arguments, passed by ``launch_args`` (the call is generated from the
kernel's signature). NumPy arrays stand for the device buffers; both return the buffers as the
kernel left them. This checks a kernel's logic with the launcher's own host planning; timings
mean nothing here.
"""

from __future__ import annotations

import itertools
import json
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np

from mce_kit.gpu.launch import pack_params
from mce_kit.gpu.loader import read_source

HERE = Path(__file__).parent / "cuda_emu"
HAVE_GXX = shutil.which("g++") is not None
# PTX the emulation cannot run, and what a CPU thread does instead
PORTS = {'asm("mov.u32 %0, %%lanemask_lt;" : "=r"(m));': "m = (1u << (threadIdx.x & 31)) - 1;",
         'asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));': "t = clock64();",
         'asm volatile("mov.u32 %0, %smid;" : "=r"(s));': "s = 0;"}
# and per source: mce-gpu's block state in the emulated block's memory, its SM id the block's
SOURCE_PORTS = {"mcegpu.cu": {
    "__shared__ Shared sh;": "Shared& sh = *reinterpret_cast<Shared*>(tctx.blk->smem);",
    'asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));': "sm = (int)blockIdx.x;"}}


def build(source: str, kernel: str, out: Path, defines: dict | None = None, main: str = "launch_main.cpp",
          replace: dict | None = None, with_args: bool | None = None) -> Path:
    """An executable running ``kernel`` of mce_kit/gpu/cuda/``source``, built in ``out`` with the
    driver ``main`` of tests/cuda_emu; ``replace``: further {text: its stand-in} for the source.
    ``main="inproc_main.cpp"`` builds a shared library instead (``with_args``: the kernel takes
    ordinary arguments; tests/fake_cupy.py loads it)."""
    src = read_source(source)
    for ptx, cpu in PORTS.items():
        src = src.replace(ptx, cpu)
    for old, new in {**SOURCE_PORTS.get(source, {}), **(replace or {})}.items():
        if old not in src:
            raise ValueError(f"{source} no longer holds {old!r}")
        src = src.replace(old, new)
    out.mkdir(parents=True, exist_ok=True)
    (out / "kernel.inc").write_text(src)
    shared = main == "inproc_main.cpp"
    exe = out / f"{kernel}_emu{'.so' if shared else ''}"
    if main == "args_main.cpp" or with_args:
        types = kernel_arguments(src, kernel)
        slots = ", ".join(f"({t})buffer_pointer(a[{i}])" if "*" in t else f"scalar<{t}>(a[{i}])"
                          for i, t in enumerate(types))
        (out / "call.inc").write_text(f"#define CALL(a) {kernel}({slots})\n")
        exe.with_suffix(".args").write_text(json.dumps(types))
    flags = [f"-D{k}={v}" for k, v in {"KERNEL": kernel, **(defines or {})}.items()]
    flags += (["-shared", "-fPIC"] + ["-DWITH_ARGS"] * bool(with_args)) if shared else []
    subprocess.run(["g++", "-std=c++20", "-O1", "-pthread", "-w", *flags, f"-I{HERE}", f"-I{out}",
                    str(HERE / main), "-o", str(exe)], check=True, capture_output=True)
    return exe


def kernel_signature(src: str, kernel: str) -> re.Match:
    """``kernel``'s ``extern "C" __global__ void`` signature in ``src`` (group 1: its arguments)."""
    bounds = r"(?:__launch_bounds__\([^)]*\)\s+)?"
    m = re.search(rf'extern "C" __global__ void\s+{bounds}{kernel}\s*\(([^)]*)\)', src)
    if m is None:
        raise ValueError(f"no extern \"C\" __global__ void {kernel}(...) in the source")
    return m


def kernel_arguments(src: str, kernel: str) -> list[str]:
    """The C types of ``kernel``'s arguments, from its ``extern "C" __global__ void`` signature."""
    m = kernel_signature(src, kernel)
    args = [" ".join(a.split()) for a in m.group(1).split(",") if a.strip()]
    return [re.sub(r"\s*\b\w+$", "", a) for a in args]


LAUNCH_TIMEOUT_S = 120  # one emulated launch of these tests takes well under a second
SCALARS = {"int": "i4", "unsigned": "u4", "u32": "u4", "long long": "i8", "u64": "u8",
           "unsigned long long": "u8", "float": "f4", "double": "f8", "const int": "i4",
           "const long long": "i8"}


def _pack(buffers: list[np.ndarray]) -> list[bytes]:
    blob = [np.int64(len(buffers)).tobytes()]
    for b in buffers:
        blob += [np.int64(b.nbytes).tobytes(), b.tobytes()]
    return blob


def _run(exe: Path, blob: list[bytes], buffers: list[np.ndarray]) -> list[np.ndarray]:
    work = exe.parent
    (work / "in.bin").write_bytes(b"".join(blob))
    # a kernel that deadlocks under the fibers spins: fail it long before CI's own limit
    subprocess.run([str(exe), str(work / "in.bin"), str(work / "out.bin")], check=True,
                   timeout=LAUNCH_TIMEOUT_S)
    raw = (work / "out.bin").read_bytes()
    back, at = [], 0
    for b in buffers:
        back.append(np.frombuffer(raw[at: at + b.nbytes], dtype=b.dtype).reshape(b.shape).copy())
        at += b.nbytes
    return back


def _buffer(value, buffers: list[np.ndarray]) -> tuple[int, int]:
    """(the driver's code for a pointer, its index in ``buffers``): ``value`` is an array or
    (array, byte offset); an array joins ``buffers`` once however often it is passed."""
    array, offset = value if isinstance(value, tuple) else (value, 0)
    array = np.ascontiguousarray(array)
    at = next((i for i, b in enumerate(buffers) if b is array), None)
    if at is None:
        buffers.append(array)
        at = len(buffers) - 1
    return (at + 1) << 40 | int(offset), at


def launch_args(exe: Path, blocks: int, threads: int, *args) -> list:
    """One launch of an ``args_main.cpp`` build: ``args`` as the kernel's signature has them, a
    pointer as a NumPy array, (array, byte offset) or None, a scalar as a NumPy scalar of the C
    type (np.int32 for int, np.int64 for long long, ...). Returns the args, each array as the
    kernel left it (scalars and None as given)."""
    types = json.loads(exe.with_suffix(".args").read_text())
    if len(args) != len(types):
        raise TypeError(f"{exe.name}: {len(types)} arguments ({', '.join(types)}), {len(args)} given")
    buffers: list[np.ndarray] = []
    owner: dict[int, int] = {}
    slots = np.zeros(len(args), np.uint64)
    for i, (t, value) in enumerate(zip(types, args, strict=True)):
        if "*" in t:
            if isinstance(value, np.generic):
                raise TypeError(f"argument {i} ({t}) needs an array, got {value!r}")
            if value is not None:
                slots[i], owner[i] = _buffer(value, buffers)
        else:
            want = np.dtype(SCALARS[t])
            if not isinstance(value, np.generic) or value.dtype != want:
                raise TypeError(f"argument {i} ({t}) needs a NumPy {want} scalar, got {value!r}")
            slots[i:i + 1].view(np.uint8)[:want.itemsize] = np.frombuffer(value.tobytes(), np.uint8)
    blob = _pack(buffers) + [np.array([len(args), blocks, threads], np.int64).tobytes(), slots.tobytes()]
    back = _run(exe, blob, buffers)
    return [back[owner[i]] if i in owner else value for i, value in enumerate(args)]


def launch(exe: Path, dtype: np.dtype, blocks: int, threads: int, **fields) -> dict[str, np.ndarray]:
    """One launch. A pointer field is a NumPy array, (array, byte offset) or None; the others are
    ints. Returns {field: the array after the launch} for every array passed (an array passed to
    several fields, as (array, offset), comes back once per field, whole)."""
    if "next" in dtype.names and "next" not in fields:
        fields["next"] = fields["ctrl"]  # the launch's own task counter (launch.set_params does the same)
    pointers = list(itertools.takewhile(lambda n: dtype[n] == np.dtype("u8"), dtype.names))
    buffers: list[np.ndarray] = []
    owner: dict[str, int] = {}
    words = {}
    for name, value in fields.items():
        if name in pointers and value is not None:
            words[name], owner[name] = _buffer(value, buffers)
        else:
            words[name] = 0 if name in pointers else value
    image = pack_params(dtype, words)   # the launcher's own packing (launch.set_params)
    blob = _pack(buffers) + [np.array([len(pointers), image.nbytes, blocks, threads], np.int64).tobytes(),
                             image.tobytes()]
    back = _run(exe, blob, buffers)
    return {name: back[i] for name, i in owner.items()}

