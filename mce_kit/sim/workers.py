"""Simulated GPU workers sharing a recorded search forest (a CPU model, not a GPU run).

p workers (warps, or blocks for mce-gpu) walk the forest of a
:class:`~mce_kit.sim.tree.SearchTree` depth first. Visiting a node costs its
``work`` (words touched, as the model counted them) divided by the worker's
speed. The simulation is discrete-event and deterministic: the next event is
always the worker with the smallest clock (ties: smallest id).

Schemes, all starting with seeds handed out by a shared counter:

``"static"``   a worker keeps each seed's sub-tree to itself.
``"worklist"`` mce-gpu: once the seeds are gone, idle workers queue as
               receivers; a busy donor about to enter a branch with
               |P| >= ``min_donate`` that still has other branches at this level
               and at an earlier one hands that branch to the first receiver
               (the donor pays ``costs.donate``, the receiver waits for it).
``"rdmce"``    root-down exposure: each worker exposes the shallowest stack
               level that still has branches, if its |P| > ``tau``; an idle
               worker takes the last branch there (paying ``costs.pull``) while
               the owner keeps going; the owner pays ``costs.atomic`` for each
               branch it takes from its own exposed level.
``"tasks"``    GMBE+: a task whose root has min(|L|,|C|) > ``bound_height`` and
               min(|L|,|C|)·|C| > ``bound_size`` is split: the worker evaluates
               the root and queues each child as a task; queued tasks go before
               new seeds.

A worker picks its next branch when it has finished the node before (not when
it starts it), so a donor sees the worker list as it stands at that moment.

Results: per worker busy time (nodes), overhead (hand-offs), idle time, node
count; the makespan; the number of hand-offs; a timeline of segments, an
arrow per hand-off and a log of events (``SimResult.steps``: who took which
seed, who joined the worker list, who handed which branch to whom, when).
"""

from __future__ import annotations

import heapq
from collections import deque
from dataclasses import dataclass, field

import numpy as np

SCHEMES = ("static", "worklist", "rdmce", "tasks")
EVENTS = {"seed": "takes seed", "task": "takes queued task", "pull": "pulls branch from",
          "donate": "donates branch to", "wait": "joins the worker list", "idle": "waits for work"}
_ADVANCE = -1  # a worker's next event picks its next branch


@dataclass
class Costs:
    """Overheads in the same units as node work."""

    pull: float = 2.0  # RDMCE: atomic decrement + copy of the exposed node
    donate: float = 6.0  # mce-gpu: the donor fills the receiver's buffers
    split: float = 1.0  # GMBE+: one enqueue per sub-task
    atomic: float = 1.0  # RDMCE: the owner also takes branches of its exposed level with an atomic


@dataclass
class SimResult:
    scheme: str
    p: int
    busy: np.ndarray
    overhead: np.ndarray
    idle: np.ndarray
    nodes: np.ndarray
    makespan: float
    handoffs: int
    owner: np.ndarray = None  # worker that visited each tree node (-1: not a search node)
    segments: list = field(default_factory=list)  # (worker, start, end, root node, how)
    arrows: list = field(default_factory=list)  # (time, from worker, to worker, node)
    params: dict = field(default_factory=dict)
    events: list = field(default_factory=list)  # (time, worker, event, node or -1, other worker or -1)

    @property
    def load_ratio(self) -> float:
        """max / mean busy time over workers (mce-gpu Figure 3's imbalance measure)."""
        m = self.busy.mean()
        return float(self.busy.max() / m) if m > 0 else 1.0

    @property
    def node_ratio(self) -> float:
        """max / mean nodes visited per worker."""
        m = self.nodes.mean()
        return float(self.nodes.max() / m) if m > 0 else 1.0

    def workers(self):
        """One row per worker: busy, overhead, idle, nodes."""
        import pandas as pd

        return pd.DataFrame({"worker": np.arange(self.p), "busy": self.busy, "overhead": self.overhead,
                             "idle": self.idle, "nodes": self.nodes})

    def timeline(self):
        import pandas as pd

        return pd.DataFrame(self.segments, columns=["worker", "start", "end", "node", "how"])

    def active(self, bins: int = 100):
        """Number of busy workers over time (GMBE+ Figure 13's curve)."""
        import pandas as pd

        edges = np.linspace(0, self.makespan, bins + 1)
        act = np.zeros(bins)
        for _, s, e, _, _ in self.segments:
            lo, hi = np.clip(edges[:-1], s, e), np.clip(edges[1:], s, e)
            act += (hi - lo) / np.diff(edges)
        return pd.DataFrame({"time": edges[:-1], "active": act, "fraction": act / self.p})

    def outputs(self, tree) -> dict:
        """worker -> the outputs (e.g. maximal cliques) of the nodes it visited, in visiting order."""
        found: dict = {w: [] for w in range(self.p)}
        for j, i in enumerate(tree.output_node):
            if self.owner[i] >= 0:
                found[int(self.owner[i])].append(tree.outputs[j])
        return found

    def steps(self, tree=None):
        """The event log as a table, in time order: time, worker, event, other worker, node (its sets
        and |P| with ``tree``)."""
        import pandas as pd

        rows = []
        for t, w, ev, x, other in self.events:
            row = {"time": t, "worker": f"w{w}", "event": EVENTS[ev],
                   "other worker": f"w{other}" if other >= 0 else "", "node": x if x >= 0 else pd.NA}
            if tree is not None:
                row["node sets"] = tree.describe(x).split(" ", 1)[1] if x >= 0 else ""
                row["|P|"] = tree.cand[x] if x >= 0 else pd.NA
            rows.append(row)
        cols = ["time", "worker", "event", "other worker", "node"] + (["node sets", "|P|"] if tree else [])
        df = pd.DataFrame(rows, columns=cols)
        return df.astype({c: "Int64" for c in ("node", "|P|") if c in df})

    def row(self) -> dict:
        return {"scheme": self.scheme, "p": self.p, "makespan": self.makespan, "load_ratio": self.load_ratio,
                "node_ratio": self.node_ratio, "handoffs": self.handoffs,
                "idle_fraction": float(self.idle.sum() / (self.p * self.makespan)) if self.makespan else 0.0,
                **self.params}

    def __repr__(self) -> str:
        return (f"SimResult({self.scheme}, p={self.p}: makespan {self.makespan:.0f}, "
                f"max/avg load {self.load_ratio:.2f}, {self.handoffs} hand-offs)")


class _Worker:
    __slots__ = ("stack", "next", "clock", "busy", "over", "nodes", "seg")

    def __init__(self):
        self.stack: list = []  # frames [node, deque of children, ready time]
        self.next = None  # the node it visits at its next event
        self.clock = 0.0
        self.busy = self.over = 0.0
        self.nodes = 0
        self.seg = None  # (start, root, how) of the current segment


def simulate(tree, scheme: str = "static", p: int = 8, *, tau: int = 24, min_donate: int = 10,
             bound_height: int = 20, bound_size: int = 1500, speed: float = 1.0,
             costs: Costs | None = None) -> SimResult:
    """Run ``p`` simulated workers over ``tree`` with one load-balancing scheme (see module doc)."""
    if scheme not in SCHEMES:
        raise ValueError(f"scheme must be one of {SCHEMES}")
    costs = costs or Costs()
    n = len(tree)
    real = [s != "skipped" for s in tree.status]
    kids = [[c for c in ch if real[c]] for ch in tree.children]
    work = [max(1.0, w) / speed for w in tree.work]
    cand, left = tree.cand, tree.left
    seeds = kids[0] if n and tree.kind[0] == "forest" else ([0] if n else [])
    state = {"seed": 0}
    queue: deque = deque()  # GMBE+ tasks
    receivers: deque = deque()  # mce-gpu worker list (FIFO of idle workers)
    waiting: list[int] = []  # idle workers polling (rdmce, tasks)
    W = [_Worker() for _ in range(p)]
    heap = [(0.0, w) for w in range(p)]
    segments, arrows, events = [], [], []
    handoffs = 0
    owner = np.full(n, -1, dtype=np.int64)

    def big_task(x):
        h = min(left[x], cand[x]) if left[x] >= 0 else cand[x]
        return h > bound_height and h * cand[x] > bound_size and kids[x]

    def start(w, x, t, how, src=None):
        wk = W[w]
        wk.next, wk.clock, wk.seg = x, t, (t, x, how)
        heapq.heappush(heap, (t, w))
        if src is not None:
            arrows.append((t, src, w, x))
        if how in ("seed", "task"):
            events.append((t, w, how, x, -1))

    def finish_segment(wk, w, t):
        if wk.seg is not None:
            s, x, how = wk.seg
            segments.append((w, s, t, x, how))
            wk.seg = None

    def acquire(w, t):
        """Give idle worker w new work at time t; False if none is available now."""
        nonlocal handoffs
        wk = W[w]
        if scheme == "tasks" and queue:
            x, how = queue.popleft(), "task"
        elif state["seed"] < len(seeds):
            x, how = seeds[state["seed"]], "seed"
            state["seed"] += 1
        elif scheme == "rdmce":
            got = pull(w, t)
            if got is None:
                return False
            x, src = got
            handoffs += 1
            wk.over += costs.pull
            events.append((t, w, "pull", x, src))
            start(w, x, t + costs.pull, "pull", src)
            return True
        else:
            return False
        if scheme == "tasks":
            while big_task(x):  # split: evaluate the root, queue its children
                owner[x] = w
                wk.busy += work[x]
                wk.nodes += 1
                t += work[x] + costs.split * len(kids[x])
                wk.over += costs.split * len(kids[x])
                queue.extend(kids[x])
                handoffs += len(kids[x])
                x = queue.popleft()
        start(w, x, t, how)
        return True

    exposed: dict[int, list] = {}  # RDMCE: worker -> its exposed frame (ptr, with cnt = len(frame[1]))

    def expose(w):
        """Point w's ptr at its shallowest level with branches left, if that level's |P| > tau."""
        exposed.pop(w, None)
        for frame in W[w].stack:
            if frame[1]:
                if cand[frame[0]] > tau:
                    exposed[w] = frame
                return  # deeper levels only have smaller P

    def pull(w, t):
        """RDMCE: the last branch of the first exposed level found after w (cyclically)."""
        ready = [v for v, frame in exposed.items() if frame[2] <= t]
        if not ready:
            return None
        v = min(ready, key=lambda v: (v - w) % p)
        x = exposed[v][1].pop()
        expose(v)
        return x, v

    def advance(w, t):
        """Next node of w's depth-first walk; mce-gpu donors hand branches out here."""
        nonlocal handoffs
        wk = W[w]
        stack = wk.stack
        while stack:
            frame = stack[-1]
            if not frame[1]:
                stack.pop()
                continue
            x = frame[1].popleft()
            if scheme == "rdmce" and exposed.get(w) is frame:
                t += costs.atomic
                wk.over += costs.atomic
            if (scheme == "worklist" and receivers and state["seed"] >= len(seeds) and cand[x] >= min_donate
                    and frame[1] and any(f[1] for f in stack[:-1])):
                r = receivers.popleft()
                events.append((t, w, "donate", x, r))
                t += costs.donate
                wk.over += costs.donate
                handoffs += 1
                start(r, x, t, "donated", w)
                continue
            return x, t
        return None, t

    def serve(t):
        """Hand waiting workers whatever work appeared (queued tasks, exposed branches)."""
        while waiting and acquire(waiting[0], max(t, W[waiting[0]].clock)):
            waiting.pop(0)

    while heap:
        t, w = heapq.heappop(heap)
        wk = W[w]
        if wk.next == _ADVANCE:  # the node before is done: pick the next branch now
            wk.next, wk.clock = advance(w, t)
            if scheme == "rdmce":
                expose(w)
            if wk.clock != t:  # a donation or an atomic took time: go on then (now, if no event comes first)
                if heap and heap[0] < (wk.clock, w):
                    heapq.heappush(heap, (wk.clock, w))
                    continue
                t = wk.clock
        if wk.next is None:
            finish_segment(wk, w, t)
            wk.clock = t
            if not acquire(w, t):
                if scheme == "worklist":
                    receivers.append(w)
                    events.append((t, w, "wait", -1, -1))
                elif scheme in ("rdmce", "tasks"):
                    waiting.append(w)
                    events.append((t, w, "idle", -1, -1))
            continue
        x = wk.next
        c = work[x]
        owner[x] = w
        wk.busy += c
        wk.nodes += 1
        if kids[x]:
            wk.stack.append([x, deque(kids[x]), t + c])
        wk.next, wk.clock = _ADVANCE, t + c  # (its children are exposed once it is done, at t + c)
        heapq.heappush(heap, (t + c, w))
        if waiting and (exposed or queue):
            serve(t)

    makespan = max([wk.clock for wk in W] + [s[2] for s in segments] + [0.0])
    events.sort(key=lambda e: e[0])  # stable: same-time events keep the order they happened in
    busy = np.array([wk.busy for wk in W])
    over = np.array([wk.over for wk in W])
    return SimResult(
        scheme=scheme, p=p, busy=busy, overhead=over, idle=makespan - busy - over,
        nodes=np.array([wk.nodes for wk in W]), makespan=float(makespan), handoffs=handoffs, owner=owner,
        segments=segments, arrows=arrows, events=events,
        params={"tau": tau, "min_donate": min_donate, "bound_height": bound_height,
                "bound_size": bound_size, "speed": speed, "tree": tree.algorithm},
    )


# --- the papers' load-balance plots, as tidy DataFrames --------------------


def load_balance_table(trees: dict, p: int = 32, **kw):
    """mce-gpu Figure 3: max/avg load for each tree (e.g. L1, L2) with and without the worker list."""
    import pandas as pd

    rows = []
    for name, t in trees.items():
        for scheme in ("static", "worklist"):
            r = simulate(t, scheme, p, **kw)
            rows.append({**r.row(), "tree": name, "worker_list": scheme == "worklist"})
    return pd.DataFrame(rows)


def exposure_table(tree, p: int = 32, **kw):
    """RDMCE Figure 8: root-down exposure on vs off."""
    import pandas as pd

    rows = [{"exposure": s == "rdmce", **simulate(tree, s, p, **kw).row()} for s in ("static", "rdmce")]
    return pd.DataFrame(rows)


def tau_sweep(tree, taus=(16, 24, 32, 48, 64, 96), p: int = 32, **kw):
    """RDMCE Figure 12: makespan against the exposure threshold tau."""
    import pandas as pd

    return pd.DataFrame([simulate(tree, "rdmce", p, tau=t, **kw).row() for t in taus])


def active_workers(runs: dict, bins: int = 100):
    """GMBE+ Figure 13: busy workers over time for several runs {label: SimResult}."""
    import pandas as pd

    frames = []
    for label, r in runs.items():
        f = r.active(bins)
        f["run"] = label
        frames.append(f)
    return pd.concat(frames, ignore_index=True)
