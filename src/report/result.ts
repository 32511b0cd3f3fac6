import type { CheckResult, CheckStats, DeterminismReport, FaultCoverage, BehaviourCoverageReport } from '../harness/check-result.js';
import type { FaultPlan } from '../harness/fault-plan.js';
import type { RunRecord } from '../harness/property.js';
import type { RealTimerUse } from '../host/host-context.js';
import { codeNeeded, type RecordedInputs } from '../harness/recorded-inputs.js';
import type { Scenario } from '../harness/scenario.js';
import type { TraceEntry } from '../sim/trace.js';
import type { JsonObject } from '../store/object.js';
import type { ProgramSpec } from '../kube-rest/define-program.js';
import type { ObjectTimeline } from './timeline-recorder.js';
import { version } from './version.js';

/**
 * Where the controller under test came from, so a report can say how to replay it.
 * @public
 */
export interface ControllerSource {
  /** Module path as the user gave it, relative to the working directory (posix separators). */
  module: string;
  /** Exported binding that holds the controller (`default` for a default export). */
  exportName: string;
  /** The module's export holding the check options (`checkOptions`), when it has one: a replay needs its code parts (downstream factories, custom properties). */
  checkOptions?: string | null;
  /** A program checked with `--program` (then `module` is its entry and `exportName` is empty): how to host it again. */
  program?: ProgramSpec;
}

/** What a report knows beyond the `CheckResult` itself. @public */
export interface ReportContext {
  /** Where the controller came from (the CLI knows; a vitest test may not). @defaultValue null */
  source?: ControllerSource | null;
  /** Desired vs actual per object, recorded on a replay of the minimal scenario. @defaultValue [] */
  objectTimelines?: ObjectTimeline[];
  /** Options of the failed property, when not the defaults (written to the reproduction). @defaultValue null */
  propertyOptions?: JsonObject | null;
  /** Path of the reproduction JSON, as the replay command should name it. @defaultValue null */
  reproductionPath?: string | null;
  /** Names of the built-in environment actors (a replay knows them without being given them). @defaultValue [] */
  builtInEnvironment?: readonly string[];
}

/** One activity bucket of the timeline (counts per second of virtual time). @public */
export interface ActivityBucket {
  /** Bucket start (virtual ms). */
  t: number;
  storeWrites: number;
  controllerWrites: number;
  downstreamRequests: number;
  reconciles: number;
  faults: number;
  /** One-line trace entries in this bucket (for hover), capped. */
  entries: string[];
  /** Entries left out of `entries`. */
  more: number;
}

/** A point event drawn on the time axis. @public */
export interface TimeMark {
  t: number;
  /** Fault kind, user action or phase name. */
  label: string;
  /** One line: what exactly. */
  detail: string;
}

/** A row of the compact timeline table of the Markdown summary. @public */
export interface TimelineRow {
  t: number;
  what: string;
}

/** Everything the time-axis views (HTML charts, Markdown table) need. @public */
export interface ReportTimeline {
  /** Width of each activity bucket (virtual ms). */
  bucketMs: number;
  buckets: ActivityBucket[];
  faults: TimeMark[];
  actions: TimeMark[];
  phases: TimeMark[];
  objects: ObjectTimeline[];
  rows: TimelineRow[];
  /** Rows left out of `rows`. */
  moreRows: number;
  end: number;
}

interface ReportCommon {
  /** steadystate version that made the report. */
  steadystate: string;
  controller: string;
  source: ControllerSource | null;
  runs: number;
  seed: number;
  properties: string[];
  faults: string[];
  coverage: FaultCoverage[];
  stats: CheckStats;
  corpusReplayed: number;
  determinismChecked: number;
}

/** A passing check, ready to format. @public */
export interface PassedReportModel extends ReportCommon {
  ok: true;
  /** Behaviour coverage of the generated runs and its growth, when the check measured it. */
  behaviour: BehaviourCoverageReport | null;
}

/** A failing check, ready to format. @public */
export interface FailedReportModel extends ReportCommon {
  ok: false;
  property: string;
  propertyOptions: JsonObject | null;
  summary: string;
  explanation: string;
  evidence: JsonObject;
  scenario: Scenario;
  originalScenario: Scenario;
  path: string;
  failedAtRun: number;
  shrinks: number;
  traceHash: string;
  determinism: DeterminismReport;
  /** What the check ran with that is data (null for a verdict on a whole check, such as fault coverage). */
  inputs: RecordedInputs | null;
  /** The code a replay needs besides the controller, in words (the downstream factory, functions among the property's options). */
  code: string[];
  /** The minimal scenario's fault plan. */
  faultPlan: FaultPlan;
  /** How to replay it: the CLI command, the one-line matcher call, and a complete regression test file (where to save it, and its text). */
  replay: { command: string | null; vitest: string; regressionTest: { path: string; code: string } };
  timeline: ReportTimeline;
  /** Causes the run record shows beyond the verdict (tasks given up on as blocked outside the simulation). */
  notes: string[];
}

/** A check result in the shape the report writers format. @public */
export type ReportModel = PassedReportModel | FailedReportModel;

const MAX_ENTRIES_PER_BUCKET = 40;
const MAX_ENTRIES_TOTAL = 4000;
const MAX_BUCKETS = 600;
const MAX_ROWS = 40;

/**
 * Turns a `CheckResult` into the model every report format is written from. Pure: data in,
 * data out.
 * @param result - what `check()` returned
 * @param context - what the caller knows beyond it (controller module, recorded timelines)
 * @example
 * const model = toReportModel(await check(web, { runs: 100 }), { source: { module: 'src/web.ts', exportName: 'web' } });
 * @public
 */
export function toReportModel(result: CheckResult, context: ReportContext = {}): ReportModel {
  const common: ReportCommon = {
    steadystate: version,
    controller: result.controller,
    source: context.source ?? null,
    runs: result.runs,
    seed: result.seed,
    properties: [...result.properties],
    faults: [...result.faults],
    coverage: result.coverage.map((c) => ({ ...c })),
    stats: result.stats,
    corpusReplayed: result.corpusReplayed,
    determinismChecked: result.determinismChecked,
  };
  if (result.ok) return { ...common, ok: true, behaviour: result.behaviour ?? null };
  return {
    ...common,
    ok: false,
    property: result.property,
    propertyOptions: context.propertyOptions ?? result.inputs?.properties.find((p) => p.name === result.property)?.options ?? null,
    summary: result.summary,
    explanation: proofLayout(result.explanation),
    evidence: result.evidence,
    scenario: result.scenario,
    originalScenario: result.originalScenario,
    path: result.path,
    failedAtRun: result.failedAtRun,
    shrinks: result.shrinks,
    // a check-level failure (fault coverage) may carry no real run
    traceHash: result.run?.hash ?? '',
    determinism: result.determinism,
    inputs: result.inputs ?? null,
    code: result.inputs ? codeNeeded(result.inputs, result.property, context.builtInEnvironment ?? []) : [],
    faultPlan: result.scenario.faults,
    replay: replayCommands(context, result.property, result.seed),
    timeline: buildTimeline(result.run, context.objectTimelines ?? []),
    notes: runNotes(result.run),
  };
}

/**
 * What the run record says that a verdict may leave implicit: tasks the kernel gave up on
 * because they waited on something outside the simulation.
 * @internal
 */
export function runNotes(run: RunRecord | undefined): string[] {
  const notes: string[] = [];
  for (const b of (run?.blocked ?? []).slice(0, 5)) {
    notes.push(
      `${b.label}, started at ${formatTime(b.startedAt)}, waited on something outside the simulation (a real timer such as setTimeout, real I/O such as a socket, file or global fetch, or a promise nothing ever resolves) and was given up on at ${formatTime(b.at)}. Take time from ctx.clock, call services through ctx.fetch and the store through ctx.client.`,
    );
  }
  const more = (run?.blocked.length ?? 0) - notes.length;
  if (more > 0) notes.push(`${more} more task${more === 1 ? '' : 's'} were given up on the same way.`);
  if (run?.realTimers) notes.push(realTimersNote(run.realTimers));
  const relist = run?.trace.find((e) => e.type === 'settle:relist');
  if (relist) notes.push(`When the settle phase began (${formatTime(relist.t)}) steadystate relisted every informer of ${(relist['controllers'] as string[]).join(', ')} once: caches were repaired from the store and differences delivered as events (not re-enqueued when unchanged). That is the harness, not a fault.`);
  return notes;
}

function replayCommands(context: ReportContext, property: string, seed: number): FailedReportModel['replay'] {
  const file = context.reproductionPath ?? null;
  const source = context.source ?? null;
  // without a recorded module (a report written from a test) the command needs one
  const command = file !== null ? `npx steadystate replay ${shellQuote(file)}${source ? '' : ' --module <your controller module>'}` : null;
  if (source?.program !== undefined) return programReplay(source.program, command, file, property, seed);
  const name = source === null ? 'controller' : source.exportName === 'default' ? importedDefaultName(source.module) : source.exportName;
  const options = source?.checkOptions ? `, ${source.checkOptions}` : source === null ? ', checkOptions' : '';
  const vitest = `await expect(${name}).toPassReproduction(${JSON.stringify(file ?? `<reproduction>.json`)}${options});`;
  return { command, vitest, regressionTest: regressionTest(source, name, vitest, file, property, seed) };
}

/**
 * A complete vitest file that replays the reproduction, to save where it says: beside the
 * controller's module, importing it (and its `checkOptions`, which hold the code a reproduction
 * cannot: downstream factories, custom properties) with the extension TypeScript wants.
 */
function regressionTest(source: ControllerSource | null, name: string, vitest: string, file: string | null, property: string, seed: number): { path: string; code: string } {
  const base = file === null ? `${name}-${property}` : (file.split('/').pop() ?? file).replace(/\.json$/, '');
  const dir = source === null ? '' : source.module.includes('/') ? source.module.slice(0, source.module.lastIndexOf('/') + 1) : '';
  const spec = source === null ? './your-controller.js' : `./${jsExtension(source.module.slice(source.module.lastIndexOf('/') + 1))}`;
  const bindings = source === null ? 'checkOptions, controller' : [source.exportName === 'default' ? null : name, source.checkOptions ?? null].filter((x): x is string => x !== null).sort().join(', ');
  const importLine = source?.exportName === 'default' ? `import ${name}${source.checkOptions ? `, { ${source.checkOptions} }` : ''} from '${spec}';` : `import { ${bindings} } from '${spec}';`;
  const head = [
    ...(source === null ? ['// the controller and the options its check ran with: import them from your module'] : []),
    `import { expect, test } from 'vitest';`,
    `import 'steadystate/vitest';`,
    importLine,
  ];
  return { path: `${dir}${base}.test.ts`, code: testFile(head, name, vitest, property, seed) };
}

/** The file's imports (and declarations), then the one test that replays the reproduction. */
function testFile(head: string[], name: string, vitest: string, property: string, seed: number): string {
  return [
    ...head,
    '',
    `test(${JSON.stringify(`${name} no longer fails ${property} (reproduction of seed ${seed})`)}, async () => {`,
    `  ${vitest}`,
    '});',
    '',
  ].join('\n');
}

/**
 * The replay of a program checked with `--program`: the test hosts it again with
 * `defineProgram` and the spec the check recorded (the program itself is never imported).
 */
function programReplay(spec: ProgramSpec, command: string | null, file: string | null, property: string, seed: number): FailedReportModel['replay'] {
  const name = importedDefaultName(spec.name ?? spec.entry);
  const vitest = `await expect(${name}).toPassReproduction(${JSON.stringify(file ?? `<reproduction>.json`)});`;
  const base = file === null ? `${name}-${property}` : (file.split('/').pop() ?? file).replace(/\.json$/, '');
  const dir = spec.entry.includes('/') ? spec.entry.slice(0, spec.entry.lastIndexOf('/') + 1) : '';
  const head = [
    `import { expect, test } from 'vitest';`,
    `import { defineProgram } from 'steadystate';`,
    `import 'steadystate/vitest';`,
    '',
    '// the program as the check hosted it (paths relative to the directory the tests run in)',
    `const ${name} = defineProgram(${JSON.stringify(spec)});`,
  ];
  const code = testFile(head, name, vitest, property, seed);
  return { command, vitest, regressionTest: { path: `${dir}${base}.test.ts`, code } };
}

/** `web.ts` → `web.js` (what TypeScript's NodeNext resolution and vite both accept). */
function jsExtension(file: string): string {
  return file.replace(/\.ts$/, '.js').replace(/\.mts$/, '.mjs').replace(/\.cts$/, '.cjs').replace(/\.tsx$/, '.js');
}

function importedDefaultName(module: string): string {
  const base = (module.split('/').pop() ?? 'controller').replace(/\.[^.]*$/, '');
  const camel = base.replace(/[^A-Za-z0-9]+([A-Za-z0-9])/g, (_, c: string) => c.toUpperCase()).replace(/^[^A-Za-z_$]+/, '');
  return camel || 'controller';
}

/**
 * What the code under test did with real timers, in one sentence (SPEC §8: a run's real timers
 * are cleared when it ends, and their use is reported).
 * @internal
 */
export function realTimersNote(r: RealTimerUse & { runs?: number }): string {
  const kinds = (['setTimeout', 'setInterval', 'setImmediate'] as const).filter((k) => r[k] > 0).map((k) => `${k} ×${r[k]}`);
  const where = r.firstSite !== undefined ? ` (first ${r.firstSite})` : '';
  const runs = r.runs !== undefined ? ` in ${r.runs} run${r.runs === 1 ? '' : 's'}` : '';
  return `The code under test created real timers${runs}: ${kinds.join(', ')}${where}. They do not run on virtual time, so what they do was not tested; ${r.clearedAtEnd} still pending when ${r.runs === undefined || r.runs === 1 ? 'the run' : 'their run'} ended ${r.clearedAtEnd === 1 ? 'was' : 'were'} cleared then. Wait with ctx.clock.sleep or return { requeueAfter } instead.`;
}

/** "Let: … Then: …" with "Then:" starting its own line, as a proof reads. @internal */
export function proofLayout(explanation: string): string {
  return explanation.replace(/([.;)])\s+Then: /g, '$1\nThen: ');
}

/** Quotes a path for a POSIX shell only when it needs it. */
export function shellQuote(s: string): string {
  return /^[A-Za-z0-9_./:@%+=,-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** Builds the time-axis view of a recorded run. @internal */
export function buildTimeline(record: RunRecord | undefined, objects: ObjectTimeline[]): ReportTimeline {
  const run: Pick<RunRecord, 'timing' | 'trace' | 'requests'> = {
    timing: record?.timing ?? { faultWindowEnd: 0, lastActionAt: 0, settleStart: 0, tailStart: 0, end: 0 },
    trace: record?.trace ?? [],
    requests: record?.requests ?? [],
  };
  const end = Math.max(run.timing.end, 1);
  const bucketMs = Math.max(1000, Math.ceil(end / MAX_BUCKETS / 1000) * 1000);
  const n = Math.max(1, Math.ceil(end / bucketMs) + (end % bucketMs === 0 ? 1 : 0));
  const perSecond = 1000 / bucketMs;
  const buckets: ActivityBucket[] = [];
  for (let i = 0; i < n; i++) buckets.push({ t: i * bucketMs, storeWrites: 0, controllerWrites: 0, downstreamRequests: 0, reconciles: 0, faults: 0, entries: [], more: 0 });
  const at = (t: number): ActivityBucket => buckets[Math.min(n - 1, Math.max(0, Math.floor(t / bucketMs)))]!;

  const faults: TimeMark[] = [];
  const actions: TimeMark[] = [];
  const phases: TimeMark[] = [
    { t: 0, label: 'faults', detail: 'fault window opens' },
    { t: run.timing.settleStart, label: 'settle', detail: 'faults stop; informers relist; convergence is judged from here' },
    { t: run.timing.tailStart, label: 'tail', detail: 'quiet tail: extra reconciles and re-applied specs probe idempotence and hot loops' },
  ];
  const rows: TimelineRow[] = [];
  let moreRows = 0;
  let kept = 0;
  for (const e of run.trace) {
    const b = at(e.t);
    switch (e.type) {
      case 'store:write':
        b.storeWrites++;
        if (typeof e['actor'] === 'string' && e['actor'].startsWith('controller:')) b.controllerWrites++;
        break;
      case 'downstream:request':
        b.downstreamRequests++;
        break;
      case 'reconcile:start':
        b.reconciles++;
        break;
      case 'fault:inject':
        b.faults++;
        faults.push({ t: e.t, label: String(e['kind'] ?? 'fault'), detail: describeEntry(e) });
        break;
      case 'user:action':
        actions.push({ t: e.t, label: String(e['action'] ?? 'action'), detail: describeEntry(e) });
        break;
      default:
        break;
    }
    if (kept < MAX_ENTRIES_TOTAL && b.entries.length < MAX_ENTRIES_PER_BUCKET) {
      b.entries.push(describeEntry(e));
      kept++;
    } else b.more++;
    if (isRowWorthy(e)) {
      if (rows.length < MAX_ROWS) rows.push({ t: e.t, what: describeEntry(e, false) });
      else moreRows++;
    }
  }
  // requests recorded outside the trace (downstream log) still count
  if (!run.trace.some((e) => e.type === 'downstream:request')) for (const r of run.requests) at(r.t).downstreamRequests++;
  for (const b of buckets) {
    b.storeWrites *= perSecond;
    b.controllerWrites *= perSecond;
    b.downstreamRequests *= perSecond;
    b.reconciles *= perSecond;
  }
  return { bucketMs, buckets, faults, actions, phases, objects: objects.map((o) => extendTo(o, run.timing.end)), rows, moreRows, end: run.timing.end };
}

/** Repeats each object's last sample at the end of the run, so step lines reach the edge. */
function extendTo(o: ObjectTimeline, end: number): ObjectTimeline {
  const last = o.t[o.t.length - 1];
  if (last === undefined || last >= end) return o;
  return { ...o, t: [...o.t, end], desired: o.desired.map((s) => [...s, s[s.length - 1] ?? null]), actual: o.actual.map((s) => [...s, s[s.length - 1] ?? null]) };
}

function isRowWorthy(e: TraceEntry): boolean {
  switch (e.type) {
    case 'fault:inject':
    case 'user:action':
    case 'controller:crash':
    case 'kernel:blocked':
    case 'invariant:violated':
    case 'process:exit':
    case 'settle:relist':
      return true;
    // a hosted program: what it printed as a warning or error, refused requests, streams others ended
    case 'log':
      return e['level'] === 'error' || e['level'] === 'warn';
    case 'http:request':
      return typeof e['status'] === 'number' && e['status'] >= 400;
    case 'watch:close':
      return e['by'] !== 'client';
    case 'run:phase':
      return e['phase'] === 'settle' || e['phase'] === 'tail';
    case 'store:write':
      return typeof e['actor'] === 'string' && e['actor'] !== 'user' && e['noop'] !== true;
    case 'reconcile:end':
      return e['result'] === 'error';
    default:
      return false;
  }
}

/** Virtual time as seconds with millisecond precision: `t=1.200s`. @internal */
export function formatTime(ms: number): string {
  return `t=${(ms / 1000).toFixed(3)}s`;
}

const LEAD_FIELDS = ['kind', 'action', 'actor', 'controller', 'verb', 'key', 'event', 'result'];

/** One line per trace entry, for hover panels and tables. @internal */
export function describeEntry(e: TraceEntry, withTime = true): string {
  const parts: string[] = [];
  // the fields that say what happened first, whatever order the entry was built in
  const keys = [...LEAD_FIELDS.filter((k) => k in e), ...Object.keys(e).filter((k) => !LEAD_FIELDS.includes(k))];
  for (const k of keys) {
    const v = e[k];
    // digests identify writes for hashing; people do not read them
    if (k === 't' || k === 'type' || k === 'digest' || v === undefined) continue;
    parts.push(`${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`);
  }
  const line = `${withTime ? `${formatTime(e.t)} ` : ''}${e.type} ${parts.join(' ')}`.trim();
  return line.length > 240 ? `${line.slice(0, 237)}...` : line;
}
