import { systematicSummary } from './systematic-summary.js';
import type { SystematicReport } from '../harness/systematic.js';
import type { BehaviourCoverageReport, CheckFailed, CheckResult, CheckStats, DeterminismReport, FaultCoverage } from '../harness/check-result.js';
import type { FaultPlan } from '../harness/fault-plan.js';
import type { RunRecord } from '../harness/property.js';
import type { RealTimerUse } from '../host/host-context.js';
import { codeNeeded, type RecordedInputs } from '../harness/recorded-inputs.js';
import type { Scenario } from '../harness/scenario.js';
import type { JsonObject } from '../store/object.js';
import type { ProgramSpec } from '../kube-rest/define-program.js';
import type { CodeDigest } from './code-digest.js';
import type { ObjectTimeline } from './timeline-recorder.js';
import { buildTimeline, formatTime, type ConvergedSeries, type ReportTimeline } from './timeline.js';
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
  /** The code the check ran (the module's local import graph, package versions): a replay that finds it unchanged and the run different fails instead of reporting a fix. */
  codeDigest?: CodeDigest | null;
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
  /** What the convergence predicate said over the minimal scenario, recorded on its replay (charted beside desired vs actual). @defaultValue null */
  converged?: ConvergedSeries | null;
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
  /** How a wall-clock budget cut the check short, in words (null when none did). */
  cutShort: string | null;
  /** What a systematic search did, one line each (per strategy: plans derived, run, pruned); null for swarm and guided checks. */
  systematic: string[] | null;
  /** What the regression corpus replayed first did, in words (null when it replayed nothing). */
  corpusNote: string | null;
  /** Wall-clock ms the check took (null when unknown). */
  elapsedMs: number | null;
  /** Per property: runs judged, runs it could not judge and why, wall ms of its judge (empty when unknown). */
  propertyRuns: { name: string; judged: number; unjudged: number; reason: string | null; ms: number }[];
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
  /** Where the failure was found, in words: "run 3 of 100", or "corpus entry 1 of 2 (reports/corpus/…), replayed before the generated runs". */
  failedAt: string;
  shrinks: number;
  traceHash: string;
  determinism: DeterminismReport;
  /** What the check ran with that is data (null for a verdict on a whole check, such as fault coverage). */
  inputs: RecordedInputs | null;
  /** The code a replay needs besides the controller, in words (the downstream factory, functions among the property's options). */
  code: string[];
  /** The reported scenario's fault plan: minimal when `shrunk`. */
  faultPlan: FaultPlan;
  /** The scenario was shrunk to the end (its plan is minimal); false when shrinking was off, cut short or impossible. */
  shrunk: boolean;
  /** How to replay it: the CLI command, the one-line matcher call, and a complete regression test file (where to save it, and its text). */
  replay: { command: string | null; vitest: string; regressionTest: { path: string; code: string } };
  timeline: ReportTimeline;
  /** Causes the run record shows beyond the verdict (tasks given up on as blocked outside the simulation). */
  notes: string[];
}

/** A check result in the shape the report writers format. @public */
export type ReportModel = PassedReportModel | FailedReportModel;


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
    cutShort: cutShortNote(result),
    systematic: 'systematic' in result ? systematicSummary((result as CheckResult & { systematic: SystematicReport }).systematic) : null,
    corpusNote: corpusNote(result),
    elapsedMs: result.elapsedMs ?? null,
    propertyRuns: result.propertyRuns ?? [],
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
    failedAt: failedAtText(result),
    shrinks: result.shrinks,
    // a check-level failure (fault coverage) may carry no real run
    traceHash: result.run?.hash ?? '',
    determinism: result.determinism,
    inputs: result.inputs ?? null,
    // a program's --service flags are data its recorded spec carries (replay rebuilds them), not code to pass
    code: result.inputs ? codeNeeded(context.source?.program?.services !== undefined ? { ...result.inputs, downstream: null } : result.inputs, result.property, context.builtInEnvironment ?? []) : [],
    faultPlan: result.scenario.faults,
    shrunk: result.shrunk === true,
    replay: replayCommands(context, result.property, result.seed),
    timeline: buildTimeline(result.run, context.objectTimelines ?? [], context.converged ?? null, evidenceWindow(result.evidence)),
    notes: resultNotes(result),
  };
}

/** The `{ from, to }` window a property's evidence names (no-hot-loop's quiet-tail window), if any. */
function evidenceWindow(evidence: JsonObject): { from: number; to: number } | undefined {
  const w = evidence['window'];
  if (w === null || typeof w !== 'object' || Array.isArray(w)) return undefined;
  const { from, to } = w as Record<string, unknown>;
  return typeof from === 'number' && typeof to === 'number' && to >= from ? { from, to } : undefined;
}

/** Everything a failure's report notes beside the explanation: corpus, blocked tasks, budgets, setup warnings. @internal */
export function resultNotes(result: CheckFailed): string[] {
  const corpus = corpusNote(result);
  const cut = cutShortNote(result);
  return [...(corpus ? [corpus] : []), ...runNotes(result.run), ...(cut ? [cut] : []), ...(result.warnings ?? [])];
}

/**
 * Where a check found its failure: "run 3 of 100" (of the generated runs it planned, not of the
 * runs it got to before stopping), or the corpus entry that still fails.
 * @internal
 */
export function failedAtText(result: CheckFailed): string {
  const c = result.fromCorpus;
  if (c) return `corpus entry ${c.entry} of ${c.of}${c.name ? ` (${c.name})` : ''}, replayed before the generated runs`;
  if (result.failedAtRun <= 0) return `after ${result.runs} run${result.runs === 1 ? '' : 's'}`;
  // systematic plans are derived, not drawn: there is no planned total to count them against
  if ('systematic' in result) return `systematic plan ${result.failedAtRun}, the first that failed`;
  return `run ${result.failedAtRun} of ${result.plannedRuns ?? result.runs}`;
}

/**
 * The regression corpus in words, so no result hides that it replayed failures saved by an
 * earlier check: a failure found there ("replayed reports/corpus/web/x.json first: it still
 * fails") is not one the seed's generated runs found.
 * @internal
 */
export function corpusNote(result: CheckResult): string | null {
  const c = result.ok ? undefined : result.fromCorpus;
  if (c) {
    const what = c.name ?? `corpus entry ${c.entry} of ${c.of}`;
    return `replayed ${what} first, a failing scenario an earlier check saved to the regression corpus: it still fails, so the check stopped there and no generated run of seed ${result.seed} ran. Delete the file once the bug is fixed (the corpus keeps a bug found once found).`;
  }
  const n = result.corpusReplayed;
  if (n === 0) return null;
  return `replayed ${n} regression corpus entr${n === 1 ? 'y' : 'ies'} (failures earlier checks saved) before the generated runs: ${n === 1 ? 'it passes' : 'all pass'}.`;
}

/**
 * The budget that cut a check short, in words: "the time limit (5 s) stopped the search after
 * 37 of 100 runs made" or "the shrink budget (2 s) stopped shrinking after 40 shrink steps …".
 * @internal
 */
export function cutShortNote(result: CheckResult): string | null {
  const c = result.cutShort;
  if (!c) return null;
  const budget = `${(c.limitMs / 1000).toFixed(c.limitMs < 10_000 ? 1 : 0)} s`;
  return c.phase === 'runs'
    ? `the time limit (${budget}) stopped the search: ${c.done}. ${result.ok ? 'The pass covers only those runs.' : ''}`.trim()
    : `the shrink budget (${budget}) stopped shrinking: ${c.done}.`;
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
  const { services, ...program } = spec;
  const withServices = services !== undefined && services.length > 0;
  const vitest = `await expect(${name}).toPassReproduction(${JSON.stringify(file ?? `<reproduction>.json`)}${withServices ? ', checkOptions' : ''});`;
  const base = file === null ? `${name}-${property}` : (file.split('/').pop() ?? file).replace(/\.json$/, '');
  const dir = spec.entry.includes('/') ? spec.entry.slice(0, spec.entry.lastIndexOf('/') + 1) : '';
  const head = [
    `import { expect, test } from 'vitest';`,
    `import { defineProgram${withServices ? ', fakeRestService' : ''} } from 'steadystate';`,
    `import 'steadystate/vitest';`,
    '',
    '// the program as the check hosted it (paths relative to the directory the tests run in)',
    `const ${name} = defineProgram(${JSON.stringify(program)});`,
    ...(withServices ? ['// the services of its --service flags, fresh in every run', `const checkOptions = { downstream: () => ({ services: [${services.map((s) => `fakeRestService(${JSON.stringify(s)})`).join(', ')}] }) };`] : []),
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

export { buildTimeline, describeEntry, formatTime } from './timeline.js';
export type { ActivityBucket, ConvergedSeries, ReportTimeline, TimeMark, TimelineRow } from './timeline.js';
