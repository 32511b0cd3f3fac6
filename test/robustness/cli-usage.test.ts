import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectUsageError, fixture, root, runCliInProcess, tempDir } from '../e2e/cli-helpers.js';

/**
 * The attack list, bad command lines and hand-edited reproductions: each row must exit 2 with
 * one paragraph naming the fix (never a stack, never a run with a meaningless verdict). Adding
 * an attack is adding a row; `edit` rows replay a copy of a real reproduction, edited. The rows
 * are about what the command says, not its process: they run the CLI's code in this thread (a
 * child process per row was most of this file's time; e2e/cli-usage.test.ts runs the bin).
 */
interface BadCommandLine {
  attack: string;
  args: string[];
  says: RegExp[];
  /** Writes `edited.json`, the reproduction changed by this function, before running `args`. */
  edit?: (file: Record<string, any>) => unknown;
}

const rows: BadCommandLine[] = [
  { attack: '--settle 0 (item 5)', args: ['check', fixture('level.ts'), '--settle', '0'], says: [/--settle 0 is too short to judge: the settle phase must be at least 3000 virtual ms, because/, /restartDelayMs/, /--settle 3000 or more/] },
  { attack: '--settle 1 (item 5)', args: ['check', fixture('level.ts'), '--settle', '1'], says: [/--settle 1 is too short to judge/] },
  { attack: '--runs -1 (item 17)', args: ['check', fixture('level.ts'), '--runs', '-1'], says: [/--runs expects a whole number of runs between 1 and 10000000, got -1/] },
  { attack: '--shard above 2^53 (item 17)', args: ['check', fixture('level.ts'), '--shard', '9007199254740993/9007199254740994'], says: [/--shard expects "i\/n" with whole numbers up to 2\^53 − 1/] },
  { attack: 'replay: a fault kind no module provides (item 14)', args: ['replay', 'edited.json'], edit: (f) => void f.scenario.faults.events.push({ kind: 'no-such-fault', nth: 1 }), says: [/fault kind no-such-fault/] },
  { attack: 'replay: a controller renamed in the file (item 14)', args: ['replay', 'edited.json'], edit: (f) => void (f.scenario.controllers[0].name = 'renamed'), says: [/it names controller "renamed", which this replay does not run \(it runs "edge-triggered"\)/] },
  { attack: 'replay: --module whose controller was renamed (item 14)', args: ['replay', 'edited.json', '--module', 'renamed.ts'], edit: () => undefined, says: [/it names controller "edge-triggered", which this replay does not run \(it runs "level-triggered"\)/] },
  { attack: 'replay: an unknown environment actor (item 14)', args: ['replay', 'edited.json'], edit: (f) => void (f.scenario.environment = [{ name: 'no-such-actor' }]), says: [/environment actor no-such-actor/] },
  { attack: 'replay: a null object (item 14)', args: ['replay', 'edited.json'], edit: (f) => void f.scenario.initialObjects.push(null), says: [/scenario\.initialObjects\[0\] must be an object; got null/] },
  { attack: 'replay: a null workload action (item 14)', args: ['replay', 'edited.json'], edit: (f) => void f.scenario.workload.push(null), says: [/scenario\.workload\[\d+\] must be an object; got null/] },
  { attack: 'replay: the fault removed from the scenario (session 6; it replayed as "PASS … now satisfies convergence", exit 0)', args: ['replay', 'edited.json'], edit: (f) => void (f.scenario.faults = { events: [], background: [] }), says: [/the reproduction was edited after steadystate check wrote it: scenario\.faults is not what the check recorded/, /delete its "digests" field/] },
  { attack: 'replay: the property and the trace hash edited (session 6)', args: ['replay', 'edited.json'], edit: (f) => void Object.assign(f, { property: { name: 'no-hot-loop', options: null }, traceHash: 'deadbeef' }), says: [/edited after steadystate check wrote it: property, traceHash are not what the check recorded/] },
  { attack: 'replay: a stub file (item 17)', args: ['replay', 'edited.json'], edit: () => ({ type: 'steadystate/reproduction' }), says: [/edited\.json has no "steadystate" field \(the version that wrote it\): it is a stub or a truncated file/] },
];

let dir = '';
let reproduction = '';

beforeAll(async () => {
  dir = tempDir();
  // in this thread the default report folder would be this process's working directory's
  const r = await runCliInProcess(['check', fixture('edge.ts'), '--seed', '1', '--runs', '20', '--report-dir', join(dir, 'reports')], dir);
  const file = /Replay: npx steadystate replay (\S+)/.exec(r.stdout)?.[1];
  if (file === undefined) throw new Error(`no reproduction: ${r.stdout}${r.stderr}`);
  reproduction = readFileSync(resolve(dir, file), 'utf8');
  writeFileSync(join(dir, 'renamed.ts'), `export { levelTriggered as edgeTriggered } from ${JSON.stringify(join(root, 'examples/replicas/level-triggered.ts'))};\n`);
});

// one at a time: they share this thread, and interleaved each would wait on all the others
describe('bad command lines exit 2 with a message', () => {
  for (const r of rows) {
    it(r.attack, async () => {
      const cwd = tempDir();
      if (r.edit) {
        const f = JSON.parse(reproduction) as Record<string, any>;
        writeFileSync(join(cwd, 'edited.json'), JSON.stringify(r.edit(f) ?? f));
        writeFileSync(join(cwd, 'renamed.ts'), readFileSync(join(dir, 'renamed.ts')));
      }
      const run = await runCliInProcess(r.args, cwd);
      expectUsageError(run, ...r.says);
      expect(run.stderr).not.toMatch(/unexpected error|steadystate@undefined/);
    });
  }
});
