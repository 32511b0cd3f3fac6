import type { ChartAssets } from './chart-assets.js';
import type { FailedReportModel, PassedReportModel, ReportModel } from './result.js';
import { formatTime } from './result.js';

/**
 * One self-contained HTML file (no network: a Content-Security-Policy forbids every fetch) with
 * the failing run's timeline: desired vs actual per object, store writes/s, downstream
 * requests/s and reconciles/s, with faults, user actions and phases marked on the time axis.
 * Hovering a chart shows the trace entries of that second. All user-controlled text (object
 * names, labels, explanations) is escaped; chart data travels as JSON and is inserted with
 * `textContent`.
 * @param model - the report model
 * @param assets - the chart library to inline (see `loadChartAssets`)
 * @public
 */
export function html(model: ReportModel, assets: ChartAssets): string {
  const title = model.ok ? `steadystate: ${model.controller} passes` : `steadystate: ${model.controller} fails ${model.property}`;
  const body = model.ok ? passedBody(model) : failedBody(model);
  const data = model.ok ? null : chartData(model);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="steadystate ${esc(model.steadystate)}; charts: ${esc(assets.notice)}">
<title>${esc(title)}</title>
<style>${assets.css.replace(/<\//g, '<\\/')}</style>
<style>${CSS}</style>
</head>
<body>
${body}
<footer>steadystate ${esc(model.steadystate)} · charts by ${esc(assets.notice)}, inlined</footer>
${data === null ? '' : `<script type="application/json" id="steadystate-data">${jsonForScript(data)}</script>
<script>${assets.js.replace(/<\/script/gi, '<\\/script')}</script>
<script>${RENDER}</script>`}
</body>
</html>
`;
}

function failedBody(m: FailedReportModel): string {
  const out: string[] = [];
  out.push(`<header><h1>${esc(m.controller)} fails <code>${esc(m.property)}</code></h1><p class="summary">${esc(m.summary)}</p>`);
  if (m.replay.command) out.push(`<p>Replay: <code class="cmd">${esc(m.replay.command)}</code></p>`);
  out.push('</header>');
  out.push(`<section id="explanation"><h2>Explanation</h2><pre class="explanation">${esc(m.explanation)}</pre>${m.notes.map((n) => `<p class="note"><strong>Note:</strong> ${esc(n)}</p>`).join('')}</section>`);
  out.push(`<section id="charts"><h2>Timeline</h2>
<p class="legend"><span class="mark fault"></span> fault injected <span class="mark action"></span> user action <span class="band settle"></span> settle phase <span class="band tail"></span> quiet tail</p>
<p class="zoom">Drag across a chart to zoom in. <button type="button" id="zoom-window">Active window</button> <button type="button" id="zoom-all">Whole run</button> <span id="range"></span></p>
<div class="layout"><div id="plots"><div id="objects"></div><h3>Activity (per second of virtual time, in ${m.timeline.bucketMs < 1000 ? `${m.timeline.bucketMs} ms` : `${m.timeline.bucketMs / 1000} s`} buckets)</h3><div id="activity"></div></div>
<aside id="hover"><h3>Trace at cursor</h3><p id="hover-time">Hover a chart.</p><ul id="hover-marks"></ul><pre id="hover-entries"></pre></aside></div></section>`);
  out.push(`<section id="plan"><h2>${m.shrunk ? 'Minimal fault plan' : 'Fault plan (as found: not shrunk)'}</h2>`);
  if (m.faultPlan.events.length === 0 && m.faultPlan.background.length === 0) out.push('<p>No faults: the scenario fails without any.</p>');
  if (m.faultPlan.events.length > 0) {
    out.push('<table><thead><tr><th>#</th><th>kind</th><th>nth</th><th>at</th><th>target</th><th>params</th></tr></thead><tbody>');
    m.faultPlan.events.forEach((e, i) => out.push(`<tr><td>${i + 1}</td><td>${esc(e.kind)}</td><td>${e.nth ?? ''}</td><td>${e.at === undefined ? '' : esc(formatTime(e.at))}</td><td>${esc(e.target ?? '')}</td><td>${esc(e.params ? JSON.stringify(e.params) : '')}</td></tr>`));
    out.push('</tbody></table>');
  }
  if (m.faultPlan.background.length > 0) {
    out.push('<table><thead><tr><th>background kind</th><th>rate</th></tr></thead><tbody>');
    for (const b of m.faultPlan.background) out.push(`<tr><td>${esc(b.kind)}</td><td>${b.rate}</td></tr>`);
    out.push('</tbody></table>');
  }
  out.push('</section>');
  out.push('<section id="events"><h2>Key events</h2><table><thead><tr><th>time</th><th>what</th></tr></thead><tbody>');
  for (const r of m.timeline.rows) out.push(`<tr><td>${esc(formatTime(r.t))}</td><td>${esc(r.what)}</td></tr>`);
  if (m.timeline.moreRows > 0) out.push(`<tr><td>…</td><td>${m.timeline.moreRows} more (hover the charts)</td></tr>`);
  out.push('</tbody></table></section>');
  out.push(`<section id="run"><h2>Run</h2><ul>
<li>seed <code>${m.seed}</code>, path <code>${esc(m.path)}</code>; found at ${esc(m.failedAt)}; ${m.shrinks} shrink steps</li>
<li>trace hash <code>${esc(m.traceHash)}</code>; determinism: ${m.determinism.ok ? 'identical on rerun' : `<strong>not reproducible</strong> — ${esc(m.determinism.explanation ?? '')}`}</li>
<li>properties: ${m.properties.map((p) => `<code>${esc(p)}</code>`).join(', ')}</li>
<li>vitest: <code>${esc(m.replay.vitest)}</code></li>
</ul></section>`);
  out.push(systematic(m));
  out.push(coverage(m));
  return out.join('\n');
}

function passedBody(m: PassedReportModel): string {
  const s = m.stats;
  const lat = s.convergenceLatencyMs;
  return `<header><h1>${esc(m.controller)} passes</h1><p class="summary">${m.runs} scenarios (seed <code>${m.seed}</code>); every property held: ${m.properties.map((p) => `<code>${esc(p)}</code>`).join(', ')}</p></header>
<section><h2>Statistics</h2><table><tbody>
${lat ? `<tr><th>convergence latency p50 / p90 / p99 / max</th><td>${lat.p50} / ${lat.p90} / ${lat.p99} / ${lat.max} ms</td></tr>` : ''}
<tr><th>reconciles per object</th><td>${s.reconcilesPerObject.toFixed(2)}</td></tr>
<tr><th>store writes per object</th><td>${s.storeWritesPerObject.toFixed(2)}</td></tr>
<tr><th>peak downstream QPS</th><td>${s.peakDownstreamQps}</td></tr>
</tbody></table></section>
${judged(m)}${behaviour(m)}
${systematic(m)}${coverage(m)}`;
}

/** What each property judged: the runs it judged, those it had nothing to judge in and why; a property that judged no run is noted. */
function judged(m: PassedReportModel): string {
  if (m.propertyRuns.length === 0) return '';
  const unit = m.systematic ? 'plans' : 'runs';
  const notes = m.propertyRuns.filter((p) => p.judged === 0).map((p) => `<p class="note"><strong>Note:</strong> <code>${esc(p.name)}</code> judged 0 of ${p.judged + p.unjudged} ${unit}${p.reason ? ` (${esc(p.reason)})` : ''}: it says nothing about this controller here.</p>`);
  return `<section id="judged"><h2>What each property judged</h2>${notes.join('')}<table><thead><tr><th>property</th><th>${unit} judged</th><th>nothing to judge in</th><th>why (the first)</th></tr></thead><tbody>
${m.propertyRuns.map((p) => `<tr><td>${esc(p.name)}</td><td>${p.judged}</td><td>${p.unjudged}</td><td>${esc(p.reason ?? '')}</td></tr>`).join('\n')}
</tbody></table></section>
`;
}

/** Behaviour coverage of a pass and its growth run after run, as an inline SVG curve (a flat end says more runs find little new). */
function behaviour(m: PassedReportModel): string {
  const b = m.behaviour;
  if (!b || b.growth.length === 0) return '';
  const runs = b.growth.at(-1)![0];
  const [w, h] = [480, 120];
  const x = (run: number) => ((run / Math.max(1, runs)) * w).toFixed(1);
  const y = (facts: number) => (h - (facts / Math.max(1, b.facts)) * h).toFixed(1);
  const points = [`0,${h}`, ...b.growth.map(([run, facts]) => `${x(run)},${y(facts)}`)].join(' ');
  const how = b.search === 'guided' ? `guided search: ${b.mutants ?? 0} mutants of ${b.pool ?? 0} coverage-adding runs` : 'swarm search';
  return `<section id="behaviour"><h2>Behaviour coverage</h2><p>${b.facts} distinct behaviours (abstract object states and transitions, reconcile outcomes, fault sites) over ${runs} generated runs, ${how}.</p>
<svg role="img" aria-label="distinct behaviours after each run: ${b.facts} after run ${runs}" viewBox="-2 -2 ${w + 4} ${h + 4}" width="${w}" height="${h}"><polyline fill="none" stroke="#2f6fdb" stroke-width="2" points="${points}"/></svg></section>`;
}

/** A systematic search's account: what each strategy derived, ran and pruned. */
function systematic(m: ReportModel): string {
  if (!m.systematic) return '';
  return `<section id="systematic"><h2>Systematic search</h2><ul>${m.systematic.map((l) => `<li>${esc(l)}</li>`).join('')}</ul></section>\n`;
}

function coverage(m: ReportModel): string {
  if (m.coverage.length === 0) return '';
  return `<section id="coverage"><h2>Fault coverage</h2><table><thead><tr><th>fault</th><th>enabled in runs</th><th>injections</th><th>changed behaviour in runs</th></tr></thead><tbody>
${m.coverage.map((c) => `<tr><td>${esc(c.kind)}</td><td>${c.enabled}</td><td>${c.injected}</td><td>${c.changedBehaviour}</td></tr>`).join('\n')}
</tbody></table></section>`;
}

/** What the page script draws from: times in virtual ms; activity as steps, zero where no bucket has any. */
function chartData(m: FailedReportModel): unknown {
  const tl = m.timeline;
  const t: number[] = [];
  const cols = { storeWrites: [] as number[], controllerWrites: [] as number[], downstreamRequests: [] as number[], reconciles: [] as number[] };
  const zero = (at: number): void => {
    t.push(at);
    cols.storeWrites.push(0);
    cols.controllerWrites.push(0);
    cols.downstreamRequests.push(0);
    cols.reconciles.push(0);
  };
  let next = 0;
  for (const b of tl.buckets) {
    if (b.t > next || t.length === 0) zero(Math.min(next, b.t));
    t.push(b.t);
    cols.storeWrites.push(b.storeWrites);
    cols.controllerWrites.push(b.controllerWrites);
    cols.downstreamRequests.push(b.downstreamRequests);
    cols.reconciles.push(b.reconciles);
    next = b.t + tl.bucketMs;
  }
  if (next <= tl.end) zero(next);
  if (t[t.length - 1]! < tl.end) zero(tl.end);
  return {
    unit: tl.unit,
    window: tl.window,
    bucketMs: tl.bucketMs,
    end: tl.end,
    activity: { t, ...cols },
    hover: { t: tl.buckets.map((b) => b.t), entries: tl.buckets.map((b) => b.entries), more: tl.buckets.map((b) => b.more) },
    faults: tl.faults,
    actions: tl.actions,
    phases: tl.phases,
    objects: tl.objects,
    converged: tl.converged,
  };
}

/** JSON inside <script type="application/json">: no `<` may survive (no `</script>`, no `<!--`). */
function jsonForScript(data: unknown): string {
  return JSON.stringify(data).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

/** Escapes text for HTML element content and quoted attributes. @internal */
export function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

const CSS = `
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0 auto;padding:16px 24px;max-width:1280px;color:#1d232b;background:#fff}
h1{font-size:22px;margin:8px 0} h2{font-size:17px;margin:24px 0 8px;border-bottom:1px solid #e3e6ea;padding-bottom:4px} h3{font-size:14px;margin:12px 0 4px}
code{font:12.5px ui-monospace,SFMono-Regular,Menlo,monospace;background:#f2f4f7;padding:1px 4px;border-radius:3px}
.summary{font-size:15px;color:#a3261b;font-weight:600}
.note{background:#fff8e5;border-left:3px solid #e0a000;padding:6px 10px}
pre.explanation{white-space:pre-wrap;background:#f7f8fa;border-left:3px solid #d0453a;padding:10px 12px;font:13px ui-monospace,Menlo,monospace}
table{border-collapse:collapse;margin:6px 0} th,td{border:1px solid #e3e6ea;padding:3px 8px;text-align:left;vertical-align:top;font-size:13px} th{background:#f7f8fa}
.layout{display:flex;gap:16px;align-items:flex-start} #plots{flex:1 1 auto;min-width:0}
#hover{flex:0 0 340px;position:sticky;top:8px;max-height:90vh;overflow:auto;background:#fbfbfc;border:1px solid #e3e6ea;border-radius:6px;padding:8px 10px}
#hover pre{white-space:pre-wrap;word-break:break-all;font:11.5px ui-monospace,Menlo,monospace;margin:0}
#hover ul{padding-left:16px;margin:4px 0;font-size:12px}
.chart-title{font-weight:600;margin:10px 0 2px} .chart-note{color:#586069;font-size:12px;margin:0 0 2px}
.zoom{font-size:13px;color:#586069} .zoom button{font:inherit;padding:1px 8px;margin:0 2px;cursor:pointer}
.legend .mark{display:inline-block;width:2px;height:12px;margin:0 4px 0 10px;vertical-align:middle}
.legend .band{display:inline-block;width:16px;height:10px;margin:0 4px 0 10px;vertical-align:middle}
.mark.fault{background:#d0453a}.mark.action{background:#2f6fdb}.band.settle{background:rgba(46,160,67,.12)}.band.tail{background:rgba(130,80,223,.10)}
footer{margin-top:32px;color:#6a737d;font-size:12px}
`;

/**
 * The page script (plain ES2019, runs in any browser). Reads the embedded JSON, draws one
 * desired-vs-actual chart per object and one activity chart, marks faults/actions/phases with
 * a uPlot draw hook, syncs cursors, and fills the hover panel with the trace entries of the
 * bucket under the cursor. Sets `document.body.dataset.charts` when done (the browser test
 * reads it).
 */
const RENDER = `
(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('steadystate-data').textContent);
  var plots = document.getElementById('plots');
  var width = Math.max(360, plots.clientWidth - 8);
  var charts = [];
  var sync = uPlot.sync('steadystate');
  var stepped = uPlot.paths.stepped({ align: 1 });
  var ms = data.unit === 'ms';
  function fmt(v) { return ms ? (Math.round(v * 1000) / 1000) + ' ms' : (Math.round(v) / 1000) + ' s'; }
  var view = { min: data.window.from, max: data.window.to };
  var zooming = false;

  function marksPlugin() {
    return { hooks: {
      drawClear: [function (u) {
        var ctx = u.ctx, top = u.bbox.top, h = u.bbox.height;
        for (var i = 0; i < data.phases.length; i++) {
          var p = data.phases[i];
          if (p.label === 'faults') continue;
          var next = data.phases[i + 1];
          var x0 = u.valToPos(p.t, 'x', true);
          var x1 = u.valToPos(next ? next.t : data.end, 'x', true);
          ctx.fillStyle = p.label === 'settle' ? 'rgba(46,160,67,0.12)' : 'rgba(130,80,223,0.10)';
          ctx.fillRect(x0, top, Math.max(0, x1 - x0), h);
        }
      }],
      draw: [function (u) {
        var ctx = u.ctx, top = u.bbox.top, h = u.bbox.height;
        ctx.save();
        ctx.lineWidth = 2 * uPlot.pxRatio;
        function line(t, color, dash) {
          var x = Math.round(u.valToPos(t, 'x', true));
          ctx.strokeStyle = color; ctx.setLineDash(dash);
          ctx.beginPath(); ctx.moveTo(x, top); ctx.lineTo(x, top + h); ctx.stroke();
        }
        data.actions.forEach(function (a) { line(a.t, 'rgba(47,111,219,0.8)', [4, 3]); });
        data.faults.forEach(function (f) { line(f.t, 'rgba(208,69,58,0.9)', []); });
        ctx.restore();
      }],
      setCursor: [function (u) {
        var i = u.cursor.idx;
        if (i == null) return;
        showAt(u.posToVal(u.cursor.left, 'x'));
      }],
      setScale: [function (u, key) {
        if (key !== 'x' || zooming) return;
        zoom(u.scales.x.min, u.scales.x.max);
      }]
    } };
  }

  function zoom(min, max) {
    if (!(max > min)) return;
    view = { min: Math.max(0, min), max: Math.min(data.end, max) };
    zooming = true;
    charts.forEach(function (c) { c.setScale('x', { min: view.min, max: view.max }); });
    zooming = false;
    document.body.dataset.xMin = String(view.min);
    document.body.dataset.xMax = String(view.max);
    document.getElementById('range').textContent = 'showing ' + fmt(view.min) + ' … ' + fmt(view.max) + ' of ' + fmt(data.end);
  }

  function showAt(t) {
    var h = data.hover, lo = 0, hi = h.t.length - 1, b = -1;
    while (lo <= hi) { var mid = (lo + hi) >> 1; if (h.t[mid] <= t) { b = mid; lo = mid + 1; } else hi = mid - 1; }
    if (b >= 0 && t >= h.t[b] + data.bucketMs) b = -1;
    var from = b >= 0 ? h.t[b] : Math.floor(t / data.bucketMs) * data.bucketMs, to = from + data.bucketMs;
    document.getElementById('hover-time').textContent = 't = ' + fmt(from) + ' … ' + fmt(to);
    var marks = document.getElementById('hover-marks');
    marks.textContent = '';
    data.faults.concat(data.actions).forEach(function (m) {
      if (m.t >= from && m.t < to) { var li = document.createElement('li'); li.textContent = m.label + ': ' + m.detail; marks.appendChild(li); }
    });
    var lines = b >= 0 ? h.entries[b].slice() : [];
    if (b >= 0 && h.more[b] > 0) lines.push('… ' + h.more[b] + ' more entries');
    document.getElementById('hover-entries').textContent = lines.length ? lines.join('\\n') : '(no trace entries in this interval)';
  }

  function axes(unit) {
    return [
      { label: 'virtual time (' + (ms ? 'ms' : 's') + ')', values: function (u, vals) { return vals.map(fmt); } },
      { label: unit, size: 56 }
    ];
  }

  function chart(opts, cols, box) {
    opts.width = width;
    opts.scales = Object.assign({ x: { time: false, auto: false, range: function (u, min, max) { return [min, max]; } } }, opts.scales || {});
    opts.cursor = { sync: { key: sync.key }, drag: { x: true, y: false, setScale: true } };
    opts.plugins = [marksPlugin()];
    var u = new uPlot(opts, cols, box);
    u.setScale('x', { min: view.min, max: view.max });
    charts.push(u);
    return u;
  }

  function title(text) {
    var d = document.createElement('div'); d.className = 'chart-title'; d.textContent = text; return d;
  }

  var objects = document.getElementById('objects');
  if (data.objects.length === 0) {
    var p = document.createElement('p');
    p.textContent = 'No object samples were recorded for this run (reports written from a bare CheckResult); the activity chart below still shows the run.';
    objects.appendChild(p);
  }
  if (data.converged && data.converged.t.length) {
    var cbox = document.createElement('div'); cbox.className = 'object-chart';
    cbox.appendChild(title('converged? (what the convergence predicate says after every write)'));
    objects.appendChild(cbox);
    var ct = data.converged.t.slice(), co = data.converged.ok.slice();
    if (ct[ct.length - 1] < data.end) { ct.push(data.end); co.push(co[co.length - 1]); }
    chart({ height: 110, scales: { y: { range: [0, 1.1] } }, axes: axes('1 = yes'), series: [{ label: 't' }, { label: 'converged', stroke: '#2ca02c', fill: 'rgba(44,160,44,0.12)', width: 2, paths: stepped, points: { show: false } }] }, [ct, co], cbox);
  }
  var palette = ['#e07b00', '#1f77b4', '#2ca02c'];
  data.objects.forEach(function (o) {
    var box = document.createElement('div'); box.className = 'object-chart';
    box.appendChild(title(o.kind + ' ' + o.key + ': desired vs actual'));
    if (o.note) { var n = document.createElement('div'); n.className = 'chart-note'; n.textContent = o.note; box.appendChild(n); }
    objects.appendChild(box);
    var series = [{ label: 't' }];
    var cols = [o.t];
    o.fields.forEach(function (f, i) {
      var c = palette[i % palette.length];
      series.push({ label: 'desired ' + f, stroke: c, dash: [6, 4], width: 2, paths: stepped, spanGaps: false });
      cols.push(o.desired[i]);
      series.push({ label: 'actual ' + f, stroke: c, width: 2, paths: stepped, spanGaps: false });
      cols.push(o.actual[i]);
    });
    chart({ height: 200, axes: axes('value'), series: series }, cols, box);
  });

  var act = document.getElementById('activity');
  var a = data.activity;
  chart({
    height: 240,
    axes: axes('per second'),
    series: [
      { label: 't' },
      { label: 'store writes/s', points: { show: false }, stroke: '#6f42c1', fill: 'rgba(111,66,193,0.10)', width: 2, paths: stepped },
      { label: 'controller writes/s', points: { show: false }, stroke: '#e07b00', width: 1.5, paths: stepped },
      { label: 'downstream requests/s', points: { show: false }, stroke: '#d0453a', width: 2, paths: stepped },
      { label: 'reconciles/s', points: { show: false }, stroke: '#2f6fdb', width: 1.5, paths: stepped }
    ]
  }, [a.t, a.storeWrites, a.controllerWrites, a.downstreamRequests, a.reconciles], act);

  document.getElementById('zoom-window').addEventListener('click', function () { zoom(data.window.from, data.window.to); });
  document.getElementById('zoom-all').addEventListener('click', function () { zoom(0, data.end); });
  zoom(view.min, view.max);
  if (data.faults.length) showAt(data.faults[0].t); else showAt(data.window.from);
  document.body.dataset.charts = String(charts.length);
})();
`;
