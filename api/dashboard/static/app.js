// The provider's dashboard: three pages over the API's reports, routed by
// the URL fragment (#/, #/r/ID, #/r/ID/config). The key comes from a prompt
// or from #key=..., and lives in this tab's sessionStorage only.
import { PALETTE, fmtMoney, fmtNumber, fmtTime, stepChart, barChart, lineChart } from "./charts.js";

const KEY = "slotfare.key";
const DAY = 86400e3;
const REFRESH_MS = 5000;
const main = document.getElementById("main");
let timer = null;

// ---- the key -------------------------------------------------------------

function takeKeyFromFragment() {
  const m = location.hash.match(/^#key=([^&]*)/);
  if (!m) return;
  sessionStorage.setItem(KEY, decodeURIComponent(m[1]));
  history.replaceState(null, "", location.pathname + location.search + "#/");
}

function askKey() {
  const dlg = document.getElementById("keydialog");
  const input = document.getElementById("keyinput");
  input.value = "";
  if (!dlg.open) dlg.showModal();
  input.focus();
}

document.getElementById("keyform").addEventListener("submit", () => {
  sessionStorage.setItem(KEY, document.getElementById("keyinput").value.trim());
  route();
});
document.getElementById("forget").addEventListener("click", () => {
  sessionStorage.removeItem(KEY);
  askKey();
});

// ---- the API -------------------------------------------------------------

class APIError extends Error {
  constructor(status, title, detail, path) {
    super(`${status} ${title}${detail ? ": " + detail : ""}`);
    Object.assign(this, { status, title, detail, path });
  }
}

async function api(path) {
  const key = sessionStorage.getItem(KEY) || "";
  let res;
  try {
    res = await fetch(path, { headers: { Authorization: "Bearer " + key, Accept: "application/json" } });
  } catch (e) {
    throw new APIError(0, "the server could not be reached", String(e), path);
  }
  const body = await res.text();
  if (!res.ok) {
    let p = {};
    try {
      p = JSON.parse(body);
    } catch (e) {
      p = { title: res.statusText, detail: body.slice(0, 200) };
    }
    throw new APIError(res.status, p.title || res.statusText, p.detail || "", path);
  }
  return JSON.parse(body);
}

function report(id, kind, from, to) {
  const q = `from=${encodeURIComponent(new Date(from).toISOString())}&to=${encodeURIComponent(new Date(to).toISOString())}`;
  return api(`/v1/resources/${encodeURIComponent(id)}/${kind}?${q}`);
}

// ---- small DOM helpers ---------------------------------------------------

function h(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const k in attrs || {}) {
    if (k === "class") e.className = attrs[k];
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), attrs[k]);
    else e.setAttribute(k, attrs[k]);
  }
  for (const c of kids.flat()) if (c !== null && c !== undefined) e.append(c instanceof Node ? c : String(c));
  return e;
}

// value is a figure shown to the user with its raw value beside it
// (data-v), so that a test compares what is shown with the API's answer.
// from and to, when given, are the window the figure was read over.
function value(key, raw, shown, from, to) {
  const a = { "data-k": key, "data-v": String(raw) };
  if (from !== undefined) Object.assign(a, { "data-from": new Date(from).toISOString(), "data-to": new Date(to).toISOString() });
  return h("span", a, shown);
}

function showError(where, err) {
  const box = h("div", { class: "error", role: "alert" },
    h("strong", {}, err.status ? `The API answered ${err.status} ${err.title}` : "The API could not be reached"),
    err.detail ? h("p", {}, err.detail) : null,
    err.path ? h("p", { class: "muted" }, "GET ", h("code", {}, err.path)) : null);
  if (err.status === 401 || err.status === 403) {
    box.append(h("p", {}, err.status === 401 ? "The key was refused. " : "This key is not a provider's. ",
      h("button", { type: "button", onclick: askKey }, "Enter another key")));
  }
  where.replaceChildren(box);
  return box;
}

function empty(text) {
  return h("p", { class: "empty" }, text);
}

// ---- time in a resource's zone -------------------------------------------

function zoneOffset(zone, t) {
  const p = Object.fromEntries(new Intl.DateTimeFormat("en-US", { timeZone: zone, hourCycle: "h23", year: "numeric", month: "numeric",
    day: "numeric", hour: "numeric", minute: "numeric", second: "numeric" }).formatToParts(new Date(t)).map((x) => [x.type, x.value]));
  return Date.UTC(+p.year, +p.month - 1, +p.day, +p.hour % 24, +p.minute, +p.second) - Math.floor(t / 1000) * 1000;
}

// midnight is the instant of 00:00 of date (YYYY-MM-DD) in zone.
function midnight(zone, date) {
  const [y, m, d] = date.split("-").map(Number);
  const guess = Date.UTC(y, m - 1, d);
  const t = guess - zoneOffset(zone, guess);
  return guess - zoneOffset(zone, t);
}

function today(zone) {
  return new Intl.DateTimeFormat("en-CA", { timeZone: zone, year: "numeric", month: "2-digit", day: "2-digit" }).format(new Date());
}

function addDays(date, n) {
  const [y, m, d] = date.split("-").map(Number);
  return new Date(Date.UTC(y, m - 1, d + n)).toISOString().slice(0, 10);
}

function weekday(date) {
  const [y, m, d] = date.split("-").map(Number);
  return (new Date(Date.UTC(y, m - 1, d)).getUTCDay() + 6) % 7; // Monday 0
}

function shortDay(date) {
  const [y, m, d] = date.split("-").map(Number);
  return new Date(Date.UTC(y, m - 1, d)).toLocaleDateString(undefined, { timeZone: "UTC", weekday: "short", day: "numeric" });
}

function dayLabel(date) {
  const [y, m, d] = date.split("-").map(Number);
  return new Date(Date.UTC(y, m - 1, d)).toLocaleDateString(undefined, { timeZone: "UTC", weekday: "short", month: "short", day: "numeric" });
}

// ---- figures from the reports --------------------------------------------

function occupied(s) {
  return s.held + s.committed + s.checked_in;
}

// dailyPeaks are the most nodes occupied on each day of the occupancy's
// window (days of zone), with the capacity then.
function dailyPeaks(occ, zone, first, days) {
  const out = [];
  for (let i = 0; i < days; i++) {
    const date = addDays(first, i);
    const a = midnight(zone, date);
    const b = midnight(zone, addDays(first, i + 1));
    let peak = 0;
    let cap = 0;
    for (const s of occ.steps) {
      if (Date.parse(s.end) <= a || Date.parse(s.start) >= b) continue;
      peak = Math.max(peak, occupied(s));
      cap = Math.max(cap, s.capacity);
    }
    out.push({ date, peak, capacity: cap });
  }
  return out;
}

function pct(a, b) {
  return b > 0 ? (100 * a) / b : 0;
}

function change(now, before, currency) {
  const a = Number(now);
  const b = Number(before);
  if (b === 0) return a === 0 ? "same as last week" : `last week ${fmtMoney(0, currency)}`;
  const d = (100 * (a - b)) / Math.abs(b);
  return `${d >= 0 ? "+" : "−"}${fmtNumber(Math.abs(d), 1)}% on last week (${fmtMoney(b, currency)})`;
}

// ---- page: resources at a glance -----------------------------------------

async function overview() {
  main.replaceChildren(h("h2", {}, "Resources at a glance"), h("p", { class: "muted" }, "Loading resources…"));
  let list;
  try {
    list = (await api("/v1/resources")).data;
  } catch (e) {
    return showError(main, e);
  }
  main.replaceChildren(h("h2", {}, "Resources at a glance"));
  if (!list.length) {
    main.append(empty("No resources yet. Create one with PUT /v1/resources/{id} (nodes, base_cost, time_zone); see /openapi.json."));
    return;
  }
  const cards = h("div", { class: "cards" });
  main.append(cards);
  await Promise.all(list.map((r) => {
    const card = h("section", { class: "card", "aria-labelledby": "h-" + r.id, "data-resource": r.id });
    cards.append(card);
    return resourceCard(card, r);
  }));
}

async function resourceCard(card, r) {
  const zone = r.time_zone;
  const first = today(zone);
  const t0 = midnight(zone, first);
  const weekStart = addDays(first, -weekday(first));
  card.append(h("h3", { id: "h-" + r.id }, h("a", { href: `#/r/${encodeURIComponent(r.id)}` }, r.id)),
    h("p", { class: "muted" }, `${fmtNumber(r.nodes)} nodes · times in ${zone}`));
  let occ, rev, den, ctl;
  try {
    [occ, rev, den, ctl] = await Promise.all([
      report(r.id, "occupancy", t0, midnight(zone, addDays(first, 8))),
      report(r.id, "revenue", midnight(zone, weekStart), midnight(zone, addDays(weekStart, 7))),
      report(r.id, "denials", midnight(zone, addDays(first, -7)), midnight(zone, addDays(first, 8))),
      report(r.id, "booking-control", t0, midnight(zone, addDays(first, 8))),
    ]);
  } catch (e) {
    card.append(h("div"));
    showError(card.lastChild, e);
    return;
  }
  const peaks = dailyPeaks(occ, zone, first, 8);
  const t = peaks[0];
  card.append(h("p", {}, "Occupancy today: peak ", value("occ-today", t.peak, fmtNumber(t.peak), t0, midnight(zone, addDays(first, 1))), ` of ${fmtNumber(t.capacity)} nodes (${fmtNumber(pct(t.peak, t.capacity), 0)}%)`));
  barChart(card, peaks.map((p) => shortDay(p.date)), {
    title: "How full is each of the next days? Peak nodes occupied, share of capacity", percent: true, yMin: 100, height: 150,
    series: [{ label: "peak occupied", color: PALETTE[0], values: peaks.map((p) => pct(p.peak, p.capacity)) }],
  });
  card.append(h("p", {}, `Revenue this week (from ${dayLabel(weekStart)}, by the bookings' start): `,
    value("rev-week", rev.total.net, fmtMoney(rev.total.net, rev.currency), rev.from, rev.to), h("br"),
    h("span", { class: "muted" }, change(rev.total.net, rev.last_week.net, rev.currency))));
  card.append(alerts(den, ctl));
}

// alerts are what needs a look: denials and no-shows, classes closed
// early, and periods whose limits come from no forecast.
function alerts(den, ctl) {
  const ul = h("ul", { class: "alerts", "aria-label": "Alerts" });
  const sum = (k) => den.rows.reduce((a, r) => a + r[k], 0);
  if (sum("denied")) ul.append(h("li", { class: "alert" }, `${fmtNumber(sum("denied"))} bookings denied at their start (${den.strategy}), compensation ${fmtMoney(den.rows.reduce((a, r) => a + Number(r.compensation), 0), den.currency)}`));
  if (sum("no_shows")) ul.append(h("li", { class: "alert" }, `${fmtNumber(sum("no_shows"))} no-shows`));
  if (sum("refused_closed")) ul.append(h("li", { class: "alert" }, `${fmtNumber(sum("refused_closed"))} requests refused: a class was closed`));
  const full = ctl.instances.filter((i) => i.classes.some((c) => c.booking_limit > 0 && c.bookings >= c.booking_limit)).length;
  if (full) ul.append(h("li", { class: "alert" }, `${fmtNumber(full)} periods ahead with a class at its booking limit`));
  const none = ctl.instances.filter((i) => i.source === "none").length;
  if (none) ul.append(h("li", { class: "alert" }, `${fmtNumber(none)} periods ahead whose limits could not be computed: no forecast yet and no initial protection levels (every class may sell up to the overbooking limit)`));
  if (!ul.children.length) ul.append(h("li", { class: "muted" }, "No alerts: no denials, no-shows or closed classes this week."));
  const initial = ctl.instances.filter((i) => i.source === "initial").length;
  if (initial) ul.append(h("li", { class: "muted" }, `${fmtNumber(initial)} of ${fmtNumber(ctl.instances.length)} periods ahead use the initial protection levels until enough history gives a forecast.`));
  return ul;
}

// ---- page: one resource --------------------------------------------------

function params() {
  const q = location.hash.split("?")[1] || "";
  return Object.fromEntries(new URLSearchParams(q));
}

async function resourcePage(id) {
  let r;
  try {
    r = await api(`/v1/resources/${encodeURIComponent(id)}`);
  } catch (e) {
    return showError(main, e);
  }
  const zone = r.time_zone;
  const p = params();
  const from = /^\d{4}-\d{2}-\d{2}$/.test(p.from || "") ? p.from : today(zone);
  const days = Math.min(31, Math.max(1, Number(p.days) || 7));
  const live = p.live !== "0";
  const form = h("form", { class: "picker", "aria-label": "Period" },
    h("label", {}, "From (" + zone + ")", h("input", { type: "date", name: "from", value: from })),
    h("label", {}, "Days", h("select", { name: "days" }, ...[...new Set([1, 3, 7, 14, 31, days])].sort((x, y) => x - y).map((d) => {
      const o = h("option", { value: d }, d);
      if (d === days) o.selected = true;
      return o;
    }))),
    h("label", {}, "Live refresh", h("select", { name: "live" }, h("option", { value: "1" }, "every 5 s"), h("option", { value: "0" }, "off"))),
    h("button", { type: "submit", class: "primary" }, "Show"));
  form.live.value = live ? "1" : "0";
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    location.hash = `#/r/${encodeURIComponent(id)}?from=${form.from.value}&days=${form.days.value}&live=${form.live.value}`;
  });
  const out = h("div", { id: "report" });
  out.dataset.resource = id;
  main.replaceChildren(h("h2", {}, `${id}: bookings, limits and revenue`),
    h("p", { class: "muted" }, `${fmtNumber(r.nodes)} nodes · times in ${zone} · `, h("a", { href: `#/r/${encodeURIComponent(id)}/config` }, "configuration")),
    form, out);
  const a = midnight(zone, from);
  const b = midnight(zone, addDays(from, days));
  out.dataset.from = new Date(a).toISOString();
  out.dataset.to = new Date(b).toISOString();
  const draw = () => drawResource(out, r, a, b, from, days);
  await draw();
  if (live) timer = setInterval(draw, REFRESH_MS);
}

async function drawResource(out, r, a, b, from, days) {
  let occ, ctl, rev, den;
  try {
    [occ, ctl, rev, den] = await Promise.all(["occupancy", "booking-control", "revenue", "denials"].map((k) => report(r.id, k, a, b)));
  } catch (e) {
    return showError(out, e);
  }
  const zone = r.time_zone;
  const next = [];
  next.push(h("p", { class: "muted" }, `From ${fmtTime(a, zone)} to ${fmtTime(b, zone)} (${zone}); updated ${fmtTime(Date.now(), zone)}.`));
  const color = classColors(r);
  next.push(...occupancySection(occ, zone));
  next.push(...controlSection(ctl, zone, color));
  next.push(...revenueSection(rev, from, days, color));
  next.push(...denialSection(den, from, days));
  const scroll = window.scrollY;
  out.replaceChildren(...next);
  const charts = out.querySelectorAll("[data-chart]");
  for (const c of charts) c.draw();
  window.scrollTo(0, scroll);
}

// chartBox is a placeholder the chart is drawn into once it is in the
// page (the chart sizes itself to its container).
function chartBox(draw) {
  const box = h("div", { "data-chart": "" });
  box.draw = () => draw(box);
  return box;
}

function occupancySection(occ, zone) {
  const peak = Math.max(0, ...occ.steps.map(occupied));
  const head = [h("h3", {}, "Occupancy"),
    h("p", {}, "Peak occupied: ", value("occ-peak", peak, fmtNumber(peak)), " nodes; capacity ",
      value("occ-capacity", occ.steps.length ? occ.steps[0].capacity : 0, fmtNumber(occ.steps.length ? occ.steps[0].capacity : 0)),
      ", overbooking limit up to ", fmtNumber(Math.max(0, ...occ.steps.map((s) => s.overbooking_limit))), ".")];
  if (!peak) return head.concat(empty("Nothing is held, committed or checked in over this period. Pick another period above; users book with POST /v1/offers and POST /v1/bookings."));
  return head.concat(chartBox((box) => stepChart(box, occ.steps, {
    title: "How full is the resource? Nodes held, committed and checked in against capacity and the overbooking limit", zone, yLabel: "nodes",
    stack: [{ key: "checked_in", label: "checked in", color: PALETTE[0] }, { key: "committed", label: "committed", color: PALETTE[2] },
      { key: "held", label: "held", color: PALETTE[4] }],
    lines: [{ key: "capacity", label: "capacity", color: "#000000" }, { key: "overbooking_limit", label: "overbooking limit", color: PALETTE[1], dash: true }],
  })));
}

// classColors gives each fare class one colour, by rank, in every chart.
function classColors(r) {
  const rank = new Map(r.fare_classes.map((c, i) => [c.name, i]));
  const color = (name) => (rank.has(name) ? PALETTE[rank.get(name) % PALETTE.length] : "#555555");
  color.order = (names) => names.sort((a, b) => (rank.get(a) ?? 99) - (rank.get(b) ?? 99));
  return color;
}

function controlSection(ctl, zone, color) {
  const classes = ctl.instances.length ? ctl.instances[0].classes.map((c) => c.class) : [];
  const out = [h("h3", {}, `Booking control (${ctl.method})`)];
  if (!ctl.instances.length) return out.concat(empty("No rate-period instance in this period."));
  const labels = ctl.instances.map((i) => fmtTime(i.start, zone));
  classes.forEach((name, j) => {
    out.push(chartBox((box) => barChart(box, labels, {
      title: `Is ${name} within its booking limit? Peak nodes per rate period (by its start) against the nested limit`, yLabel: "nodes", height: 200, integer: true,
      series: [{ label: `${name}: peak nodes held`, color: color(name), values: ctl.instances.map((i) => i.classes[j].bookings) }],
      marks: [{ label: "booking limit", color: "#000000", values: ctl.instances.map((i) => i.classes[j].booking_limit) }],
    })));
  });
  const withCurve = ctl.instances.filter((i) => i.classes.some((c) => c.curve.length));
  if (withCurve.length) {
    const inst = withCurve[0];
    out.push(chartBox((box) => lineChart(box, {
      title: `How did ${inst.period} of ${fmtTime(inst.start, zone)} fill? Bookings sold by days before its start`, xReverse: true,
      xLabel: "days before the start", yLabel: "bookings", xFmt: (v) => fmtNumber(v, 0), integer: true, xInteger: true,
      series: inst.classes.map((c) => ({ label: c.class, color: color(c.class), points: c.curve.map((p) => [p.days_before, p.bookings]) })),
    })));
  }
  out.push(controlTable(ctl, classes, zone));
  return out;
}

function controlTable(ctl, classes, zone) {
  const head = h("tr", {}, h("th", { scope: "col" }, `Start (${zone})`), h("th", { scope: "col" }, "Period"), h("th", { scope: "col" }, "Limits from"),
    ...classes.map((c) => h("th", { scope: "col", class: "num" }, `${c}: held / limit · protected · forecast`)));
  const rows = ctl.instances.map((i, n) => h("tr", {}, h("td", {}, fmtTime(i.start, zone)), h("td", {}, i.period), h("td", {}, i.source),
    ...i.classes.map((c) => h("td", { class: "num" }, value(`ctl-${n}-${c.class}`, c.bookings, fmtNumber(c.bookings)), ` / ${fmtNumber(c.booking_limit)} · `,
      fmtNumber(c.protection_level, 1), " · ", c.forecast_mean === null ? "—" : `${fmtNumber(c.forecast_mean, 1)} ± ${fmtNumber(c.forecast_sd, 1)}`))));
  return h("table", {}, h("caption", {}, "Per period: peak nodes held / booking limit · protection level · forecast demand (mean ± sd)"), h("thead", {}, head), h("tbody", {}, rows));
}

function revenueSection(rev, from, days, color) {
  const out = [h("h3", {}, "Revenue"),
    h("p", {}, "Net ", value("rev-net", rev.total.net, fmtMoney(rev.total.net, rev.currency)), " · ", h("span", { class: "muted" }, change(rev.total.net, rev.last_week.net, rev.currency)))];
  if (!rev.rows.length) return out.concat(empty("No money in this period: no booking starting in it was charged. Pick another period above."));
  const dates = [];
  for (let i = 0; i < days; i++) dates.push(addDays(from, i));
  const classes = color.order([...new Set(rev.rows.map((r) => r.class))]);
  out.push(chartBox((box) => barChart(box, dates.map(dayLabel), {
    title: "What did each day earn? Net revenue per day by fare class", money: rev.currency, yLabel: "net revenue", stacked: true,
    series: classes.map((c) => ({ label: c || "(no booking)", color: color(c),
      values: dates.map((d) => rev.rows.filter((r) => r.date === d && r.class === c).reduce((a, r) => a + Number(r.net), 0)) })),
  })));
  const money = (v) => h("td", { class: "num" }, fmtMoney(v, rev.currency));
  const rows = rev.rows.map((r) => h("tr", {}, h("td", {}, r.date), h("td", {}, r.class), h("td", {}, r.period), money(r.charges), money(r.penalties),
    money(r.refunds), money(r.compensation), money(r.net)));
  const t = rev.total;
  rows.push(h("tr", {}, h("th", { scope: "row", colspan: 3 }, "Total"), money(t.charges), money(t.penalties), money(t.refunds), money(t.compensation), money(t.net)));
  out.push(h("table", {}, h("caption", {}, `Revenue by day, class and period (${rev.currency}; by the booking's start)`),
    h("thead", {}, h("tr", {}, ...["Day", "Class", "Period"].map((c) => h("th", { scope: "col" }, c)),
      ...["Charges", "Penalties", "Refunds", "Compensation", "Net"].map((c) => h("th", { scope: "col", class: "num" }, c)))), h("tbody", {}, rows)));
  return out;
}

function denialSection(den, from, days) {
  const out = [h("h3", {}, "Denials and no-shows"), h("p", {}, `Denial strategy in force: ${den.strategy}; overbooking policy: ${den.policy}.`)];
  if (!den.rows.length) return out.concat(empty("No denials, no-shows or refusals of a closed class in this period."));
  const dates = [];
  for (let i = 0; i < days; i++) dates.push(addDays(from, i));
  const per = (k) => dates.map((d) => den.rows.filter((r) => r.date === d).reduce((a, r) => a + r[k], 0));
  out.push(chartBox((box) => barChart(box, dates.map(dayLabel), {
    title: "Who was turned away each day? Denied at start, no-shows and refusals of a closed class", yLabel: "bookings", integer: true,
    series: [{ label: "denied", color: PALETTE[1], values: per("denied") }, { label: "no-shows", color: PALETTE[0], values: per("no_shows") },
      { label: "refused: class closed", color: PALETTE[3], values: per("refused_closed") }],
  })));
  const rows = den.rows.map((r) => h("tr", {}, h("td", {}, r.date), h("td", {}, r.class), h("td", { class: "num" }, value(`den-${r.date}-${r.class}`, r.denied, fmtNumber(r.denied))),
    h("td", { class: "num" }, fmtMoney(r.compensation, den.currency)), h("td", { class: "num" }, fmtNumber(r.no_shows)), h("td", { class: "num" }, fmtNumber(r.refused_closed))));
  out.push(h("table", {}, h("caption", {}, "Per day and class"), h("thead", {}, h("tr", {}, ...["Day", "Class"].map((c) => h("th", { scope: "col" }, c)),
    ...["Denied", "Compensation", "No-shows", "Refused (closed)"].map((c) => h("th", { scope: "col", class: "num" }, c)))), h("tbody", {}, rows)));
  return out;
}

// ---- page: configuration, read-only --------------------------------------

async function configPage(id) {
  let r;
  try {
    r = await api(`/v1/resources/${encodeURIComponent(id)}`);
  } catch (e) {
    return showError(main, e);
  }
  const path = `/v1/resources/${encodeURIComponent(id)}`;
  const change = (suffix, what) => h("p", { class: "muted" }, `Change ${what} with `, h("a", { href: "/openapi.json" }, h("code", {}, `PUT ${path}${suffix}`)),
    " (the body is this section's JSON; see the API document).");
  const kv = (o) => h("table", {}, h("tbody", {}, Object.entries(o).map(([k, v]) => h("tr", {}, h("th", { scope: "row" }, k), h("td", {}, typeof v === "object" ? JSON.stringify(v) : String(v))))));
  const periods = r.rate_periods.map((p) => p.name);
  main.replaceChildren(
    h("h2", {}, `${id}: configuration`), h("p", {}, h("a", { href: `#/r/${encodeURIComponent(id)}` }, "← back to the charts"), h("span", { class: "muted" }, " · read-only")),
    h("h3", {}, "Resource"), kv({ nodes: fmtNumber(r.nodes), base_cost: fmtMoney(r.base_cost, r.currency) + " per node-hour", currency: r.currency, time_zone: r.time_zone,
      slot_seconds: r.slot_seconds, hold_seconds: r.hold_seconds, vo: r.vo ?? "—", tags: (r.tags || []).join(", ") || "—" }), change("", "these"),
    h("h3", {}, "Fare classes"),
    h("table", {}, h("thead", {}, h("tr", {}, ...["Rank", "Class", ...periods.map((p) => `tau ${p}`), "Penalty rate", "Denied cost factor", "VO"].map((c) => h("th", { scope: "col" }, c)))),
      h("tbody", {}, r.fare_classes.map((c) => h("tr", {}, h("td", {}, c.rank), h("td", {}, c.name), ...periods.map((p) => h("td", { class: "num" }, c.tau[p] ?? "—")),
        h("td", { class: "num" }, c.penalty_rate), h("td", { class: "num" }, c.denied_cost_factor), h("td", {}, c.vo ?? "any"))))),
    change("/fare-classes", "the fare classes"),
    h("h3", {}, "Rate periods"), h("table", {}, h("thead", {}, h("tr", {}, ...["Period", "Days", "From", "To"].map((c) => h("th", { scope: "col" }, c)))),
      h("tbody", {}, r.rate_periods.map((p) => h("tr", {}, h("td", {}, p.name), h("td", {}, p.days), h("td", {}, p.from), h("td", {}, p.to))))),
    h("p", { class: "muted" }, `Times of day in ${r.time_zone}.`), change("/rate-periods", "the rate periods"),
    h("h3", {}, "Overbooking"), kv(r.overbooking), change("/overbooking", "the overbooking policy and denial strategy"),
    h("h3", {}, "Booking control"), kv(r.limits), change("/limits-config", "booking control"),
    h("h3", {}, "Hold limits"), kv(r.hold_limits || {}), change("", "hold_limits (in the resource's body)"));
}

// ---- routing -------------------------------------------------------------

async function route() {
  clearInterval(timer);
  timer = null;
  takeKeyFromFragment();
  if (!sessionStorage.getItem(KEY)) {
    main.replaceChildren(empty("Enter a provider key to see the resources."));
    askKey();
    return;
  }
  const path = (location.hash.replace(/^#/, "") || "/").split("?")[0];
  const m = path.match(/^\/r\/([^/]+)(\/config)?$/);
  if (m) {
    const id = decodeURIComponent(m[1]);
    document.title = `${id} · slotfare dashboard`;
    await (m[2] ? configPage(id) : resourcePage(id));
  } else {
    document.title = "slotfare dashboard";
    await overview();
  }
  document.body.dataset.ready = "1";
}

window.addEventListener("hashchange", () => {
  document.body.dataset.ready = "";
  route();
});
route();
