// Charts drawn as SVG by hand: step areas, bars and lines, with axes whose
// ticks carry thousands separators and whose money axes name the currency.
// No dependency: the dashboard and the simulator's report both use it.

// PALETTE is Okabe and Ito's colour-blind-safe set, darkest first, without
// its yellow (too light for lines on white).
export const PALETTE = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000"];

const SVGNS = "http://www.w3.org/2000/svg";

export function fmtNumber(x, digits) {
  const d = digits === undefined ? (Number.isInteger(x) ? 0 : 2) : digits;
  return Number(x).toLocaleString(undefined, { minimumFractionDigits: d, maximumFractionDigits: d });
}

// fmtMoney writes an amount (a decimal string or number) with its currency
// and thousands separators; a currency Intl does not know is written
// after the number.
export function fmtMoney(x, currency) {
  const n = Number(x);
  try {
    return n.toLocaleString(undefined, { style: "currency", currency: currency, currencyDisplay: "code" });
  } catch (e) {
    return fmtNumber(n, 2) + " " + currency;
  }
}

// fmtTime writes an instant in a time zone (the zone is shown once beside
// the chart or table, not in every cell).
export function fmtTime(t, zone, withDate) {
  const o = { timeZone: zone, hour: "2-digit", minute: "2-digit", hourCycle: "h23" };
  if (withDate !== false) {
    o.month = "short";
    o.day = "numeric";
  }
  return new Date(t).toLocaleString(undefined, o);
}

function el(name, attrs, parent) {
  const e = document.createElementNS(SVGNS, name);
  for (const k in attrs) e.setAttribute(k, attrs[k]);
  if (parent) parent.appendChild(e);
  return e;
}

function text(parent, x, y, s, attrs) {
  const t = el("text", Object.assign({ x: x, y: y }, attrs || {}), parent);
  t.textContent = s;
  return t;
}

// niceTicks are about n round values covering [lo, hi].
// integer ticks are whole numbers (counts).
export function niceTicks(lo, hi, n, integer) {
  if (!(hi > lo)) hi = lo + 1;
  const raw = (hi - lo) / (n || 5);
  const mag = Math.pow(10, Math.floor(Math.log10(raw)));
  let step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= raw);
  if (integer) step = Math.max(1, Math.round(step));
  const out = [];
  for (let v = Math.floor(lo / step) * step; v <= hi + step * 1e-9; v += step) out.push(Math.round(v / step) * step);
  if (out[out.length - 1] < hi) out.push(out[out.length - 1] + step);
  return out;
}

// frame makes a figure with its title (a question the chart answers), an
// SVG sized to its container and a legend; it returns the drawing area.
function frame(container, opt, yTicks, yFmt) {
  const fig = document.createElement("figure");
  fig.className = "chart";
  const cap = document.createElement("figcaption");
  cap.textContent = opt.title;
  fig.appendChild(cap);
  const width = opt.width || Math.max(320, Math.min(container.clientWidth || 720, 960));
  const height = opt.height || 260;
  const labelW = Math.max(...yTicks.map((v) => yFmt(v).length)) * 7.5 + 14;
  const m = { top: 12, right: 16, bottom: 46, left: labelW + (opt.yLabel ? 20 : 0) };
  const svg = el("svg", { viewBox: `0 0 ${width} ${height}`, width: "100%", role: "img", "aria-label": opt.title });
  fig.appendChild(svg);
  const legend = document.createElement("ul");
  legend.className = "legend";
  for (const s of opt.legend || []) {
    const li = document.createElement("li");
    const sw = document.createElement("span");
    sw.className = "swatch" + (s.dash ? " dashed" : "");
    sw.style.setProperty("--c", s.color);
    li.appendChild(sw);
    li.appendChild(document.createTextNode(s.label));
    legend.appendChild(li);
  }
  fig.appendChild(legend);
  container.appendChild(fig);
  const w = width - m.left - m.right;
  const h = height - m.top - m.bottom;
  const g = el("g", { transform: `translate(${m.left},${m.top})` }, svg);
  const yMax = yTicks[yTicks.length - 1];
  const yMin = yTicks[0];
  const y = (v) => h - ((v - yMin) / (yMax - yMin)) * h;
  for (const v of yTicks) {
    el("line", { x1: 0, x2: w, y1: y(v), y2: y(v), class: "grid" }, g);
    text(g, -6, y(v) + 4, yFmt(v), { "text-anchor": "end", class: "tick" });
  }
  if (opt.yLabel) {
    text(g, -labelW - 6, h / 2, opt.yLabel, { transform: `rotate(-90 ${-labelW - 6} ${h / 2})`, "text-anchor": "middle", class: "axis-label" });
  }
  if (opt.xLabel) text(g, w / 2, h + 40, opt.xLabel, { "text-anchor": "middle", class: "axis-label" });
  return { svg, g, w, h, y, fig };
}

function yAxis(maxV, opt) {
  const ticks = niceTicks(0, Math.max(maxV, opt.yMin || 1), 5, opt.integer);
  let fmt = (v) => fmtNumber(v, Number.isInteger(v) ? 0 : 1);
  if (opt.percent) fmt = (v) => fmtNumber(v, 0) + "%";
  return { ticks: opt.percent ? ticks.filter((v) => v <= 100).concat(ticks.some((v) => v >= 100) ? [] : [100]) : ticks, fmt };
}

// stepChart draws stacked step areas (opt.stack: [{key, label, color}])
// over time and step lines (opt.lines: [{key, label, color, dash}]) from
// steps [{start, end, <key>: number}], times in opt.zone.
export function stepChart(container, steps, opt) {
  const t0 = Date.parse(steps[0].start);
  const t1 = Date.parse(steps[steps.length - 1].end);
  let maxV = 0;
  for (const s of steps) {
    maxV = Math.max(maxV, opt.stack.reduce((a, k) => a + s[k.key], 0), ...opt.lines.map((l) => s[l.key]));
  }
  const ax = yAxis(maxV, opt);
  const legend = opt.stack.concat(opt.lines);
  const f = frame(container, Object.assign({ legend }, opt), ax.ticks, ax.fmt);
  const x = (t) => ((t - t0) / (t1 - t0)) * f.w;
  timeTicks(f, t0, t1, x, opt.zone);
  const base = steps.map(() => 0);
  for (const k of opt.stack) {
    let d = "";
    const top = steps.map((s, i) => base[i] + s[k.key]);
    steps.forEach((s, i) => {
      d += `${i ? "L" : "M"}${x(Date.parse(s.start))},${f.y(top[i])}L${x(Date.parse(s.end))},${f.y(top[i])}`;
    });
    for (let i = steps.length - 1; i >= 0; i--) {
      d += `L${x(Date.parse(steps[i].end))},${f.y(base[i])}L${x(Date.parse(steps[i].start))},${f.y(base[i])}`;
    }
    el("path", { d: d + "Z", fill: k.color, "fill-opacity": 0.85, stroke: "none" }, f.g);
    top.forEach((v, i) => (base[i] = v));
  }
  for (const l of opt.lines) {
    let d = "";
    steps.forEach((s, i) => {
      d += `${i ? "L" : "M"}${x(Date.parse(s.start))},${f.y(s[l.key])}L${x(Date.parse(s.end))},${f.y(s[l.key])}`;
    });
    el("path", { d, fill: "none", stroke: l.color, "stroke-width": 2, "stroke-dasharray": l.dash ? "6 4" : "none" }, f.g);
  }
  return f.fig;
}

// timeTicks labels the time axis at midnights (or hours on a short span)
// of the zone.
function timeTicks(f, t0, t1, x, zone) {
  const span = t1 - t0;
  const stepH = span <= 36 * 3600e3 ? 3 : span <= 8 * 86400e3 ? 24 : 24 * Math.ceil(span / (10 * 86400e3));
  const withDate = stepH >= 24;
  let last = -Infinity;
  for (let t = Math.ceil(t0 / 3600e3) * 3600e3; t <= t1; t += 3600e3) {
    const parts = new Intl.DateTimeFormat("en-GB", { timeZone: zone, hour: "numeric", hourCycle: "h23", day: "numeric" }).formatToParts(new Date(t));
    const hour = Number(parts.find((p) => p.type === "hour").value);
    const day = Number(parts.find((p) => p.type === "day").value);
    if (stepH < 24 ? hour % stepH !== 0 : hour !== 0 || (day - 1) % (stepH / 24) !== 0) continue;
    if (x(t) - last < 56) continue;
    last = x(t);
    el("line", { x1: x(t), x2: x(t), y1: f.h, y2: f.h + 5, class: "axis" }, f.g);
    const label = withDate ? new Date(t).toLocaleDateString(undefined, { timeZone: zone, month: "short", day: "numeric", weekday: "short" }) : fmtTime(t, zone, false);
    text(f.g, x(t), f.h + 18, label, { "text-anchor": "middle", class: "tick" });
  }
  el("line", { x1: 0, x2: f.w, y1: f.h, y2: f.h, class: "axis" }, f.g);
}

// barChart draws bars per category (a category's name may hold a "\n"
// for a second line): opt.series [{label, color, values}],
// grouped side by side, or stacked when opt.stacked; opt.money names the
// currency of the values; opt.marks [{label, color, values}] draws a tick
// per category (a limit against the bar).
export function barChart(container, categories, opt) {
  const series = opt.series;
  const marks = opt.marks || [];
  let maxV = 0;
  let minV = 0;
  categories.forEach((_, i) => {
    const vals = series.map((s) => Number(s.values[i]) || 0);
    const pos = opt.stacked ? vals.filter((v) => v > 0).reduce((a, v) => a + v, 0) : Math.max(0, ...vals);
    const neg = opt.stacked ? vals.filter((v) => v < 0).reduce((a, v) => a + v, 0) : Math.min(0, ...vals);
    maxV = Math.max(maxV, pos, ...marks.map((m) => Number(m.values[i]) || 0));
    minV = Math.min(minV, neg);
  });
  const ticks = niceTicks(minV, Math.max(maxV, opt.yMin || 1), 5, opt.integer);
  let fmt = (v) => fmtNumber(v, Number.isInteger(v) ? 0 : 1);
  if (opt.percent) fmt = (v) => fmtNumber(v, 0) + "%";
  const yLabel = opt.money ? `${opt.yLabel || "amount"} (${opt.money})` : opt.yLabel;
  const f = frame(container, Object.assign({ legend: series.concat(marks.map((m) => Object.assign({ dash: true }, m))) }, opt, { yLabel }), ticks, fmt);
  const band = f.w / categories.length;
  const inner = band * 0.8;
  const bw = opt.stacked ? inner : inner / series.length;
  const longest = Math.max(...categories.flatMap((c) => String(c).split("\n").map((l) => l.length)));
  const every = Math.ceil(categories.length / Math.max(1, Math.floor(f.w / (longest * 6.5 + 12))));
  categories.forEach((c, i) => {
    let up = 0;
    let down = 0;
    series.forEach((s, j) => {
      const v = Number(s.values[i]) || 0;
      const x0 = i * band + band * 0.1 + (opt.stacked ? 0 : j * bw);
      let a = 0;
      if (opt.stacked) {
        a = v >= 0 ? up : down;
        if (v >= 0) up += v;
        else down += v;
      }
      const yTop = f.y(Math.max(a, a + v));
      const r = el("rect", { x: x0, y: yTop, width: Math.max(1, bw - 1), height: Math.abs(f.y(a) - f.y(a + v)), fill: s.color }, f.g);
      const tip = el("title", {}, r);
      tip.textContent = `${c} · ${s.label}: ${opt.money ? fmtMoney(v, opt.money) : fmtNumber(v)}`;
    });
    for (const m of marks) {
      const v = Number(m.values[i]);
      if (!Number.isFinite(v)) continue;
      el("line", { x1: i * band + band * 0.05, x2: (i + 1) * band - band * 0.05, y1: f.y(v), y2: f.y(v), stroke: m.color, "stroke-width": 3, "stroke-dasharray": "6 3" }, f.g);
    }
    if (i % every === 0) {
      const t = text(f.g, i * band + band / 2, f.h + 18, "", { "text-anchor": "middle", class: "tick" });
      String(c).split("\n").forEach((line, n) => {
        const span = el("tspan", { x: i * band + band / 2, dy: n ? 14 : 0 }, t);
        span.textContent = line;
      });
    }
  });
  el("line", { x1: 0, x2: f.w, y1: f.y(0), y2: f.y(0), class: "axis" }, f.g);
  return f.fig;
}

// lineChart draws opt.series [{label, color, points: [[x, y], ..]}] over a
// numeric x axis (opt.xReverse: larger x on the left, as days before a
// start); opt.logY draws y on a log scale (values <= 0 left out).
export function lineChart(container, opt) {
  const all = opt.series.flatMap((s) => s.points);
  const xs = all.map((p) => p[0]);
  const x0 = Math.min(...xs, 0);
  const x1 = Math.max(...xs, 1);
  const maxY = Math.max(...all.map((p) => p[1]), opt.yMin || 1);
  let ticks;
  let fmt = (v) => fmtNumber(v, Number.isInteger(v) ? 0 : 1);
  let yv = (v) => v;
  if (opt.logY) {
    const minY = Math.min(...all.map((p) => p[1]).filter((v) => v > 0), maxY);
    const lo = Math.floor(Math.log10(minY));
    const hi = Math.ceil(Math.log10(maxY));
    ticks = [];
    for (let e = lo; e <= Math.max(hi, lo + 1); e++) ticks.push(e);
    fmt = (e) => fmtNumber(Math.pow(10, e), e < 0 ? -e : 0);
    yv = (v) => Math.log10(v);
  } else {
    ticks = niceTicks(0, maxY, 5, opt.integer);
    if (opt.percent) ticks = ticks.filter((v) => v <= 100).concat(ticks.some((v) => v >= 100) ? [] : [100]);
  }
  if (opt.percent) fmt = (v) => fmtNumber(v, 0) + "%";
  const yLabel = opt.money ? `${opt.yLabel || "amount"} (${opt.money})` : opt.yLabel;
  const f = frame(container, Object.assign({ legend: opt.series }, opt, { yLabel }), ticks, fmt);
  const x = (v) => (opt.xReverse ? (x1 - v) / (x1 - x0) : (v - x0) / (x1 - x0)) * f.w;
  for (const v of niceTicks(x0, x1, Math.min(8, Math.max(2, Math.floor(f.w / 80))), opt.xInteger)) {
    if (v < x0 || v > x1) continue;
    el("line", { x1: x(v), x2: x(v), y1: f.h, y2: f.h + 5, class: "axis" }, f.g);
    text(f.g, x(v), f.h + 18, (opt.xFmt || fmtNumber)(v), { "text-anchor": "middle", class: "tick" });
  }
  el("line", { x1: 0, x2: f.w, y1: f.h, y2: f.h, class: "axis" }, f.g);
  for (const s of opt.series) {
    const pts = s.points.filter((p) => !opt.logY || p[1] > 0).slice().sort((a, b) => a[0] - b[0]);
    if (!pts.length) continue;
    const d = pts.map((p, i) => `${i ? "L" : "M"}${x(p[0])},${f.y(yv(p[1]))}`).join("");
    el("path", { d, fill: "none", stroke: s.color, "stroke-width": 2.5, "stroke-dasharray": s.dash ? "6 4" : "none" }, f.g);
    for (const p of pts) {
      const c = el("circle", { cx: x(p[0]), cy: f.y(yv(p[1])), r: 3.5, fill: s.color }, f.g);
      el("title", {}, c).textContent = `${s.label}: ${opt.money ? fmtMoney(p[1], opt.money) : fmtNumber(p[1])} at ${fmtNumber(p[0])}`;
    }
  }
  return f.fig;
}
