"""Any mce_kit kernel that reads ``__constant__ Params G``, run on CPU threads (no GPU needed).

``build`` compiles a kernel's source with g++ against tests/cuda_emu/emu.h (one OS thread per
CUDA thread, warp collectives through barriers, blocks one after another) and
tests/cuda_emu/launch_main.cpp; ``launch`` fills the Params struct the way ``launch.set_params``
does, with NumPy arrays for the device buffers, and returns the buffers as the kernel left them.
This checks a kernel's logic with the launcher's own host planning; timings mean nothing here.
"""

from __future__ import annotations

import itertools
import shutil
import subprocess
from pathlib import Path

import numpy as np

from mce_kit.gpu.loader import read_source

HERE = Path(__file__).parent / "cuda_emu"
HAVE_GXX = shutil.which("g++") is not None
# PTX the emulation cannot run, and what a CPU thread does instead
PORTS = {'asm("mov.u32 %0, %%lanemask_lt;" : "=r"(m));': "m = (1u << (threadIdx.x & 31)) - 1;",
         'asm volatile("mov.u64 %0, %globaltimer;" : "=l"(t));': "t = clock64();",
         'asm volatile("mov.u32 %0, %smid;" : "=r"(s));': "s = 0;"}


def build(source: str, kernel: str, out: Path, defines: dict | None = None, main: str = "launch_main.cpp",
          replace: dict | None = None) -> Path:
    """An executable running ``kernel`` of mce_kit/gpu/cuda/``source``, built in ``out`` with the
    driver ``main`` of tests/cuda_emu; ``replace``: further {text: its stand-in} for the source."""
    src = read_source(source)
    for ptx, cpu in PORTS.items():
        src = src.replace(ptx, cpu)
    for old, new in (replace or {}).items():
        if old not in src:
            raise ValueError(f"{source} no longer holds {old!r}")
        src = src.replace(old, new)
    out.mkdir(parents=True, exist_ok=True)
    (out / "kernel.inc").write_text(src)
    exe = out / f"{kernel}_emu"
    flags = [f"-D{k}={v}" for k, v in {"KERNEL": kernel, **(defines or {})}.items()]
    subprocess.run(["g++", "-std=c++20", "-O1", "-pthread", "-w", *flags, f"-I{HERE}", f"-I{out}",
                    str(HERE / main), "-o", str(exe)], check=True, capture_output=True)
    return exe


def launch(exe: Path, dtype: np.dtype, blocks: int, threads: int, **fields) -> dict[str, np.ndarray]:
    """One launch. A pointer field is a NumPy array, (array, byte offset) or None; the others are
    ints. Returns {field: the array after the launch} for every array passed (an array passed to
    several fields, as (array, offset), comes back once per field, whole)."""
    if set(fields) != set(dtype.names):
        raise TypeError(f"Params fields differ: {sorted(set(fields) ^ set(dtype.names))}")
    pointers = list(itertools.takewhile(lambda n: dtype[n] == np.dtype("u8"), dtype.names))
    image = np.zeros(1, dtype=dtype)
    buffers: list[np.ndarray] = []
    owner: dict[str, int] = {}
    for name, value in fields.items():
        if name in pointers:
            if value is None:
                continue
            array, offset = value if isinstance(value, tuple) else (value, 0)
            array = np.ascontiguousarray(array)
            at = next((i for i, b in enumerate(buffers) if b is array), None)
            if at is None:
                buffers.append(array)
                at = len(buffers) - 1
            owner[name] = at
            image[name] = (at + 1) << 40 | int(offset)
        else:
            image[name] = value
    work = exe.parent
    blob = [np.int64(len(buffers)).tobytes()]
    for b in buffers:
        blob += [np.int64(b.nbytes).tobytes(), b.tobytes()]
    blob += [np.array([len(pointers), image.nbytes, blocks, threads], np.int64).tobytes(), image.tobytes()]
    (work / "in.bin").write_bytes(b"".join(blob))
    subprocess.run([str(exe), str(work / "in.bin"), str(work / "out.bin")], check=True, timeout=600)
    raw = (work / "out.bin").read_bytes()
    back, at = [], 0
    for b in buffers:
        back.append(np.frombuffer(raw[at: at + b.nbytes], dtype=b.dtype).reshape(b.shape).copy())
        at += b.nbytes
    return {name: back[i] for name, i in owner.items()}

