"""One search-tree record shared by every instrumented model.

A model calls :meth:`SearchTree.add` once per node it creates, in the order
it creates them, so a node's id is also its visiting step and a parent's id
is always smaller than its children's. Storage is columnar (plain lists), so
a few 10^4 nodes cost little; ``store_sets=False`` keeps only the shape,
the counts and the outputs for bigger runs.

Vocabulary of a node:

``kind``
    ``"forest"`` (an artificial top joining independent seeds, not a search
    node), ``"root"`` (a single search root such as (∅, V, ∅)), ``"seed"``
    (the root of an independent sub-tree: a vertex, an edge, a task) or
    ``"node"``.
``status``
    ``"inner"`` (has children), ``"leaf"``, ``"dead"`` (a leaf that
    failed its maximality check, e.g. P empty but X not), ``"pruned"``
    (evaluated, then cut by a rule) or ``"skipped"`` (a branch never
    computed: a neighbour of the pivot, a GMBE+ candidate removed early).
``sets``
    ``{"R": (...), "P": (...), "X": (...)}`` or ``{"L": ..., "R": ..., "C": ...}``,
    vertex ids of the input graph.
``check``
    result of a maximality check (True/False), None where none was made.
``cand``, ``left``
    |P| (or |C|) and |L|, kept even when sets are not (load-balancing rules use them).
``work``
    the model's cost of the node (bitmap words or set elements touched).
``grid``
    index into :attr:`SearchTree.grids`: the bitmap sub-graph this node
    reads (shared by a whole sub-tree). ``bits`` holds the node's own masks
    over that grid's columns (e.g. RDMCE's R_b, P_b, VP_b).
"""

from __future__ import annotations

from array import array
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

KINDS = ("forest", "root", "seed", "node")
STATUSES = ("inner", "leaf", "dead", "pruned", "skipped")


class _Coded:
    """A column of a few short strings, one byte per node."""

    def __init__(self, names):
        self.names = list(names)
        self.code = {v: i for i, v in enumerate(self.names)}
        self.a = array("b")

    def append(self, v):
        self.a.append(self.code[v])

    def __getitem__(self, i):
        return self.names[self.a[i]]

    def __setitem__(self, i, v):
        self.a[i] = self.code[v]

    def __len__(self):
        return len(self.a)

    def __iter__(self):
        names = self.names
        return (names[c] for c in self.a)

    def codes(self) -> np.ndarray:
        return np.frombuffer(self.a, dtype=np.int8) if len(self.a) else np.zeros(0, np.int8)


class _Sparse:
    """A column that is None for most nodes: a dict from node id to value."""

    def __init__(self):
        self.d: dict = {}
        self.n = 0

    def append(self, v):
        if v is not None:
            self.d[self.n] = v
        self.n += 1

    def __getitem__(self, i):
        if not -self.n <= i < self.n:
            raise IndexError(i)
        return self.d.get(i % self.n)

    def __setitem__(self, i, v):
        if v is None:
            self.d.pop(i, None)
        else:
            self.d[i] = v

    def __len__(self):
        return self.n

    def __iter__(self):
        return (self.d.get(i) for i in range(self.n))


@dataclass
class Grid:
    """A bitmap sub-graph: ``rows[i]`` has bit j set iff row_labels[i] ~ col_labels[j]."""

    row_labels: tuple
    col_labels: tuple
    rows: list[int]
    row_side: str = "V"
    col_side: str = "V"
    title: str = ""

    @property
    def words(self) -> int:
        """32-bit words per row."""
        return max(1, -(-len(self.col_labels) // 32))

    def bit_rows(self) -> list[list[int]]:
        """The grid as 0/1 lists (row i, column j)."""
        w = len(self.col_labels)
        return [[(r >> j) & 1 for j in range(w)] for r in self.rows]


@dataclass
class Node:
    """A read-only view of one node, for panels and tests."""

    id: int
    parent: int
    depth: int
    kind: str
    status: str
    sets: dict
    pivot: int | None
    reason: str | None
    output: tuple | None
    check: bool | None
    work: float
    grid: int
    bits: dict | None
    note: str | None
    extra: dict | None
    children: list[int] = field(default_factory=list)


class SearchTree:
    """Columnar record of a search tree (or forest under a ``"forest"`` top)."""

    def __init__(self, algorithm: str, params: dict | None = None, *, names: dict | None = None,
                 sides: dict | None = None, store_sets: bool = True):
        self.algorithm = algorithm
        self.params = dict(params or {})
        self.names = names or {}  # side -> list of vertex labels
        self.sides = sides or {}  # set name -> side ("V" when absent)
        self.store_sets = store_sets
        # typed arrays and sparse columns: about 50 bytes per node without sets
        self.parent = array("q")
        self.depth = array("i")
        self.kind = _Coded(KINDS)
        self.status = _Coded(STATUSES)
        self.reason = _Sparse()
        self.pivot = _Sparse()
        self.check = _Coded((None, True, False))
        self.work = array("d")
        self.cand = array("q")  # |P| (cliques) or |C| (bicliques), kept even without sets
        self.left = array("q")  # |L| for bicliques, -1 otherwise
        self.out = array("q")  # index into outputs, -1 when none
        self.grid = array("q")
        self._sets: dict[int, dict] = {}
        self._bits: dict[int, dict] = {}
        self._note: dict[int, str] = {}
        self._extra: dict[int, dict] = {}
        self.grids: list[Grid] = []
        self.outputs: list[tuple] = []
        self.output_node: list[int] = []
        self.meta: dict = {}
        self._children: list[list[int]] | None = None

    # --- building -------------------------------------------------------
    def add(self, parent: int, *, kind: str = "node", sets: dict | None = None, status: str = "leaf",
            pivot: int | None = None, reason: str | None = None, work: float = 0.0, grid: int = -1,
            bits: dict | None = None, note: str | None = None, extra: dict | None = None,
            depth: int | None = None, cand: int | None = None, left: int = -1) -> int:
        """Append a node and return its id. Its status starts as ``"leaf"``."""
        i = len(self.parent)
        if parent >= 0:
            if self.status[parent] == "leaf" and status != "skipped":
                self.status[parent] = "inner"
            if depth is None:
                depth = self.depth[parent] + 1
        self.parent.append(parent)
        self.depth.append(0 if depth is None else depth)
        self.kind.append(kind)
        self.status.append(status)
        self.reason.append(reason)
        self.pivot.append(pivot)
        self.check.append(None)
        self.work.append(float(work))
        if cand is None:
            cand = len((sets or {}).get("P", (sets or {}).get("C", ())))
        self.cand.append(cand)
        self.left.append(left)
        self.out.append(-1)
        self.grid.append(grid)
        keep = self.store_sets
        if keep and sets:
            self._sets[i] = {k: tuple(int(x) for x in v) for k, v in sets.items()}
        if keep and bits:
            self._bits[i] = bits
        if note and keep:
            self._note[i] = note
        if extra and keep:
            self._extra[i] = extra
        self._children = None
        return i

    def skip(self, parent: int, reason: str, *, sets: dict | None = None, note: str | None = None) -> int:
        """Record a branch that was never computed (it costs no work)."""
        return self.add(parent, sets=sets, status="skipped", reason=reason, note=note)

    def set(self, i: int, **kw) -> None:
        """Update fields of node i: status, reason, pivot, check, work, grid, bits, note, extra."""
        for k, v in kw.items():
            if k == "note":
                if v and self.store_sets:
                    self._note[i] = v
            elif k == "extra":
                if v and self.store_sets:
                    self._extra.setdefault(i, {}).update(v)
            elif k == "bits":
                if self.store_sets:
                    self._bits[i] = v
            elif k == "sets":
                if self.store_sets:
                    self._sets[i] = {a: tuple(int(x) for x in b) for a, b in v.items()}
            else:
                getattr(self, k)[i] = v

    def emit(self, i: int, output) -> None:
        """Node i outputs ``output`` (a sorted tuple, or a pair of them)."""
        self.out[i] = len(self.outputs)
        self.outputs.append(output)
        self.output_node.append(i)

    def add_grid(self, grid: Grid) -> int:
        self.grids.append(grid)
        return len(self.grids) - 1

    # --- reading --------------------------------------------------------
    def __len__(self) -> int:
        return len(self.parent)

    @property
    def children(self) -> list[list[int]]:
        """children[i]: ids of i's children, in visiting order."""
        if self._children is None:
            ch: list[list[int]] = [[] for _ in range(len(self))]
            for i, p in enumerate(self.parent):
                if p >= 0:
                    ch[p].append(i)
            self._children = ch
        return self._children

    def sets(self, i: int) -> dict:
        return self._sets.get(i, {})

    def node(self, i: int) -> Node:
        o = self.out[i]
        return Node(
            id=i, parent=self.parent[i], depth=self.depth[i], kind=self.kind[i], status=self.status[i],
            sets=self.sets(i), pivot=self.pivot[i], reason=self.reason[i],
            output=self.outputs[o] if o >= 0 else None, check=self.check[i], work=self.work[i],
            grid=self.grid[i], bits=self._bits.get(i), note=self._note.get(i), extra=self._extra.get(i),
            children=list(self.children[i]),
        )

    def search_nodes(self) -> np.ndarray:
        """Ids of nodes that were actually computed (not the forest top, not skipped)."""
        k, s = self.kind.codes(), self.status.codes()
        return np.flatnonzero((k != KINDS.index("forest")) & (s != STATUSES.index("skipped")))

    def subtree_sizes(self, skipped: bool = True) -> np.ndarray:
        """Number of nodes in each node's sub-tree (itself included; skipped branches optional)."""
        size = np.ones(len(self), dtype=np.int64)
        if not skipped:
            size[self.status.codes() == STATUSES.index("skipped")] = 0
        par = np.frombuffer(self.parent, dtype=np.int64) if len(self) else np.zeros(0, np.int64)
        for i in range(len(self) - 1, 0, -1):  # children always come after parents
            if par[i] >= 0:
                size[par[i]] += size[i]
        return size

    def path(self, i: int) -> list[int]:
        """Ids from the top down to i."""
        out = []
        while i >= 0:
            out.append(i)
            i = self.parent[i]
        return out[::-1]

    def label(self, v: int, side: str = "V") -> str:
        names = self.names.get(side)
        return str(names[v]) if names is not None else str(v)

    def label_set(self, name: str, verts) -> list[str]:
        side = self.sides.get(name, "V")
        return [self.label(v, side) for v in verts]

    def describe(self, i: int) -> str:
        """One line: the node's sets with vertex labels."""
        parts = [f"{k}={{{','.join(self.label_set(k, v))}}}" for k, v in self.sets(i).items()]
        if self.status[i] == "skipped":
            parts = [f"skipped {self._note.get(i, '')} ({self.reason[i]})"]
        return f"#{i} " + " ".join(parts)

    def summary(self) -> dict:
        """Counts: nodes, seeds, leaves, outputs, failed checks, pruned/skipped by reason, depth, work."""
        k, s = self.kind.codes(), self.status.codes()
        real = k != KINDS.index("forest")
        kind = dict(zip(KINDS, np.bincount(k, minlength=len(KINDS)).tolist(), strict=True))
        status = dict(zip(STATUSES, np.bincount(s[real], minlength=len(STATUSES)).tolist(), strict=True))
        skipped = Counter(r for i, r in self.reason.d.items() if self.status[i] == "skipped")
        pruned = Counter(r for i, r in self.reason.d.items() if self.status[i] == "pruned")
        depth = np.frombuffer(self.depth, dtype=np.int32) if len(self) else np.zeros(0, np.int32)
        nodes = len(self) - kind["forest"] - status["skipped"]
        return {
            "algorithm": self.algorithm,
            "nodes": nodes,
            "seeds": kind["seed"] + kind["root"],
            "inner": status["inner"],
            "leaves": status["leaf"] + status["dead"] + status["pruned"],
            "outputs": len(self.outputs),
            "failed_checks": int((self.check.codes() == 2).sum()),
            "dead_ends": status["dead"],
            "pruned": dict(pruned),
            "skipped": dict(skipped),
            "max_depth": int(depth[real].max()) if real.any() else 0,
            "work": float(sum(self.work)),
        }

    def __repr__(self) -> str:
        s = self.summary()
        return f"SearchTree({self.algorithm}: {s['nodes']} nodes, {s['outputs']} outputs)"
