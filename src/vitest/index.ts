/**
 * `steadystate/vitest`: matchers for vitest 4. Import it once (or list it in `setupFiles`):
 *
 * ```ts
 * import 'steadystate/vitest';
 * test('web survives faults', async () => {
 *   await expect(web).toPassCheck({ runs: 200 });
 * });
 * ```
 *
 * A failing check writes its reports (reproduction JSON, Markdown, HTML, JUnit) and fails the
 * assertion with a message that starts with the line that replays it, then the explanation and
 * the report paths. A passing check prints nothing.
 * @packageDocumentation
 */
import { resolve } from 'node:path';
import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, chai, expect } from 'vitest';
import { check } from '../check.js';
import type { CheckOptions } from '../harness/check-options.js';
import type { CheckResult } from '../harness/check-result.js';
import { isControllerDefinition, type ControllerDefinition } from '../runtime/define-controller.js';
import { loadCorpus, saveToCorpus } from '../report/corpus.js';
import { writeReports, type WrittenReports } from '../report/index.js';
import { failedAtText, proofLayout, resultNotes } from '../report/result.js';
import { judgedNothing } from '../report/pass-summary.js';
import { parseReproductionFile, ReproductionFileError, type ReproductionFile } from '../report/json.js';
import { recordTimelines, replay, type ReplayOptions, type ReplayResult } from '../replay.js';
import { locateControllerSource } from '../report/controller-source.js';
import { codeDigestOf } from '../report/code-digest.js';
import { defaultEnvironment } from '../defaults.js';
import { snapshotIntrinsics } from '../host/intrinsics.js';
import { sealHarness } from '../cli/seal-harness.js';

/** Options of `toPassCheck`: everything `check` takes, plus where reports go. @public */
export interface ToPassCheckOptions extends Omit<CheckOptions, 'corpus'> {
  /** Where a failing check writes its reports; `false` writes none. @defaultValue 'reports' */
  reportDir?: string | false;
  /** Replay the regression corpus (`<reportDir>/corpus`) first and save new failures to it. @defaultValue true */
  corpus?: CheckOptions['corpus'] | boolean;
}

/** The matchers this module adds. @public */
export interface SteadystateMatchers {
  /** Runs `check` on the received controller; fails with the explanation and the reports' paths. Await it. */
  toPassCheck(options?: ToPassCheckOptions): Promise<void>;
  /** The received `CheckResult` passed; otherwise fails with its explanation. */
  toHold(): void;
  /** Replays a reproduction file (path or parsed) on the received controller; passes once the property holds again. Await it. */
  toPassReproduction(reproduction: string | ReproductionFile, options?: ReplayOptions): Promise<void>;
}

declare module 'vitest' {
  // vitest 4: extending `Matchers` types expect(x).*, expect.not.* and expect.extend at once
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type, @typescript-eslint/no-explicit-any, @typescript-eslint/no-unused-vars
  interface Matchers<T = any> extends SteadystateMatchers {}
}

interface MatcherResult {
  pass: boolean;
  message: () => string;
}

function controllersOf(received: unknown, matcher: string): ControllerDefinition | ControllerDefinition[] {
  const ok = Array.isArray(received) ? received.length > 0 && received.every(isControllerDefinition) : isControllerDefinition(received);
  if (!ok) throw new TypeError(`steadystate/vitest: expect(x).${matcher}(): x must be a controller made by defineController (or a list of them), got ${describe(received)}.`);
  return received as ControllerDefinition | ControllerDefinition[];
}

function describe(v: unknown): string {
  if (v === undefined) return 'undefined';
  if (v === null) return 'null';
  if (typeof v === 'function') return `a function${v.name ? ` (${v.name})` : ''}`;
  if (typeof v === 'object') return Array.isArray(v) ? `an array of ${v.length}` : `an object with keys ${Object.keys(v).slice(0, 5).join(', ') || '(none)'}`;
  return JSON.stringify(v);
}

/** The failure message: the replay line first (STYLE 5), then why, then where the reports are. */
function failureMessage(result: Extract<CheckResult, { ok: false }>, written: WrittenReports | undefined): string {
  const m = written?.model;
  const file = written?.files.json;
  const lines: string[] = [];
  if (file && m && !m.ok) lines.push(`Replay: ${m.replay.vitest}${m.replay.command ? `  (or: ${m.replay.command})` : ''}`);
  else lines.push(`Replay: check(controller, { seed: ${result.seed}, path: ${JSON.stringify(result.path)} })`);
  lines.push(`${result.controller} fails ${result.property} (${failedAtText(result)}, seed ${result.seed}, path ${JSON.stringify(result.path)})`, result.summary, '', proofLayout(result.explanation));
  for (const n of m && !m.ok ? m.notes : resultNotes(result)) lines.push('', `Note: ${n}`);
  const files = written ? Object.values(written.files) : [];
  if (files.length) lines.push('', 'Reports:', ...files.map((f) => `  ${f}`));
  if (m && !m.ok && m.faultPlan.events.length) lines.push('', `${m.shrunk ? 'Minimal fault plan' : 'Fault plan (as found: not shrunk)'}: ${JSON.stringify(m.faultPlan.events)}`);
  if (m && !m.ok && file) {
    lines.push('', `Regression test (save as ${m.replay.regressionTest.path}; it fails while the bug is there, passes once it is fixed):`, '', ...m.replay.regressionTest.code.trimEnd().split('\n'));
    if (m.code.length > 0) lines.push('', `The replay needs the code the check ran with besides the controller: ${m.code.join('; ')}.`);
  }
  return lines.join('\n');
}

/** The built-ins when this module loaded (the setup file: before the test file's imports). */
const atSetup = snapshotIntrinsics();

/**
 * The built-ins tests mock on purpose (`vi.spyOn(Math, 'random')`, `vi.spyOn(Date, 'now')`;
 * `vi.useFakeTimers()` replaces the global `Date` and leaves these alone): steadystate never
 * computes a verdict with them (its clock is the wall clock saved at load, its draws come from the
 * seed, and fast-check draws a seed with the Math.random and Date.now it saved at its load). Every other
 * property of `Math` and `Date` is one: `Math.max` in the judges, `Date.parse` and
 * `Date.prototype.toISOString` in the store's timestamps (red team, stop 43).
 */
const MOCKABLE = new Set(['Math.random', 'Date.now']);
sealHarness(); // steadystate's own classes frozen before the test file's imports can patch one (red team rt42 F4)

/**
 * Throws when code loaded since the setup replaced a built-in the judges compute with (an
 * `Array.prototype.push` dropping failure records at import; red team N1, stop 41). Only
 * {@link MOCKABLE} is left to tests that mock it; added keys (polyfills) are fine.
 */
function assertIntactBuiltins(matcher: string): void {
  const replaced = atSetup.changed().filter((c) => !MOCKABLE.has(c) && (!c.endsWith(' (added)') || /\.(then|toJSON) \(added\)$/.test(c)));
  if (replaced.length > 0) {
    throw new Error(`steadystate: ${matcher} cannot judge here: code loaded after steadystate/vitest replaced built-ins the verdict is computed with (${replaced.join(', ')}). Keep helpers in your own functions; steadystate check runs a module in a worker and refuses such a module.`);
  }
}

/**
 * The running test's `context.signal` (vitest aborts it when the test times out or the run is
 * cancelled), read from the matcher state vitest gives matchers (`task`); undefined elsewhere.
 */
function testSignal(state: unknown): AbortSignal | undefined {
  const signal = (state as { task?: { context?: { signal?: unknown } } } | undefined)?.task?.context?.signal;
  return signal instanceof AbortSignal ? signal : undefined;
}

async function toPassCheck(this: unknown, received: unknown, options: ToPassCheckOptions = {}): Promise<MatcherResult> {
  assertIntactBuiltins('toPassCheck');
  // a test that times out must not leave its check running beside the next tests
  const signal = options.signal ?? testSignal(this);
  const target = controllersOf(received, 'toPassCheck');
  const { reportDir = 'reports', corpus = true, ...checkOptions } = options;
  const first = Array.isArray(target) ? target[0]! : target;
  const corpusRoot = reportDir === false ? undefined : `${reportDir}/corpus`;
  let corpusOption: CheckOptions['corpus'];
  if (corpus === true && corpusRoot !== undefined) {
    const loaded = loadCorpus(corpusRoot, first.name);
    corpusOption = {
      scenarios: loaded.scenarios,
      names: loaded.files,
      onFailure: (f) => {
        if (f.property !== 'determinism' && f.property !== 'fault-coverage') saveToCorpus(corpusRoot, { controller: f.controller, property: f.property, summary: f.summary, scenario: f.scenario });
      },
    };
  } else if (corpus !== false && corpus !== true) corpusOption = corpus;
  const result = await check(target, { ...checkOptions, ...(corpusOption ? { corpus: corpusOption } : {}), ...(signal ? { signal } : {}) });
  // a pass that judged nothing is no verdict (red team N7, N6, N8, N7b; the CLI exits 2)
  const nothing = result.ok ? judgedNothing(result) : undefined;
  if (result.ok && (result.properties.length === 0 || result.runs === 0 || (result.stats.reconciles === 0 && result.stats.storeWritesPerObject === 0) || nothing !== undefined)) {
    const why =
      result.properties.length === 0
        ? 'no property was judged (checkOptions.properties is empty)'
        : result.runs === 0
          ? 'no run completed (timeLimitMs?)'
          : result.stats.reconciles === 0 && result.stats.storeWritesPerObject === 0
            ? `no reconcile ran in ${result.runs} runs: no ${first.for} object ever reached the controller (check its \`for\` and checkOptions.objects.kind)`
            : nothing!;
    const fix = why === nothing ? '. Select properties that apply to the controller (leave options.properties out to judge the default properties), or give the runs what these properties judge (the reasons above)' : '';
    // neither a pass nor a failure: `.not.toPassCheck()` must not read it as the bug it expects
    throw new Error(`steadystate: ${result.controller} passed vacuously: ${why}, so the pass would say nothing${fix}`);
  }
  if (result.ok) {
    return { pass: true, message: () => `expected ${result.controller} to fail a property, but all ${result.properties.length} held over ${result.runs} runs (seed ${result.seed})` };
  }
  let written: WrittenReports | undefined;
  if (reportDir !== false) {
    const timelines = await recordTimelines(target, result.scenario, checkOptions, result.property);
    const located = locateControllerSource(first, process.cwd());
    // the code that failed, for toPassReproduction and replay to tell a fix from a controller that behaves differently when replayed
    const source = located && { ...located, codeDigest: codeDigestOf(resolve(process.cwd(), located.module)) };
    written = writeReports(result, { dir: reportDir, context: { objectTimelines: timelines.objects, converged: timelines.converged, source, builtInEnvironment: defaultEnvironment().map((a) => a.name) } });
  }
  return { pass: false, message: () => failureMessage(result, written) };
}

function toHold(received: unknown): MatcherResult {
  const r = received as CheckResult | null;
  if (r === null || typeof r !== 'object' || typeof r.ok !== 'boolean' || !('properties' in r)) {
    throw new TypeError(`steadystate/vitest: expect(x).toHold(): x must be the CheckResult that check() returned, got ${describe(received)}.`);
  }
  if (r.ok) return { pass: true, message: () => `expected ${r.controller} to fail a property, but all ${r.properties.length} held over ${r.runs} runs (seed ${r.seed})` };
  return { pass: false, message: () => failureMessage(r, undefined) };
}

async function toPassReproduction(received: unknown, reproduction: string | ReproductionFile, options: ReplayOptions = {}): Promise<MatcherResult> {
  assertIntactBuiltins('toPassReproduction');
  const target = controllersOf(received, 'toPassReproduction');
  let file: ReproductionFile;
  if (typeof reproduction === 'string') {
    let text: string;
    try {
      text = readFileSync(reproduction, 'utf8');
    } catch (err) {
      throw new TypeError(`steadystate/vitest: toPassReproduction(${JSON.stringify(reproduction)}): cannot read the file (${(err as { code?: string }).code ?? String(err)}); paths are relative to ${process.cwd()}.`);
    }
    try {
      file = parseReproductionFile(text, reproduction);
    } catch (err) {
      if (err instanceof ReproductionFileError) throw new TypeError(err.message);
      throw err;
    }
  } else file = reproduction;
  const r: ReplayResult = await replay(target, file, options);
  const trace = r.sameTrace ? `identical trace (hash ${r.hash})` : `trace differs from the recorded one (${r.expectedHash ?? '?'} → ${r.hash})`;
  if (r.ok) return { pass: true, message: () => `expected the reproduction to fail ${r.property} again, but it now holds (${trace}; every recorded input is the same, so the difference comes from the code)` };
  if (r.mismatches.length > 0) {
    // neither pass nor fail (`.not` must not turn it green either): the replay is not the check's run
    const given = file.controller.source?.checkOptions ? ` (the module's ${file.controller.source.checkOptions})` : '';
    throw new Error(
        [
          `steadystate: this replay of ${file.controller.name} does not run what the check ran, so it can neither pass nor fail (${trace}):`,
          ...r.mismatches.map((m) => `  - ${m}`),
          '',
          `Pass the options the check ran with${given}: await expect(${file.controller.source?.exportName && file.controller.source.exportName !== 'default' ? file.controller.source.exportName : 'controller'}).toPassReproduction(${JSON.stringify(typeof reproduction === 'string' ? reproduction : '<file>')}, checkOptions).`,
          ...(r.failure ? ['', `(With these inputs it fails ${r.property}: ${r.failure.summary})`] : []),
        ].join('\n'),
    );
  }
  if (r.nondeterminism) {
    // neither pass nor fail: runs of the scenario in this process disagree
    throw new Error([`steadystate: ${file.controller.name} passes this replay, but ${r.nondeterminism.summary} (${trace}):`, '', proofLayout(r.nondeterminism.explanation)].join('\n'));
  }
  return { pass: false, message: () => [`${file.controller.name} still fails ${r.property} on the reproduction (${trace})`, r.failure?.summary ?? '', '', proofLayout(r.failure?.explanation ?? '')].join('\n') };
}

const ours = { toPassCheck, toHold, toPassReproduction };
expect.extend(ours);

/** Where vitest installs matchers: what `expect(x).toPassCheck` calls. */
const assertion = (chai as unknown as { Assertion: { prototype: Record<string, unknown> } }).Assertion.prototype;
let installed = new Map(Object.keys(ours).map((name) => [name, assertion[name]]));

/**
 * Throws when a matcher of ours is no longer the one `expect` calls: code the test imports ran
 * `expect.extend({ toPassCheck: … })` and every check would pass (red team H7, stop 40). Puts
 * ours back first, so one such module fails the tests it ran in, not every later one. Run before
 * and after every test; a matcher is still only as trustworthy as the code the test file imports
 * (the CLI's gate runs checked code in a worker that cannot reach these).
 * @internal
 */
export function checkMatchers(): void {
  const replaced = [...installed].filter(([name, fn]) => assertion[name] !== fn).map(([name]) => name);
  if (replaced.length === 0) return;
  expect.extend(ours);
  installed = new Map(Object.keys(ours).map((name) => [name, assertion[name]]));
  throw new Error(
    `steadystate: the matcher${replaced.length > 1 ? 's' : ''} ${replaced.join(', ')} ${replaced.length > 1 ? 'were' : 'was'} replaced after steadystate/vitest registered ${replaced.length > 1 ? 'them' : 'it'} (an expect.extend in a module this test imports, or in the test): ${replaced.length > 1 ? 'their' : 'its'} verdicts in this test cannot be trusted. Remove the other registration; steadystate's matchers are back for the next test.`,
  );
}
beforeEach(checkMatchers);
afterEach(checkMatchers);

export type { ReproductionFile } from '../report/json.js';
export type { ReplayOptions } from '../replay.js';
