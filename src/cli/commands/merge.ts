import { resolve } from 'node:path';
import { mergeCheckResults } from '../merge-results.js';
import type { CliIo } from '../io.js';
import type { MergeCommandOptions } from '../options.js';
import { readShardResults } from '../shard-result.js';
import { writeReports } from '../../report/index.js';
import { judgedNothing } from '../../report/pass-summary.js';
import { ensureWritableDir, ReportWriteError } from '../../report/write-atomic.js';
import { UsageError } from '../usage-error.js';

/**
 * `steadystate merge <shard-report-dir>…`: merges the shard results of one `--shard` check (a CI
 * matrix: one job per shard) into the result the unsharded check has (runs, coverage and stats
 * add up; the failure with the lowest run number wins), and writes one report and one JUnit file
 * for it. Returns 0 when every shard passed and every shard is there, 1 when one failed, 2 when
 * the merged pass judged nothing (no property judged any run of any shard).
 * @throws UsageError for inputs that are not the shards of one check (exit 2)
 * @internal
 */
export async function mergeCommand(o: MergeCommandOptions, io: CliIo): Promise<number> {
  const reportDir = resolve(io.cwd, o.reportDir);
  try {
    ensureWritableDir(reportDir);
  } catch (err) {
    if (err instanceof ReportWriteError) throw new UsageError(`steadystate merge: --report-dir ${o.reportDir} cannot be written. Pass a directory you can write to, e.g. --report-dir ./reports.`);
    throw err;
  }
  const files = readShardResults(o.shardReports, io.cwd);
  const count = files[0]!.result.shard!.count;
  const missing = [...Array(count).keys()].filter((i) => !files.some((f) => f.result.shard!.index === i)).map((i) => `${i + 1}/${count}`);
  const merged = mergeCheckResults(
    files.map((f) => f.result),
    undefined,
  );
  // the merged check judged what its shards judged: none of its properties any run is no pass (as for check)
  const nothing = judgedNothing(merged);
  if (nothing !== undefined) {
    io.stderr.write(`steadystate merge: ${merged.controller} passed vacuously over ${files.length} of ${count} shards: ${nothing}, so the merged pass would say nothing about the controller. Run the shards with properties that apply to it (leave --properties out to judge the default properties).\n`);
    return 2;
  }
  const failedShard = merged.ok ? undefined : files.find((f) => !f.result.ok && f.result.failedAtRun === merged.failedAtRun && f.result.property === merged.property);
  const written = writeReports(merged, { dir: reportDir, context: (failedShard ?? files[0]!).context });
  const paths = Object.values(written.files);
  if (o.json) {
    io.stdout.write(`${JSON.stringify({ ok: merged.ok && missing.length === 0, controller: merged.controller, seed: merged.seed, shards: files.length, of: count, missing, runs: merged.runs, ...(merged.ok ? {} : { property: merged.property, summary: merged.summary, failedAtRun: merged.failedAtRun }), reports: written.files }, null, 2)}\n`);
  } else {
    const head = merged.ok ? `PASS ${merged.controller}: ${merged.runs} runs over ${files.length} of ${count} shards, seed ${merged.seed}; every property held` : `FAIL ${merged.controller} fails ${merged.property} (run ${merged.failedAtRun}, in shard ${failedShard ? failedShard.result.shard!.index + 1 : '?'}/${count}; ${merged.runs} runs over ${files.length} shards, seed ${merged.seed})`;
    const lines = [head];
    if (!merged.ok) lines.push(`  ${merged.summary}`);
    if (missing.length) lines.push(`  missing shard${missing.length > 1 ? 's' : ''} ${missing.join(', ')}: the merged report covers only the shards given`);
    lines.push(`  reports: ${paths.join(', ')}`);
    io.stdout.write(`${lines.join('\n')}\n`);
  }
  if (missing.length && merged.ok) io.stderr.write(`steadystate merge: missing shard${missing.length > 1 ? 's' : ''} ${missing.join(', ')} of ${count}: a check is complete only with every shard; exiting 1.\n`);
  return merged.ok && missing.length === 0 ? 0 : 1;
}
