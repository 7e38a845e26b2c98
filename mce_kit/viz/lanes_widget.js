// Simulated workers as lanes over time; hand-offs (pulls, donations) as arrows.
// Plain ES module for anywidget; nothing loaded from a network.

const NS = "http://www.w3.org/2000/svg";
const HOW = { seed: "#4c78a8", pull: "#f58518", donated: "#e45756", task: "#54a24b" };

function svg(tag, attrs = {}, parent = null) {
  const e = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
}

function draw(model, box) {
  const d = model.get("data") || {};
  box.replaceChildren();
  if (!d.p) return;
  const lane = Math.max(4, Math.min(18, 420 / d.p));
  const left = 44, W = 860, H = d.p * lane + 50;
  const T = (t) => left + (t / (d.makespan || 1)) * (W - left - 10);
  const Y = (w) => 24 + w * lane;
  const s = svg("svg", { width: W, height: H, class: "mk-lanes-svg", "data-role": "lanes" }, box);
  const title = svg("text", { x: left, y: 14, class: "mk-lanes-title" }, s);
  title.textContent = d.title || "";
  const defs = svg("defs", {}, s);
  const m = svg("marker", { id: "mk-arrow", viewBox: "0 0 10 10", refX: 9, refY: 5,
    markerWidth: 5, markerHeight: 5, orient: "auto-start-reverse" }, defs);
  svg("path", { d: "M0,0 L10,5 L0,10 z", fill: "#333" }, m);
  for (let w = 0; w < d.p; w++) {
    if (lane >= 10) {
      const t = svg("text", { x: left - 4, y: Y(w) + lane * 0.7, class: "mk-lane-label" }, s);
      t.textContent = w;
    }
  }
  for (const [w, a, b, how, node] of d.segments) {
    const r = svg("rect", { x: T(a), y: Y(w) + 1, width: Math.max(0.5, T(b) - T(a)), height: lane - 2,
      fill: HOW[how] || "#999", class: "mk-seg" }, s);
    const t = svg("title", {}, r);
    t.textContent = `worker ${w}: ${how} sub-tree at node #${node}, ${a.toFixed(0)}–${b.toFixed(0)}`;
  }
  for (const [t, a, b] of d.arrows) {
    svg("line", { x1: T(t), y1: Y(a) + lane / 2, x2: T(t), y2: Y(b) + lane / 2, class: "mk-arrow",
      "marker-end": "url(#mk-arrow)" }, s);
  }
  const axis = svg("text", { x: W - 10, y: H - 8, class: "mk-axis" }, s);
  axis.textContent = "simulated time →";
}

function render({ model, el }) {
  el.classList.add("mk-lanes");
  const box = document.createElement("div");
  el.appendChild(box);
  const redraw = () => draw(model, box);
  model.on("change:data", redraw);
  redraw();
  return () => model.off("change:data", redraw);
}

export default { render };
