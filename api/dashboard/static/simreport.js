// The simulator's report: draws summary.json's experiments with the
// dashboard's chart components (charts.js, inlined before this script in
// the self-contained index.html that `slotfare simulate --out` writes).
// Every scenario or policy keeps one colour in every chart.

function drawSimReport() {
  const data = document.getElementById("summary");
  const sum = JSON.parse(data.textContent);
  const currency = data.dataset.currency || "";
  const root = document.getElementById("charts");
  const colors = new Map();
  const colorFor = (k) => {
    if (!colors.has(k)) colors.set(k, PALETTE[colors.size % PALETTE.length]);
    return colors.get(k);
  };
  const section = (title, text) => {
    const s = document.createElement("section");
    const h = document.createElement("h2");
    h.textContent = title;
    const p = document.createElement("p");
    p.textContent = text;
    s.append(h, p);
    root.append(s);
    return s;
  };
  let drawn = 0;
  if (sum.rm) drawn += rmCharts(section("Revenue management against static pricing (rm)", "Figures count what was served inside the simulated days after the warm-up."), sum.rm, currency, colorFor);
  if (sum.overbooking) drawn += overbookingCharts(section("Overbooking policies (overbooking)", "Net revenue is revenue less compensation, inside the simulated days."), sum.overbooking.runs, currency, colorFor);
  if (sum.policies) drawn += policyCharts(section("RM methods against the best fixed price and the hindsight bound (policies)", "Revenue inside the simulated days at each offered load."), sum.policies.runs, currency, colorFor);
  if (!drawn) {
    const p = document.createElement("p");
    p.className = "empty";
    p.textContent = "No experiment of this run has charts here (rm, overbooking and policies do); its tables and files are below.";
    root.append(p);
  }
  document.body.dataset.ready = "1";
}

// rmLabel names an rm run: static pricing at its tau, or RM everywhere.
function rmLabel(key, run) {
  return run.tau_s ? `${key}: static τ ${run.tau_s}` : `${key}: RM everywhere`;
}

function rmCharts(sec, rm, currency, colorFor) {
  const keys = Object.keys(rm).sort();
  const resources = Object.keys(rm[keys[0]].revenue_in_window).sort((a, b) => Number(rm[keys[0]].revenue_in_window[b]) - Number(rm[keys[0]].revenue_in_window[a]));
  const series = (field, scale) => keys.map((k) => ({ label: rmLabel(k, rm[k]), color: colorFor(rmLabel(k, rm[k])), values: resources.map((r) => Number((rm[k][field] || {})[r] || 0) * (scale || 1)) }));
  barChart(sec, resources, { title: "Which pricing earns most on each resource? Revenue in the window", money: currency, yLabel: "revenue", series: series("revenue_in_window") });
  const rmKey = keys.find((k) => !rm[k].tau_s);
  const statics = keys.filter((k) => rm[k].tau_s);
  if (rmKey && statics.length) {
    barChart(sec, resources, {
      title: "How much more does RM earn than static pricing, resource by resource? RM's revenue in the window against each static run",
      yLabel: "RM against static (%)",
      series: statics.map((k) => ({ label: `RM against ${rmLabel(k, rm[k])}`, color: colorFor(rmLabel(k, rm[k])),
        values: resources.map((r) => { const s = Number(rm[k].revenue_in_window[r]); return s > 0 ? (100 * (Number(rm[rmKey].revenue_in_window[r]) - s)) / s : 0; }) })),
    });
  }
  barChart(sec, resources, { title: "How full was each resource? Share of its node-seconds held in the window", percent: true, yMin: 100, yLabel: "occupancy", series: series("occupancy", 100) });
  return 3;
}

// overbookingCharts draw one panel per resource (a small resource stays
// readable): each policy's net revenue and, where any booking was denied,
// the denials; one colour per denial strategy.
function overbookingCharts(sec, runs, currency, colorFor) {
  const policy = (e) => `${e.policy}\n${e.cns ? "CNS" : "no CNS"}${e.mode ? ", " + e.mode : ""}`;
  const strategies = [...new Set(runs.map((e) => e.denial))];
  const resources = [...new Set(runs.map((e) => e.resource))];
  for (const r of resources) {
    const mine = runs.filter((e) => e.resource === r);
    const policies = [...new Set(mine.map(policy))];
    const pick = (field) => strategies.map((d) => ({ label: `denial: ${d}`, color: colorFor(`denial: ${d}`),
      values: policies.map((p) => { const e = mine.find((x) => policy(x) === p && x.denial === d); return e ? Number(e[field]) : 0; }) }));
    barChart(sec, policies, { title: `Which overbooking policy nets most on ${r}? Net revenue in the window`, money: currency, yLabel: "net revenue", series: pick("net_revenue_in_window") });
    const denied = pick("denied_in_window");
    if (denied.some((s) => s.values.some((v) => v > 0))) {
      barChart(sec, policies, { title: `What did overbooking cost in service on ${r}? Bookings denied at their start, in the window`, yLabel: "bookings denied", integer: true, series: denied });
    } else {
      const p = document.createElement("p");
      p.textContent = `No booking was denied at its start on ${r} in the window, whatever the policy.`;
      sec.append(p);
    }
  }
  return resources.length;
}

function policyCharts(sec, runs, currency, colorFor) {
  const resources = [...new Set(runs.map((r) => r.resource))];
  for (const res of resources) {
    const mine = runs.filter((r) => r.resource === res).sort((a, b) => a.load - b.load);
    const methods = [...new Set(mine.flatMap((r) => Object.keys(r.methods)))].sort();
    const series = methods.map((m) => ({ label: m, color: colorFor(m), points: mine.filter((r) => r.methods[m]).map((r) => [r.load, Number(r.methods[m].revenue)]) }));
    series.push({ label: "best fixed price", color: colorFor("best fixed price"), points: mine.map((r) => [r.load, Number(r.best_fixed.revenue)]) });
    series.push({ label: "hindsight bound", color: colorFor("hindsight bound"), dash: true, points: mine.map((r) => [r.load, Number(r.bound)]) });
    lineChart(sec, { title: `Does RM beat the best fixed price on ${res}? Revenue in the window at each load`, money: currency, yLabel: "revenue", xLabel: "offered load (times the thesis's arrival rates)", series });
  }
  return resources.length;
}

drawSimReport();
