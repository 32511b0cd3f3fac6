import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { CheckResult } from '../harness/check-result.js';
import type { ReportContext } from '../report/result.js';
import { version } from '../report/version.js';
import { writeAtomic } from '../report/write-atomic.js';
import { UsageError } from './usage-error.js';

/** The file a sharded check writes next to its reports, for `steadystate merge`. @internal */
export const SHARD_RESULT_FILE = 'shard-result.json';
const FORMAT = 'steadystate-shard-result';

/** What a shard result file holds: the shard's whole check result and the report context. @internal */
export interface ShardResultFile {
  format: typeof FORMAT;
  steadystate: string;
  result: CheckResult;
  context: Omit<ReportContext, 'reproductionPath'>;
}

/** Writes a shard's result (atomically) into its report directory. @internal */
export function writeShardResult(dir: string, result: CheckResult, context: Omit<ReportContext, 'reproductionPath'>): string {
  const path = join(dir, SHARD_RESULT_FILE);
  const file: ShardResultFile = { format: FORMAT, steadystate: version, result, context };
  writeAtomic(path, `${JSON.stringify(file)}\n`);
  return path;
}

/**
 * Reads the shard results of `inputs`: each a shard's report directory (holding
 * `shard-result.json`) or such a file. Every input must be one shard of the same check (same
 * controller, seed and shard count), each shard at most once.
 * @throws UsageError naming the input and the fix
 * @internal
 */
export function readShardResults(inputs: readonly string[], cwd: string): ShardResultFile[] {
  if (inputs.length === 0) throw new UsageError('steadystate merge: no shard reports given. Pass the report directories of the shards, e.g. steadystate merge reports/shard-*.');
  const files = inputs.map((input) => {
    const abs = resolve(cwd, input);
    let path = abs;
    try {
      if (statSync(abs).isDirectory()) path = join(abs, SHARD_RESULT_FILE);
    } catch {
      throw new UsageError(`steadystate merge: ${input} does not exist. Pass the report directory each shard wrote (its --report-dir), e.g. reports/shard-1.`);
    }
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch {
      const found = safeList(abs);
      throw new UsageError(`steadystate merge: ${input} holds no ${SHARD_RESULT_FILE}${found.length ? ` (it has ${found.slice(0, 5).join(', ')})` : ''}. Only a check run with --shard i/n writes it: run each shard with --shard and its own --report-dir.`);
    }
    let file: ShardResultFile;
    try {
      file = JSON.parse(text) as ShardResultFile;
    } catch (err) {
      throw new UsageError(`steadystate merge: ${input}: ${SHARD_RESULT_FILE} is not valid JSON (${err instanceof Error ? err.message : String(err)}); the file was cut short or edited. Run that shard again.`);
    }
    if (file?.format !== FORMAT || typeof file.result !== 'object' || file.result === null) throw new UsageError(`steadystate merge: ${input}: ${SHARD_RESULT_FILE} is not a shard result of steadystate check (no "format": "${FORMAT}").`);
    if (!file.result.shard) throw new UsageError(`steadystate merge: ${input} is the result of an unsharded check; merge only the shards of one check run with --shard i/n.`);
    return { input, file, dir: dirname(path) };
  });
  const first = files[0]!.file.result;
  const seen = new Map<number, string>();
  for (const { input, file } of files) {
    const r = file.result;
    if (r.controller !== first.controller || r.seed !== first.seed || r.shard!.count !== first.shard!.count)
      throw new UsageError(
        `steadystate merge: ${input} is shard ${r.shard!.index + 1}/${r.shard!.count} of a check of ${r.controller} with seed ${r.seed}, but ${files[0]!.input} is shard ${first.shard!.index + 1}/${first.shard!.count} of ${first.controller} with seed ${first.seed}. Merge the shards of one check: same controller, seed and shard count.`,
      );
    const dup = seen.get(r.shard!.index);
    if (dup !== undefined) throw new UsageError(`steadystate merge: ${input} and ${dup} are both shard ${r.shard!.index + 1}/${r.shard!.count}; give each shard once.`);
    seen.set(r.shard!.index, input);
  }
  consistent(files);
  return files.map((f) => f.file);
}

/**
 * What a merge can check of shard results it cannot trust blindly (code under test ran in the
 * shard's process and can write files; red team H6, stop 40): every shard ran the same code, the
 * shards that passed judged the same properties and faults, and no shard says it passed while its
 * directory holds a reproduction of a failure of that same check.
 * @throws UsageError naming the shard
 */
function consistent(files: readonly { input: string; file: ShardResultFile; dir: string }[]): void {
  const code = (f: ShardResultFile): string | undefined => f.context.source?.codeDigest?.sha256;
  const first = files[0]!;
  for (const { input, file } of files.slice(1)) {
    if (code(file) !== undefined && code(first.file) !== undefined && code(file) !== code(first.file)) {
      throw new UsageError(`steadystate merge: ${input} and ${first.input} ran different code (their code digests differ): the module or what it imports changed between the shard jobs. Run every shard of the check on the same commit.`);
    }
  }
  const passed = files.filter((f) => f.file.result.ok);
  const same = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && [...a].sort().join('\n') === [...b].sort().join('\n');
  for (const { input, file } of passed.slice(1)) {
    const ref = passed[0]!;
    if (!same(file.result.properties, ref.file.result.properties) || !same(file.result.faults, ref.file.result.faults)) {
      throw new UsageError(`steadystate merge: ${input} judged other properties or faults than ${ref.input} (${file.result.properties.join(', ')} / ${file.result.faults.join(', ')} against ${ref.file.result.properties.join(', ')} / ${ref.file.result.faults.join(', ')}). Run every shard with the same flags.`);
    }
  }
  for (const { input, file, dir } of passed) {
    const failure = failureIn(dir, file);
    if (failure !== undefined) {
      throw new UsageError(
        `steadystate merge: ${input} says shard ${file.result.shard!.index + 1}/${file.result.shard!.count} passed, but the same folder holds ${failure}, a reproduction of a failure of that check (same controller, seed and code). Its ${SHARD_RESULT_FILE} was rewritten after the check wrote it, or the folder mixes two runs: run that shard again into an empty --report-dir.`,
      );
    }
  }
}

/** A reproduction in `dir` of a failure of the check `file` is the result of (same controller and seed, and the same code when both record it). */
function failureIn(dir: string, file: ShardResultFile): string | undefined {
  const code = file.context.source?.codeDigest?.sha256;
  for (const name of safeList(dir)) {
    if (!name.endsWith('.json') || name === SHARD_RESULT_FILE) continue;
    let repro: { type?: unknown; seed?: unknown; controller?: { name?: unknown; source?: { codeDigest?: { sha256?: unknown } } | null } };
    try {
      repro = JSON.parse(readFileSync(join(dir, name), 'utf8')) as typeof repro;
    } catch {
      continue;
    }
    if (repro?.type !== 'steadystate/reproduction' || repro.controller?.name !== file.result.controller || repro.seed !== file.result.seed) continue;
    const theirs = repro.controller.source?.codeDigest?.sha256;
    if (code !== undefined && theirs !== undefined && theirs !== code) continue;
    return name;
  }
  return undefined;
}

function safeList(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
