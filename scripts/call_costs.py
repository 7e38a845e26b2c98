"""Costs of single CuPy and driver calls that a warm public call makes, on this GPU host (medians of
2000 after 50 unmeasured). From the checkout's root:

    python3 scripts/call_costs.py
"""
import statistics
import time

import cupy

from mce_kit.gpu import rdmce
from mce_kit.gpu.loader import load_module


def cost(name: str, call, n: int = 2000) -> None:
    for _ in range(50):
        call()
    times = []
    for _ in range(n):
        t = time.perf_counter()
        call()
        times.append(time.perf_counter() - t)
    print(f"{name:42s} {statistics.median(times) * 1e6:7.2f} us")


defines = {**rdmce._DEFINES, "STREAMING": 0}
module = load_module("rdmce.cu", defines=defines)
kernel = module.get_function("rdmce_kernel")
event = cupy.cuda.Event()
table = {i: i for i in range(100)}
cost("runtime.memGetInfo", cupy.cuda.runtime.memGetInfo)
cost("pool.free_bytes", lambda: cupy.get_default_memory_pool().free_bytes())
cost("Event()", cupy.cuda.Event)
cost("Event().record()", lambda: cupy.cuda.Event().record())
cost("event.record()", event.record)
cost("RawModule.get_function", lambda: module.get_function("rdmce_kernel"))
cost("kernel.num_regs", lambda: kernel.num_regs)
cost("load_module (cached)", lambda: load_module("rdmce.cu", defines=defines))
cost("cupy.zeros(600, uint64)", lambda: cupy.zeros(600, dtype=cupy.uint64))
cost("cupy.empty(600, uint64)", lambda: cupy.empty(600, dtype=cupy.uint64))
cost("Device().id", lambda: cupy.cuda.Device().id)
cost("python: 100 dict reads", lambda: [table[i] for i in range(100)])
