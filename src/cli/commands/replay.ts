import { readFileSync, statSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { parseReproductionFile, ReproductionFileError, type ReproductionFile } from '../../report/json.js';
import { replayCode, type ReplayResult } from '../../replay.js';
import { codeDigestOf, sameCodeAs, type ReplayedCode } from '../../report/code-digest.js';
import { endModuleThreads } from '../../host/module-threads.js';
import { proofLayout, type ControllerSource } from '../../report/result.js';
import { programCheckOptions, programController } from '../program-controller.js';
import type { ProgramSpec } from '../program-target.js';
import { moduleCheckOptions } from '../check-job.js';
import type { CliIo } from '../io.js';
import { loadModule, pickController } from '../load-module.js';
import type { ReplayCommandOptions } from '../options.js';
import { noColor } from '../progress.js';
import { UsageError } from '../usage-error.js';
import { simulateInWorker } from '../worker-pool.js';

/**
 * `steadystate replay <report.json>`: reruns a reproduction's minimal scenario with the same
 * controller, checks the trace is byte-identical (same hash), and judges the failed property
 * again. Exit 1 while it still fails, 0 once it holds (the bug is fixed).
 * @throws UsageError for a missing, unreadable, malformed or other-version file, or a module
 * that cannot be found
 * @internal
 */
export async function replayCommand(o: ReplayCommandOptions, io: CliIo): Promise<number> {
  const file = readReproduction(o.report, io.cwd);
  const program = o.module === undefined ? (file.controller.source as ControllerSource | null)?.program : undefined;
  if (program !== undefined) {
    // never import a program outside a run: its top level is the operator starting
    if (file.property.name === 'watchdog' || file.property.name === 'fault-coverage') {
      throw new UsageError(`steadystate replay: ${o.report} records a ${file.property.name} verdict of the program ${program.entry}, which replay cannot rerun on its own. Run steadystate check --program ${program.entry} --for ${program.for} again with --seed ${file.seed}.`);
    }
    return replayProgram(o, io, file, program);
  }
  const moduleName = o.module ?? file.controller.source?.module;
  if (moduleName === undefined) {
    throw new UsageError(`steadystate replay: ${o.report} does not say which module holds controller "${file.controller.name}" (it was written from a test, not by steadystate check). Pass it: steadystate replay ${o.report} --module path/to/controller.ts.`);
  }
  // the code before any of it runs: what it does at import cannot change the digest compared
  const modulePath = resolve(io.cwd, moduleName);
  const digest = codeDigestOf(modulePath);
  const mod = await loadModule(moduleName, io.cwd, 'replay');
  const exportName = o.module === undefined ? file.controller.source?.exportName : undefined;
  const byExport = exportName !== undefined ? mod.controllers.find((c) => c.exportName === exportName) : undefined;
  const picked = byExport ?? pickController(mod, moduleName, mod.controllers.some((c) => c.controller.name === file.controller.name) ? file.controller.name : undefined, 'replay');
  const base = moduleCheckOptions(mod.exports, moduleName);

  if (file.property.name === 'fault-coverage') {
    throw new UsageError(`steadystate replay: ${o.report} records a fault-coverage failure, which is a verdict on a whole check (some fault kind never fired), not on one scenario. Run steadystate check again with the same --seed ${file.seed}.`);
  }
  if (file.property.name === 'watchdog') {
    const r = await simulateInWorker(mod.path, picked.exportName, file.scenario, o.watchdog);
    const stillHangs = r.hung;
    // as for any property: no hang now is a fix only on code the user changed (red team F5, stop 43)
    io.endChildProcesses?.();
    await endModuleThreads();
    const same = sameCodeAs(file.controller.source as ControllerSource | null, { path: modulePath, cwd: io.cwd, exportName: picked.exportName, digest });
    const unconfirmed = stillHangs
      ? undefined
      : same === true
        ? 'the scenario ran to the end this time, but the code is unchanged since the check, so this is no fix: the same code hung there. Run steadystate check again.'
        : o.fixed !== true
          ? `the scenario no longer hangs, but ${same === null ? 'the reproduction records no digest of the code the check ran' : 'the code differs from the code the check ran'}. That is a fix only if you changed the code: pass --fixed to say so (exit 0).`
          : undefined;
    const ok = !stillHangs && unconfirmed === undefined;
    if (o.json) io.stdout.write(`${JSON.stringify({ ok, property: 'watchdog', hung: r.hung, codeChanged: same !== true, ...(unconfirmed !== undefined ? { unconfirmed } : {}), ...(r.hung ? { stalledMs: r.stalledMs } : { hash: r.hash }) }, null, 2)}\n`);
    else if (stillHangs) io.stdout.write(`${label(io, false)} the scenario still hangs: no simulation progress for ${(r.stalledMs / 1000).toFixed(1)} s of wall time; the worker was terminated.\n\n${indent(file.explanation)}\n`);
    else if (unconfirmed !== undefined) io.stdout.write(`${label(io, false)} ${unconfirmed}\n`);
    else io.stdout.write(`${label(io, true)} the scenario no longer hangs: it ran to the end (trace ${r.hash}). Run steadystate check again to judge it.\n`);
    return ok ? 0 : 1;
  }

  let replayed: ReplayResult;
  const code: ReplayedCode = { path: modulePath, cwd: io.cwd, exportName: picked.exportName, digest };
  try {
    replayed = await replayCode(picked.controller, file, base, code);
  } catch (err) {
    if (err instanceof TypeError && err.message.startsWith('steadystate')) throw new UsageError(err.message);
    throw err;
  }
  // threads the replayed code started end before the verdict is written (red team H5, stop 43)
  await endModuleThreads();
  const result = gatedPass(replayed, o, io, file, code);
  if (o.json) {
    io.stdout.write(`${JSON.stringify(jsonOf(result), null, 2)}\n`);
    return result.ok ? 0 : 1;
  }
  const lines: string[] = [];
  lines.push(
    result.sameTrace
      ? `Replayed ${o.report}: identical trace (hash ${result.hash}).`
      : result.mismatches.length > 0 || result.nondeterminism
        ? `Replayed ${o.report}: the trace differs (recorded ${result.expectedHash ?? '?'}, now ${result.hash}).`
        : `Replayed ${o.report}: the trace differs (recorded ${result.expectedHash ?? '?'}, now ${result.hash}); every recorded input is the same, so the code changed since the report was written${file.digests === undefined ? ' (or the file, which carries no digests to tell)' : ''}.`,
  );
  if (result.mismatches.length > 0) {
    const src = file.controller.source;
    const from = src?.checkOptions ? `; the check took them from the export ${src.checkOptions} of ${src.module}` : '';
    lines.push(`${label(io, false)} this replay does not run what the check ran, so it cannot pass:`, ...result.mismatches.map((m) => `  - ${m}`), `Export the options the check ran with as checkOptions from ${moduleName}${from}. replay loads them itself.`);
    if (result.failure) lines.push('', `With these inputs ${picked.controller.name} fails ${result.property}: ${result.failure.summary}`);
  } else if (result.nondeterminism) {
    lines.push(`${label(io, false)} ${picked.controller.name} passes this replay, but ${result.nondeterminism.summary}:`, '', indent(proofLayout(result.nondeterminism.explanation)));
  } else if (result.failure) {
    lines.push(`${label(io, false)} ${picked.controller.name} still fails ${result.property}: ${result.failure.summary}`, '', indent(proofLayout(result.failure.explanation)));
  } else if (result.unconfirmed) {
    lines.push(`${label(io, false)} ${picked.controller.name} ${result.unconfirmed}`);
  } else {
    lines.push(`${label(io, true)} ${picked.controller.name} now satisfies ${result.property} on this scenario${!result.codeChanged ? '' : ' (on code you changed since the check: --fixed)'}.`);
  }
  io.stdout.write(`${lines.join('\n')}\n`);
  return result.ok ? 0 : 1;
}

/** A reproduction of a program checked with --program: hosted again from its recorded spec. */
async function replayProgram(o: ReplayCommandOptions, io: CliIo, file: ReproductionFile, spec: ProgramSpec): Promise<number> {
  const entry = resolve(io.cwd, spec.entry);
  const code: ReplayedCode = { path: entry, cwd: io.cwd, exportName: '', digest: codeDigestOf(entry) };
  const controller = programController(spec, io.cwd);
  // the fake services of its --service flags, rebuilt from the recorded spec
  const replayed = await replayCode(controller, file, programCheckOptions(spec, `the services ${o.report} records`), code);
  await endModuleThreads();
  const result = gatedPass(replayed, o, io, file, code);
  if (result.mismatches.length > 0 && !o.json) {
    io.stdout.write(`${label(io, false)} this replay does not run what the check ran, so it cannot pass:\n${result.mismatches.map((m) => `  - ${m}`).join('\n')}\nThe program's check options are only its --service flags (recorded in controller.source.program.services); run steadystate check --program ${spec.entry} again to get a fresh reproduction.\n`);
    return 1;
  }
  if (o.json) {
    io.stdout.write(`${JSON.stringify(jsonOf(result), null, 2)}\n`);
    return result.ok ? 0 : 1;
  }
  const head = result.sameTrace ? `Replayed ${o.report}: identical trace (hash ${result.hash}).` : `Replayed ${o.report}: the trace differs (recorded ${result.expectedHash ?? '?'}, now ${result.hash}).`;
  const verdict = result.nondeterminism
    ? `${label(io, false)} ${controller.name} passes this replay, but ${result.nondeterminism.summary}:\n\n${indent(proofLayout(result.nondeterminism.explanation))}`
    : result.failure
      ? `${label(io, false)} ${controller.name} still fails ${result.property}: ${result.failure.summary}\n\n${indent(proofLayout(result.failure.explanation))}`
      : result.unconfirmed
        ? `${label(io, false)} ${controller.name} ${result.unconfirmed}`
        : `${label(io, true)} ${controller.name} now satisfies ${result.property} on this scenario${!result.codeChanged ? '' : ' (on code you changed since the check: --fixed)'}.`;
  io.stdout.write(`${head}\n${verdict}\n`);
  return result.ok ? 0 : 1;
}

/** A replay's result as the command judges it: a pass on other code than the check's needs `--fixed`. */
type GatedResult = ReplayResult & {
  /** Why a pass does not count (the sentence after the controller's name), or undefined. */
  unconfirmed?: string;
  /** The code this replay ran differs from the digest the reproduction recorded (or that has none). */
  codeChanged: boolean;
};

/**
 * A pass counts only on the code the check ran, or on code the user says they changed
 * (`--fixed`). Code under test can rewrite its own files (from a process that outlived the check,
 * or from an earlier replay), so "the digest changed" alone does not prove a fix: a module that
 * behaves only when it is replayed would pass (red team F5, stop 43). And code that rewrote its
 * files during this very replay never passes, flag or not.
 * @param code - the module (or program entry) replayed, with its digest taken before it loaded
 */
function gatedPass(result: ReplayResult, o: ReplayCommandOptions, io: CliIo, file: ReproductionFile, code: ReplayedCode): GatedResult {
  // a process the replayed code started must not go on rewriting its files
  io.endChildProcesses?.();
  const before = code.digest;
  const after = codeDigestOf(code.path);
  const same = sameCodeAs(file.controller.source as ControllerSource | null, code);
  const codeChanged = same !== true;
  if (!result.ok) return { ...result, codeChanged };
  if (before !== null && after?.sha256 !== before.sha256) {
    return {
      ...result,
      ok: false,
      codeChanged,
      unconfirmed: `passes this replay, but its code changed its own files while it was replayed (the digest of ${code.path} before the replay is not the digest after it), so this pass proves nothing, and the next replay would run code the check never ran. Stop it from writing its files, restore them, and run steadystate check again.`,
    };
  }
  if (codeChanged && o.fixed !== true) {
    const why = same === null ? 'the reproduction records no digest of the code the check ran' : 'the code differs from the code the check ran (its digest changed since the check)';
    return {
      ...result,
      ok: false,
      codeChanged,
      unconfirmed: `now satisfies ${result.property} on this scenario, but ${why}. That is a fix only if you changed the code: pass --fixed to say so (exit 0). Without it this replay exits 1, since code under test can rewrite its own files (from a process that outlived the check, or in an earlier replay) and then behave only when it is replayed.`,
    };
  }
  return { ...result, codeChanged };
}

function jsonOf(result: GatedResult): unknown {
  return { ok: result.ok, property: result.property, sameTrace: result.sameTrace, sameCode: result.sameCode, codeChanged: result.codeChanged, ...(result.unconfirmed !== undefined ? { unconfirmed: result.unconfirmed } : {}), hash: result.hash, expectedHash: result.expectedHash, mismatches: result.mismatches, nondeterminism: result.nondeterminism, failure: result.failure };
}

function label(io: CliIo, ok: boolean): string {
  const color = io.stdout.isTTY === true && !noColor(io.env);
  const text = ok ? 'PASS' : 'FAIL';
  return color ? `\u001b[${ok ? 32 : 31}m${text}\u001b[0m` : text;
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((l) => `  ${l}`)
    .join('\n');
}

/** Reads and validates a reproduction file; every problem is a usage error naming the file. */
function readReproduction(path: string, cwd: string): ReproductionFile {
  const abs = isAbsolute(path) ? path : resolve(cwd, path);
  let text: string;
  try {
    if (statSync(abs).isDirectory()) throw Object.assign(new Error('is a directory'), { code: 'EISDIR' });
    text = readFileSync(abs, 'utf8');
  } catch (err) {
    const code = (err as { code?: string }).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : code === 'EACCES' || code === 'EPERM' ? 'permission denied' : err instanceof Error ? err.message : String(err);
    throw new UsageError(`steadystate replay: cannot read the reproduction ${JSON.stringify(path)} (${why}; looked at ${abs}). Pass the .json file that steadystate check wrote under its report directory (reports/ by default).`);
  }
  try {
    return parseReproductionFile(text, path);
  } catch (err) {
    if (err instanceof ReproductionFileError) throw new UsageError(err.message);
    throw err;
  }
}
