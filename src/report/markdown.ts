import type { FailedReportModel, PassedReportModel, ReportModel } from './result.js';
import { formatTime } from './result.js';

/**
 * The Markdown summary a person pastes into a pull request: the property, the explanation, the
 * minimal fault plan, a compact timeline, the replay command and a vitest snippet. A passing
 * check gets its statistics and fault coverage.
 * @example
 * writeAtomic('reports/web.md', markdown(toReportModel(result)));
 * @public
 */
export function markdown(model: ReportModel): string {
  return (model.ok ? passed(model) : failed(model)).join('\n') + '\n';
}

function failed(m: FailedReportModel): string[] {
  const out: string[] = [];
  out.push(`# steadystate: \`${code(m.controller)}\` fails **${text(m.property)}**`, '');
  out.push(`> ${text(m.summary)}`, '');
  if (m.replay.command) out.push(`Replay: \`${code(m.replay.command)}\``, '');
  out.push('## Explanation', '');
  for (const line of m.explanation.split('\n')) out.push(text(line) + '  ');
  out.push('');
  for (const n of m.notes) out.push(`> **Note:** ${text(n)}`, '');
  out.push(m.shrunk ? '## Minimal fault plan' : '## Fault plan (as found: not shrunk)', '');
  const plan = m.faultPlan;
  if (plan.events.length === 0 && plan.background.length === 0) out.push('No faults: the scenario fails without any.', '');
  if (plan.events.length > 0) {
    out.push('| # | kind | nth | at | target | params |', '|---|---|---|---|---|---|');
    plan.events.forEach((e, i) => out.push(row([String(i + 1), e.kind, opt(e.nth), e.at === undefined ? '' : formatTime(e.at), e.target ?? '', e.params ? JSON.stringify(e.params) : ''])));
    out.push('');
  }
  if (plan.background.length > 0) {
    out.push('| background kind | rate | params |', '|---|---|---|');
    for (const b of plan.background) out.push(row([b.kind, String(b.rate), b.params ? JSON.stringify(b.params) : '']));
    out.push('');
  }
  const actions = m.scenario.workload.length;
  out.push(`Workload: ${actions} user action${actions === 1 ? '' : 's'}, ${m.scenario.initialObjects.length} initial object${m.scenario.initialObjects.length === 1 ? '' : 's'}; scenario seed ${m.scenario.seed}.`, '');
  out.push(m.shrunk ? '## Timeline (minimal scenario)' : '## Timeline', '');
  out.push('| time | what |', '|---|---|');
  for (const r of m.timeline.rows) out.push(row([formatTime(r.t), r.what]));
  if (m.timeline.moreRows > 0) out.push(row(['…', `${m.timeline.moreRows} more rows in the HTML report`]));
  out.push('');
  out.push('## Reproduce', '');
  if (m.replay.command) out.push('```sh', m.replay.command, '```', '');
  out.push(`As a regression test, saved as \`${code(m.replay.regressionTest.path)}\` (it fails while the bug is there and passes once it is fixed):`, '');
  out.push('```ts', ...m.replay.regressionTest.code.trimEnd().split('\n'), '```', '');
  if (m.code.length > 0) out.push(`The replay needs the code the check ran with besides the controller: ${m.code.map(text).join('; ')}${m.source?.checkOptions ? ` (in \`${code(m.source.checkOptions)}\`)` : ''}.`, '');
  out.push('## Run', '');
  out.push(`- seed \`${m.seed}\`, path \`${code(m.path)}\` (found at ${text(m.failedAt)}, ${m.shrinks} shrink steps)`);
  out.push(`- trace hash \`${m.traceHash}\`; determinism ${m.determinism.ok ? 'checked: identical on rerun' : `**not reproducible**: ${text(m.determinism.explanation ?? '')}`}`);
  out.push(`- properties: ${m.properties.map((p) => `\`${code(p)}\``).join(', ')}`);
  out.push(`- steadystate ${m.steadystate}`, '');
  out.push(...systematic(m));
  out.push(...coverage(m));
  return out;
}

function passed(m: PassedReportModel): string[] {
  const out: string[] = [];
  out.push(`# steadystate: \`${code(m.controller)}\` passes`, '');
  out.push(`${m.runs} scenario${m.runs === 1 ? '' : 's'} (seed \`${m.seed}\`, ${m.corpusReplayed} from the regression corpus); every property held: ${m.properties.map((p) => `\`${code(p)}\``).join(', ')}${m.propertyRuns.some((p) => p.judged === 0) ? ` (${m.propertyRuns.filter((p) => p.judged === 0).map((p) => `\`${code(p.name)}\``).join(', ')} judged no run: nothing in the runs was theirs to judge)` : ''}.`, '');
  if (m.cutShort) out.push(`> **Note:** ${text(m.cutShort)}`, '');
  if (m.corpusNote) out.push(`> **Note:** ${text(m.corpusNote)}`, '');
  const s = m.stats;
  out.push('| measure | value |', '|---|---|');
  if (s.convergenceLatencyMs) out.push(row(['convergence latency p50 / p90 / p99 / max', `${s.convergenceLatencyMs.p50} / ${s.convergenceLatencyMs.p90} / ${s.convergenceLatencyMs.p99} / ${s.convergenceLatencyMs.max} ms`]));
  out.push(row(['reconciles per object', s.reconcilesPerObject.toFixed(2)]));
  out.push(row(['store writes per object', s.storeWritesPerObject.toFixed(2)]));
  out.push(row(['peak downstream QPS', String(s.peakDownstreamQps)]));
  out.push(row(['reconciles (all runs)', String(s.reconciles)]));
  out.push(row(['determinism double-checked', `${m.determinismChecked} runs`]));
  out.push('');
  out.push(...judged(m));
  out.push(...behaviour(m));
  out.push(...systematic(m));
  out.push(...coverage(m));
  return out;
}

/**
 * What each property judged: the runs it judged, and those it had nothing to judge in, with why
 * (a pass says what it judged). A property that judged no run is noted: it says nothing here.
 */
function judged(m: PassedReportModel): string[] {
  if (m.propertyRuns.length === 0) return [];
  const unit = m.systematic ? 'plans' : 'runs';
  const out = ['## What each property judged', ''];
  for (const p of m.propertyRuns) {
    if (p.judged === 0) out.push(`> **Note:** \`${code(p.name)}\` judged 0 of ${p.judged + p.unjudged} ${unit}${p.reason ? ` (${text(p.reason)})` : ''}: it says nothing about this controller here.`, '');
  }
  out.push(`| property | ${unit} judged | nothing to judge in | why (the first ${unit === 'runs' ? 'run' : 'plan'}) |`, '|---|---|---|---|');
  for (const p of m.propertyRuns) out.push(row([p.name, String(p.judged), String(p.unjudged), p.reason ?? '']));
  out.push('');
  return out;
}

/** Behaviour coverage and its growth run after run (a curve that has flattened says more runs find little new). */
function behaviour(m: PassedReportModel): string[] {
  const b = m.behaviour;
  if (!b || b.growth.length === 0) return [];
  const out = ['## Behaviour coverage', ''];
  out.push(`${b.facts} distinct behaviours (abstract object states and transitions, reconcile outcomes, fault sites) over ${b.growth.at(-1)![0]} generated runs, ${b.search === 'guided' ? `guided search: ${b.mutants ?? 0} mutants of ${b.pool ?? 0} coverage-adding runs` : 'swarm search'}.`, '');
  out.push('| after run | behaviours |', '|---|---|');
  const step = Math.max(1, Math.ceil(b.growth.length / 10));
  b.growth.forEach(([run, facts], i) => {
    if (i % step === 0 || i === b.growth.length - 1) out.push(row([String(run), String(facts)]));
  });
  out.push('');
  return out;
}

/** A systematic search's account: what each strategy derived, ran and pruned. */
function systematic(m: ReportModel): string[] {
  if (!m.systematic) return [];
  return ['## Systematic search', '', ...m.systematic.map((l) => `- ${text(l)}`), ''];
}

function coverage(m: ReportModel): string[] {
  if (m.coverage.length === 0) return [];
  const out = ['## Fault coverage', '', '| fault | enabled in runs | injections | changed behaviour in runs |', '|---|---|---|---|'];
  for (const c of m.coverage) out.push(row([c.kind, String(c.enabled), String(c.injected), String(c.changedBehaviour)]));
  out.push('');
  return out;
}

function opt(n: number | undefined): string {
  return n === undefined ? '' : String(n);
}

function row(cells: string[]): string {
  return `| ${cells.map(cell).join(' | ')} |`;
}

/** Table cells: escape HTML and pipes, keep one line. */
function cell(s: string): string {
  return text(s).replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
}

/** Free text: user-controlled names must not become HTML or links. */
function text(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Inside backticks only a backtick can break out. */
function code(s: string): string {
  return s.replace(/`/g, "'");
}
