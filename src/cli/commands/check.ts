import { rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { snapshotIntrinsics } from '../../host/intrinsics.js';
import { endModuleThreads } from '../../host/module-threads.js';
import type { CheckResult } from '../../harness/check-result.js';
import type { Story } from '../../harness/story.js';
import { shardSize } from '../../harness/shard.js';
import type { SystematicReport } from '../../harness/systematic.js';
import type { RecordedTimelines } from '../../replay.js';
import { codeDigestOf, type CodeDigest } from '../../report/code-digest.js';
import { saveToCorpus, snapshotCorpus, type CorpusSnapshot } from '../../report/corpus.js';
import { heldText, judgedNothing, passSummary } from '../../report/pass-summary.js';
import { systematicSummary } from '../../report/systematic-summary.js';
import { realTimersNote, type ControllerSource } from '../../report/result.js';
import { ensureWritableDir, ReportWriteError } from '../../report/write-atomic.js';
import type { WrittenReports } from '../../report/index.js';
import { SHARD_RESULT_FILE, writeShardResult } from '../shard-result.js';
import { rememberWritten } from '../written-files.js';
import type { CheckJob, TargetFacts, TargetSpec } from '../check-job.js';
import { openCheckTarget, type CheckTarget } from '../check-target.js';
import type { CliIo } from '../io.js';
import { portableSpec, programSpecOf, type ProgramSpec } from '../program-target.js';
import type { CheckCommandOptions } from '../options.js';
import { createProgress, noColor } from '../progress.js';
import { escapeTerminal, rawStream } from '../terminal-text.js';
import { UsageError } from '../usage-error.js';

/**
 * `steadystate check <module>`: loads the module, picks the controller, runs `check` (in this
 * thread or in worker threads), writes the reports and the regression corpus, and prints the
 * verdict. Returns the exit code: 0 when every property held, 1 when one failed.
 * @throws UsageError for anything the user has to fix first (exit 2)
 * @internal
 */
export async function checkCommand(o: CheckCommandOptions, io: CliIo): Promise<number> {
  // fail before a long run, not after it
  try {
    ensureWritableDir(o.reportDir);
  } catch (err) {
    if (err instanceof ReportWriteError) throw new UsageError(`steadystate check: --report-dir ${o.reportDir} cannot be written (${err.message.replace(/^.*?\(([^)]*)\).*$/, '$1')}). Pass a directory you can write to, e.g. --report-dir ./reports.`);
    throw err;
  }
  // a shard's result is written only when its check ends with a verdict: one left by an earlier
  // run must not be merged as this run's (a check that exits 2 writes none; red team N10)
  if (o.shard) rmSync(join(o.reportDir, SHARD_RESULT_FILE), { force: true });
  // a story file that cannot be used is refused before the module loads and the run starts
  const story = await storyOfFlags(o, io.cwd);
  const program = programSpecOf(o, io.cwd);
  const workers = o.workers ?? 1;
  const spec: TargetSpec = { cwd: io.cwd, ...(program ? { program } : { module: o.module! }), ...(o.controller !== undefined ? { controller: o.controller } : {}), ...(o.faults ? { faults: o.faults } : {}), ...(o.properties ? { properties: o.properties } : {}) };
  // the report writers load here while the worker loads the module
  void import('../../report/index.js').catch(() => undefined);
  // the code as it was before any of it ran (code that edits its own files must not pass for a fix)
  const entry = program ? program.entry : resolve(io.cwd, o.module!);
  const codeBefore = codeDigestOf(entry);
  // the regression corpus as it was before any of the module's code ran (red team H1, stop 43)
  const corpusSnapshot = snapshotCorpus(join(o.reportDir, 'corpus'));
  const target = await openCheckTarget(spec, { workers, watchdogMs: o.watchdog }, program ? `the program ${JSON.stringify(o.program)}` : JSON.stringify(o.module));
  try {
    return await checkTarget(o, io, target, story, program, () => codeAfterCheck(codeBefore, entry), corpusSnapshot);
  } finally {
    target.close();
  }
}

/** The check of a loaded target: plan, run, report. */
async function checkTarget(o: CheckCommandOptions, io: CliIo, target: CheckTarget, story: Story | undefined, program: ProgramSpec | undefined, codeDigest: () => CodeDigest | null, corpusSnapshot: CorpusSnapshot): Promise<number> {
  // the built-ins as the module left them at load (`--workers 0`): the verdict and the reports are written with these
  const intact = snapshotIntrinsics();
  const facts = target.facts;
  if (!facts.objects && facts.samples === 0 && story === undefined && !facts.story) {
    const add = program ? `Pass --sample '{...}' (a spec of ${facts.for}), or --story / --manifests` : `Add \`sample: [{ ... }]\` to defineController or export checkOptions (see the README)`;
    io.stderr.write(`steadystate check: note: ${facts.name} has no \`sample\` specs${program ? '' : ` and ${o.module ?? ''} exports no \`checkOptions.objects\``}, so objects of kind ${facts.for} are generated with an empty spec. ${add} to test realistic objects.\n`);
  }
  searchFlags(o, facts);
  const runsAsked = o.runs ?? facts.runs ?? 100;
  if (o.shard && o.search !== 'systematic' && shardSize(runsAsked, o.shard) === 0) {
    throw new UsageError(`steadystate check: --shard ${o.shard.index + 1}/${o.shard.count} of a check of ${runsAsked} runs has no run to make, and would pass having checked nothing. Use at most ${runsAsked} shards, or more --runs.`);
  }
  const seed = o.seed ?? facts.seed ?? randomSeed();
  // systematic plans are derived, not drawn: the corpus of drawn scenarios is for check's runs
  const replaysCorpus = o.search !== 'systematic' && (o.shard === undefined || o.shard.index === 0);
  const planned: CheckJob = {
    ...target.job,
    seed,
    ...(o.runs !== undefined ? { runs: o.runs } : {}),
    ...(o.faults !== undefined ? { faults: o.faults } : {}),
    ...(o.properties !== undefined ? { properties: o.properties } : {}),
    ...(o.settle !== undefined ? { settleMs: o.settle } : {}),
    ...(story !== undefined ? { story } : {}),
    ...(o.shard !== undefined ? { shard: o.shard } : {}),
    ...(o.search !== undefined ? { search: o.search } : {}),
    ...(o.timeLimit !== undefined ? { timeLimitMs: o.timeLimit } : {}),
    ...(o.shrinkTimeLimit !== undefined ? { shrinkTimeLimitMs: o.shrinkTimeLimit } : {}),
    corpusRoot: join(o.reportDir, 'corpus'),
    ...(replaysCorpus ? { corpusSnapshot } : {}),
  };
  const { job, skipped, misfits } = await target.plan(planned, replaysCorpus);
  for (const s of skipped) io.stderr.write(`steadystate check: skipped corpus file ${s.file}: ${s.reason}\n`);
  for (const m of misfits) io.stderr.write(`steadystate check: skipped corpus entry ${m.file}: ${m.reason}.\n`);
  const total = o.search === 'systematic' ? (o.runs ?? SYSTEMATIC_MAX_RUNS) : (job.corpus ?? []).length + shardSize(o.runs ?? facts.runs ?? 100, o.shard);
  // the bar writes cursor controls of its own: the raw stream, with the (user-named) label escaped
  const progress = createProgress({ total, label: escapeTerminal(`steadystate check ${facts.name}`), stream: rawStream(io.stderr), env: io.env });
  let ran: { result: CheckResult; timelines: RecordedTimelines };
  try {
    // user code runs in a worker by default: a reconcile looping synchronously (or on `await null`)
    // cannot be stopped in the thread it runs in, and must still end with a verdict
    ran = await target.run(job, (runs, failures, detail) => progress.update(runs, failures, detail));
  } finally {
    progress.stop();
  }
  // a process or a thread the checked code left running must not outlive the check and rewrite its reports or forge its verdict line
  io.endChildProcesses?.();
  await endModuleThreads();
  const { result, timelines } = ran;
  // a gate that judged no property passes vacuously: `checkOptions.properties: []`, or code under
  // test that emptied the list the worker judged with (a replaced array iterator, red team stop 40)
  // (a failure stands whatever the list says: a worker terminated while shrinking reports none; red team N9)
  if (result.ok && result.properties.length === 0) {
    io.stderr.write(`steadystate check: ${facts.name}: no property was judged, so its pass would say nothing. ${o.properties !== undefined ? 'Name at least one property with --properties' : 'Leave `properties` out of checkOptions (every default property is judged) or name at least one'}; a module that replaces the built-ins (Array.prototype[Symbol.iterator], …) at import cannot be checked.\n`);
    return 2;
  }
  const named: ControllerSource = program
    ? (() => {
        const portable = portableSpec(program, io.cwd);
        return { module: portable.entry, exportName: '', checkOptions: null, program: portable };
      })()
    : { module: facts.relativePath, exportName: facts.exportName, checkOptions: facts.hasCheckOptions ? 'checkOptions' : null };
  // a pass that checked nothing is not a pass (red team N6, N8): no completed run (a --time-limit
  // shorter than one run), or a controller that no object ever reached (a typo in `for` or in
  // checkOptions.objects.kind): no reconcile and no write (a hosted program has no reconciles; it
  // has program-acts)
  if (result.ok && result.runs === 0) {
    io.stderr.write(`steadystate check: ${facts.name}: no run completed${o.timeLimit !== undefined ? ` within --time-limit ${o.timeLimit} ms` : ''}, so a pass would say nothing. Give the check more time or fewer --runs.\n`);
    return 2;
  }
  if (result.ok && !program && result.stats.reconciles === 0 && result.stats.storeWritesPerObject === 0) {
    io.stderr.write(`steadystate check: ${facts.name}: no reconcile ran in ${result.runs} runs: no ${facts.for} object ever reached the controller, so every property held of a world it never touched. Check that defineController's \`for\` names the kind the samples and checkOptions.objects create (${facts.for}), and that the story or samples create some.\n`);
    return 2;
  }
  // a pass in which every selected property had nothing to judge in every run (recovery without a
  // revert, status-truthfulness without a claim of the controller's) says nothing (red team N7b);
  // one property that judged no run while others did is a note of the pass, not a failure
  const nothing = judgedNothing(result);
  if (nothing !== undefined) {
    const select = o.properties !== undefined ? 'leave --properties out to judge the default properties, or name ones that apply (e.g. --properties convergence,idempotence,no-hot-loop)' : 'leave `properties` out of checkOptions to judge the default properties, or name ones that apply';
    io.stderr.write(`steadystate check: ${facts.name} passed vacuously: ${nothing}, so its pass would say nothing about the controller. Select properties that apply to it: ${select}; or give the runs what these properties judge (the reasons above).\n`);
    return 2;
  }
  // what a replay compares to tell a fix from a controller that behaves differently when replayed:
  // only reproductions and shard results carry it (a pass writes neither)
  const source: ControllerSource = !result.ok || o.shard ? { ...named, codeDigest: codeDigest() } : named;
  const context = { source, objectTimelines: timelines.objects, converged: timelines.converged, builtInEnvironment: facts.builtInEnvironment };
  const replaced = intact.restore();
  if (replaced.length > 0) io.stderr.write(`steadystate check: the code under test replaced built-ins that steadystate computes its verdict and writes its reports with: ${replaced.join(', ')}. They are put back before the reports and the verdict are written (a replaced JSON.stringify would forge them). A controller must not patch built-ins: keep its helpers in its own functions.\n`);
  const { writeReports } = await import('../../report/index.js');
  const written = writeReports(result, { dir: o.reportDir, context });
  // a shard of a CI matrix leaves its whole result for `steadystate merge`
  const shardFile = o.shard ? writeShardResult(o.reportDir, result, context) : undefined;
  // a new failure joins the regression corpus here, in the CLI's thread after the checked code's
  // processes and threads ended, never in the thread that runs it: its timers could delete the
  // entry at once (red team H1c, stop 43). A nondeterministic failure would not replay.
  const corpusFile =
    !result.ok && o.search !== 'systematic' && result.fromCorpus === undefined && result.property !== 'determinism' && result.property !== 'fault-coverage'
      ? saveToCorpus(join(o.reportDir, 'corpus'), { controller: result.controller, property: result.property, summary: result.summary, scenario: result.scenario, ...(program !== undefined ? { program: program.entry } : {}) })
      : undefined;
  // put back at exit if a process of the checked code rewrites them before it is ended (red team F6, stop 43; the real CLI's exit only)
  if (io.endChildProcesses) rememberWritten([...Object.values(written.files), ...(shardFile !== undefined ? [shardFile] : []), ...(corpusFile !== undefined ? [corpusFile] : [])].map((f) => resolve(io.cwd, f)));
  if (o.json) io.stdout.write(`${JSON.stringify(jsonSummary(result, written), null, 2)}\n`);
  else io.stdout.write(humanSummary(result, written, io));
  return result.ok ? 0 : 1;
}

/**
 * The digest a reproduction records: the code as the check found it, marked when the code under
 * test changed its own files during the check (a replay then never reports a fix from a differing
 * trace: the code it loads is not the code that failed).
 */
function codeAfterCheck(before: CodeDigest | null, entry: string): CodeDigest | null {
  if (before === null) return null;
  const after = codeDigestOf(entry);
  return after?.sha256 === before.sha256 ? before : { ...before, changedDuringCheck: true };
}

/** checkSystematic's default cap on plans (the progress bar's total when --runs is not given). */
const SYSTEMATIC_MAX_RUNS = 5000;

/**
 * Flags that cannot go with the --search mode asked for. Guided search learns from each run in
 * order, so it cannot be dealt to several worker threads (each would keep a pool of its own and
 * the runs would not be those of one thread); systematic mode derives its plans from a fault-free
 * run of each object template, so it has no seed, shards, story or wall-clock budget to use.
 */
function searchFlags(o: CheckCommandOptions, facts: TargetFacts): void {
  const workers = o.workers ?? 1;
  if ((o.search ?? facts.search) === 'guided' && workers > 1) {
    const asked = o.search !== undefined ? '--search guided runs' : "the module's checkOptions ask for search: 'guided', which runs";
    throw new UsageError(`steadystate check: ${asked} in one worker thread: it learns from every run in order, so --workers ${workers} cannot split its runs. Leave --workers out (or pass --workers 1${o.search === undefined ? ', or --search swarm' : ''}), or split a large check with --shard over CI jobs.`);
  }
  if (o.search !== 'systematic') return;
  const refused: [boolean, string][] = [
    [workers > 1, `--workers ${workers} (its plans run in one worker thread)`],
    [o.shard !== undefined, '--shard (it derives every plan from one fault-free run; split with --faults instead)'],
    [o.story !== undefined || o.manifests !== undefined, '--story/--manifests (it derives plans from its own fault-free scenarios: create, change, revert and re-apply each object template)'],
    [o.timeLimit !== undefined, '--time-limit (cap it with --runs, the most plans to run)'],
    [o.seed !== undefined, '--seed (it draws nothing: the same module gives the same plans)'],
    [facts.story, "the module's checkOptions.story"],
  ];
  const bad = refused.filter(([is]) => is).map(([, what]) => what);
  if (bad.length > 0) throw new UsageError(`steadystate check: --search systematic cannot use ${bad.join('; ')}. Leave ${bad.length === 1 ? 'it' : 'them'} out.`);
}

/**
 * The story of --story and --manifests, read and validated before a long run: a file that
 * cannot be used is a usage error (exit 2) naming the file, the document or step, and the line.
 */
async function storyOfFlags(o: CheckCommandOptions, cwd: string): Promise<Story | undefined> {
  if (o.story === undefined && o.manifests === undefined) return undefined;
  // YAML and the story's validation load only for a check that has a story
  const [{ loadManifests, loadStory }, { resolveStory }] = await Promise.all([import('../../story/load-story.js'), import('../../harness/story.js')]);
  try {
    const told = o.story !== undefined ? loadStory(o.story, { cwd }) : {};
    const objects = o.manifests !== undefined ? loadManifests(o.manifests, { cwd }) : [];
    const story: Story = { ...told, objects: [...objects, ...(told.objects ?? [])] };
    resolveStory(story, `steadystate check: ${[o.story, ...(o.manifests ?? [])].filter((x) => x !== undefined).join(', ')}`, 'story');
    return story;
  } catch (err) {
    if (err instanceof TypeError && err.message.startsWith('steadystate')) throw new UsageError(err.message);
    throw err;
  }
}

function randomSeed(): number {
  // the CLI is the edge of the system: a fresh seed per check, printed so it can be repeated
  return Math.floor(Math.random() * 0x7fffffff);
}

function jsonSummary(result: CheckResult, written: WrittenReports): unknown {
  const common = { controller: result.controller, runs: result.runs, seed: result.seed, ...(result.cutShort ? { cutShort: result.cutShort } : {}), ...(written.model.corpusNote ? { corpusNote: written.model.corpusNote } : {}), properties: result.properties, ...(result.propertyRuns ? { propertyRuns: result.propertyRuns } : {}), faults: result.faults, stats: result.stats, coverage: result.coverage, corpusReplayed: result.corpusReplayed, ...(result.shard ? { shard: result.shard } : {}), reports: written.files };
  if (result.ok) return { ok: true, ...common };
  const m = written.model;
  return { ok: false, ...common, property: result.property, summary: result.summary, explanation: result.explanation, path: result.path, failedAtRun: result.failedAtRun, shrinks: result.shrinks, traceHash: result.run.hash, replay: m.ok ? null : m.replay.command };
}

/** The systematic search's account, when the check was one (`--search systematic`). */
function systematicLines(result: CheckResult): string[] {
  const r = (result as CheckResult & { systematic?: SystematicReport }).systematic;
  return r ? systematicSummary(r) : [];
}

function humanSummary(result: CheckResult, written: WrittenReports, io: CliIo): string {
  const color = io.stdout.isTTY === true && !noColor(io.env);
  const paint = (code: number, s: string): string => (color ? `\u001b[${code}m${s}\u001b[0m` : s);
  const files = Object.values(written.files);
  const lines: string[] = [];
  const shard = result.shard ? ` (shard ${result.shard.index + 1}/${result.shard.count})` : '';
  if (result.ok) {
    const runs = 'systematic' in result ? `${result.runs} systematic plans` : `${result.runs} runs${shard}, seed ${result.seed}`;
    lines.push(`${paint(32, 'PASS')} ${result.controller}: ${runs}; ${heldText(result)}`);
    lines.push(...passSummary(result).map((l) => `  ${l}`));
    lines.push(...systematicLines(result).map((l) => `  ${l}`));
    if (result.realTimers) lines.push(`  note: ${realTimersNote(result.realTimers)}`);
    if (files.length) lines.push(`  reports: ${files.join(', ')}`);
    return lines.join('\n') + '\n';
  }
  lines.push(`${paint(31, 'FAIL')} ${result.controller} fails ${result.property} (${written.model.ok ? `run ${result.failedAtRun}` : written.model.failedAt}${shard}${'systematic' in result ? '' : `, seed ${result.seed}`}${result.shrinks ? `, shrunk in ${result.shrinks} steps` : ''})`);
  lines.push(`  ${result.summary}`, '');
  const m = written.model;
  lines.push(...(m.ok ? result.explanation : m.explanation).split('\n').map((l) => `  ${l}`), '');
  if (!m.ok) for (const n of m.notes) lines.push(`  Note: ${n}`, '');
  const sys = systematicLines(result);
  if (sys.length) lines.push(...sys.map((l) => `  ${l}`), '');
  lines.push('Reports:');
  for (const f of files) lines.push(`  ${f}`);
  if (written.replaced) lines.push('  (each replaced the identical report of this same failure from an earlier run)');
  if (!m.ok && m.replay.command) lines.push('', `Replay: ${m.replay.command}`);
  return lines.join('\n') + '\n';
}
