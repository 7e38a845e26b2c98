// Search-tree explorer view: tree (SVG), graph (SVG) and node panel (HTML).
// Plain ES module for anywidget; no imports, nothing loaded from a network.

const NS = "http://www.w3.org/2000/svg";
const COLOURS = {
  inner: "#7a8ea8", leaf: "#2e9d4f", dead: "#d1495b", pruned: "#ee9b00",
  skipped: "#c9c9c9", forest: "#444444",
};
const ROLE = { R: "#2e9d4f", L: "#2e9d4f", P: "#4c78a8", C: "#4c78a8", X: "#d1495b" };

function svg(tag, attrs = {}, parent = null) {
  const e = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
}

function html(tag, attrs = {}, text = null, parent = null) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text !== null) e.textContent = text;
  if (parent) parent.appendChild(e);
  return e;
}

function drawTree(model, box) {
  const v = model.get("view");
  const rev = model.get("revealed");
  const sel = model.get("selected");
  box.replaceChildren();
  if (!v || !v.id || v.id.length === 0) {
    html("div", { class: "mk-empty" }, "empty tree", box);
    return;
  }
  const n = v.id.length;
  const dx = Math.max(14, Math.min(44, 640 / v.width));
  const dy = n > 400 ? 34 : 48;
  const W = v.width * dx + 40, H = v.height * dy + 40;
  const s = svg("svg", { width: W, height: H, class: "mk-tree-svg", "data-role": "tree" }, box);
  const X = (j) => 20 + v.x[j] * dx + dx / 2;
  const Y = (j) => 22 + v.y[j] * dy;
  const seen = (j) => rev < 0 || v.id[j] <= rev;
  for (let j = 0; j < n; j++) {
    const p = v.parent[j];
    if (p < 0) continue;
    svg("line", {
      x1: X(p), y1: Y(p), x2: X(j), y2: Y(j),
      class: "mk-edge" + (v.status[j] === "skipped" ? " mk-skip" : "") + (seen(j) ? "" : " mk-future"),
    }, s);
  }
  const labels = n <= 300;
  for (let j = 0; j < n; j++) {
    const id = v.id[j];
    const g = svg("g", {
      class: "mk-node" + (seen(j) || id === sel ? "" : " mk-future") + (id === sel ? " mk-sel" : ""),
      "data-node": id, transform: `translate(${X(j)},${Y(j)})`,
    }, s);
    const r = n > 600 ? 4 : 7;
    svg("circle", {
      r: r, fill: v.status[j] === "skipped" ? "#fff" : COLOURS[v.status[j]] || "#888",
      stroke: v.status[j] === "skipped" ? "#aaa" : (v.output[j] ? "#000" : "none"),
      "stroke-width": v.output[j] ? 2 : 1, "stroke-dasharray": v.status[j] === "skipped" ? "2,2" : "none",
    }, g);
    const t = svg("title", {}, g);
    t.textContent = `#${id} ${v.status[j]}${v.output[j] ? " (output)" : ""}`;
    if (labels && v.status[j] !== "forest") {
      const tx = svg("text", { y: -10, class: "mk-label" }, g);
      tx.textContent = v.label[j];
    }
    if (v.hidden[j] > 0) {
      const st = svg("text", { y: 18, class: "mk-stub", "data-stub": id }, g);
      st.textContent = `+${v.hidden[j]}`;
      st.addEventListener("click", (ev) => {
        ev.stopPropagation();
        model.set("focus_request", id);
        model.save_changes();
      });
    }
    g.addEventListener("click", () => {
      model.set("selected", id);
      model.save_changes();
    });
  }
}

function drawGraph(model, box) {
  const gr = model.get("graph");
  const pan = model.get("panel") || {};
  box.replaceChildren();
  if (!gr || !gr.nodes) return;
  const S = 260;
  const s = svg("svg", { width: S, height: S, class: "mk-graph-svg", "data-role": "graph" }, box);
  const pos = {};
  for (const d of gr.nodes) pos[d.key] = [10 + d.x * (S - 20), 10 + d.y * (S - 20)];
  const role = {};
  for (const st of pan.sets || []) for (const k of st.keys) if (!(k in role)) role[k] = st.name;
  const inR = new Set([...(pan.sets || []).filter((x) => x.name === "R" || x.name === "L")
    .flatMap((x) => x.keys)]);
  const found = new Set();
  for (const c of pan.found || []) {
    for (let a = 0; a < c.length; a++) for (let b = a + 1; b < c.length; b++) {
      found.add(c[a] + "|" + c[b]);
      found.add(c[b] + "|" + c[a]);
    }
  }
  for (const [a, b] of gr.edges) {
    const hot = inR.has(a) && inR.has(b);
    const cls = hot ? "mk-gedge mk-hot" : (found.has(a + "|" + b) ? "mk-gedge mk-found" : "mk-gedge");
    svg("line", { x1: pos[a][0], y1: pos[a][1], x2: pos[b][0], y2: pos[b][1], class: cls }, s);
  }
  for (const d of gr.nodes) {
    const g = svg("g", { transform: `translate(${pos[d.key][0]},${pos[d.key][1]})`, class: "mk-gnode" }, s);
    const r = role[d.key];
    svg("circle", {
      r: 11, fill: ROLE[r] || "#eee", stroke: d.key === pan.pivot_key ? "#000" : "#999",
      "stroke-width": d.key === pan.pivot_key ? 3 : 1,
    }, g);
    const t = svg("text", { class: "mk-glabel", dy: 4, fill: r ? "#fff" : "#222" }, g);
    t.textContent = d.label;
  }
}

function drawPanel(model, box) {
  const p = model.get("panel") || {};
  box.replaceChildren();
  if (p.id === undefined) return;
  const head = html("div", { class: "mk-head" }, null, box);
  html("span", { class: "mk-pill", style: `background:${COLOURS[p.status] || "#888"}` }, p.status, head);
  html("b", { "data-role": "node-id" }, ` node #${p.id}`, head);
  html("span", {}, ` · ${p.kind} · depth ${p.depth} · work ${Math.round(p.work)}`, head);
  const tbl = html("table", { class: "mk-sets" }, null, box);
  for (const st of p.sets || []) {
    const tr = html("tr", { "data-set": st.name }, null, tbl);
    html("th", { style: `color:${ROLE[st.name] || "#333"}` }, st.name, tr);
    html("td", {}, "{" + st.labels.join(", ") + "}", tr);
  }
  const line = (k, val) => {
    if (val === "" || val === null || val === undefined) return;
    const tr = html("tr", {}, null, tbl);
    html("th", {}, k, tr);
    html("td", {}, String(val), tr);
  };
  line("pivot", p.pivot);
  line("output", p.output);
  if (p.check !== null && p.check !== undefined) line("maximal?", p.check ? "yes" : "no");
  line("why", p.reason);
  line("note", p.note);
  for (const [k, val] of p.extra || []) line(k, val);
  if (p.grid) {
    const g = p.grid;
    html("div", { class: "mk-grid-title" }, g.title + (g.cut ? " (first 40 rows/columns)" : ""), box);
    const t = html("table", { class: "mk-grid", "data-role": "grid" }, null, box);
    const hr = html("tr", {}, null, t);
    html("th", {}, "", hr);
    const marks = g.marks || {};
    const mark = (name, j) => (marks[name] || []).includes(j);
    g.col_labels.forEach((c, j) => {
      const cls = mark("P_b", j) || mark("P", j) || mark("L", j) ? "mk-colP" : (mark("R_b", j) ? "mk-colR" : "");
      html("th", { class: cls }, c, hr);
    });
    g.rows.forEach((row, i) => {
      const tr = html("tr", {}, null, t);
      html("th", {}, g.row_labels[i], tr);
      row.forEach((b, j) => html("td", { class: b ? "mk-on" : "mk-off" }, b ? "1" : "0", tr));
    });
    const keys = Object.keys(marks);
    if (keys.length) {
      const legend = keys.map((k) => `${k} = ${g.col_labels.map((_, j) => (mark(k, j) ? 1 : 0)).join("")}`);
      html("div", { class: "mk-masks" }, legend.join("   "), box);
    }
  }
  if (p.path && p.path.length) html("div", { class: "mk-path" }, "above: " + p.path.join("  ←  "), box);
}

function render({ model, el }) {
  el.classList.add("mk-explorer");
  const title = html("div", { class: "mk-title" }, null, el);
  const row = html("div", { class: "mk-row" }, null, el);
  const treeBox = html("div", { class: "mk-tree" }, null, row);
  const side = html("div", { class: "mk-side" }, null, row);
  const graphBox = html("div", { class: "mk-graph" }, null, side);
  const panelBox = html("div", { class: "mk-panel", "data-role": "panel" }, null, side);
  const all = () => {
    title.textContent = model.get("title");
    drawTree(model, treeBox);
    drawGraph(model, graphBox);
    drawPanel(model, panelBox);
  };
  const onTree = () => drawTree(model, treeBox);
  const onPanel = () => {
    drawGraph(model, graphBox);
    drawPanel(model, panelBox);
  };
  model.on("change:view", onTree);
  model.on("change:revealed", onTree);
  model.on("change:selected", onTree);
  model.on("change:panel", onPanel);
  model.on("change:graph", onPanel);
  model.on("change:title", all);
  all();
  return () => {
    model.off("change:view", onTree);
    model.off("change:revealed", onTree);
    model.off("change:selected", onTree);
    model.off("change:panel", onPanel);
    model.off("change:graph", onPanel);
    model.off("change:title", all);
  };
}

export default { render };
