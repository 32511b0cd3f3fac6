import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { version } from '../../src/report/version.js';
import { expectUsageError, fixture, runCli, runCliInProcess, tempDir } from './cli-helpers.js';

/**
 * Every bad input gets exit code 2 and one paragraph on stderr saying what is wrong, where, and
 * how to fix it, and never a stack trace (SPEC §8, issue 5).
 */
/**
 * A valid reproduction file, from a real failing check: one check for the file (its tests only
 * read the reproduction and write files of their own beside it).
 */
let reproduction: Promise<{ dir: string; file: string; text: string }> | undefined;
function realReproduction(): Promise<{ dir: string; file: string; text: string }> {
  reproduction ??= (async () => {
    const dir = tempDir();
    const r = await runCli(['check', fixture('edge.ts'), '--seed', '1', '--runs', '20'], { cwd: dir });
    expect(r.code).toBe(1);
    const file = /Replay: npx steadystate replay (\S+)/.exec(r.stdout)?.[1];
    expect(file).toBeDefined();
    const { readFileSync } = await import('node:fs');
    return { dir, file: file!, text: readFileSync(join(dir, file!), 'utf8') };
  })();
  return reproduction;
}

/**
 * The CLI in this thread (same `run` as the bin, no child process), for command lines refused
 * before any module loads or any report folder is made: an unknown flag, value or command, and a
 * reproduction that cannot be read. What needs a process of its own (a module to load, a relative
 * --report-dir, the exit of the bare command) runs the bin.
 */
const parseOnly = (args: readonly string[], cwd: string = tempDir()) => runCliInProcess(args, cwd);

describe('steadystate usage errors (exit 2, one paragraph, no stack)', () => {
  it('names a missing module file, where it looked, and the fix', async () => {
    const dir = tempDir();
    expectUsageError(await runCli(['check', 'src/nope.ts'], { cwd: dir }), /cannot find the module "src\/nope\.ts"/, /relative to the current directory/);
  });

  it('refuses a module that exports no controller, listing what it exports', async () => {
    expectUsageError(await runCli(['check', fixture('no-controller.ts')]), /exports no controller/, /reconcile, replicas/, /defineController/);
  });

  it('asks which controller when a module exports two and --controller is missing, and names an unknown one', async () => {
    const [two, unknown] = await Promise.all([runCli(['check', fixture('replicas.ts')]), runCli(['check', fixture('replicas.ts'), '--controller', 'nope'])]);
    expectUsageError(two, /exports 2 controllers \(edgeTriggered \(name "edge-triggered"\), levelTriggered \(name "level-triggered"\)\)/, /--controller edgeTriggered/);
    expectUsageError(unknown, /--controller nope matches no controller/);
  });

  it('reports a module whose top level throws, without its stack', async () => {
    expectUsageError(await runCli(['check', fixture('throws-on-import.ts')]), /loading .* failed: database URL not configured/, /npx tsx/);
  });

  it('names unknown fault kinds and properties, with a likely typo', async () => {
    const [f, p] = await Promise.all([parseOnly(['check', fixture('edge.ts'), '--faults', 'evnt-loss,duplication']), parseOnly(['check', fixture('edge.ts'), '--properties', 'convergense'])]);
    expectUsageError(f, /--faults names unknown fault kind "evnt-loss" \(did you mean event-loss\?\)/, /Known fault kinds: .*event-loss/);
    expectUsageError(p, /--properties names unknown property "convergense" \(did you mean convergence\?\)/, /Known properties: /);
  });

  it('rejects malformed numbers', async () => {
    const runs = await Promise.all([
      parseOnly(['check', fixture('edge.ts'), '--runs', '1e3']),
      parseOnly(['check', fixture('edge.ts'), '--seed', '1.5']),
      parseOnly(['check', fixture('edge.ts'), '--workers', '65']),
      parseOnly(['check', fixture('edge.ts'), '--settle', '-5']),
      parseOnly(['check', fixture('edge.ts'), '--runs']),
    ]);
    expectUsageError(runs[0]!, /--runs expects a whole number of runs, got "1e3"/);
    expectUsageError(runs[1]!, /--seed expects a 32-bit integer seed, got "1\.5"/);
    expectUsageError(runs[2]!, /--workers expects a number of worker threads between 0 and 64, got 65/);
    expectUsageError(runs[3]!, /--settle/);
    expectUsageError(runs[4]!, /--runs needs a value/);
  });

  it('rejects a shard that does not exist', async () => {
    expectUsageError(await parseOnly(['check', fixture('edge.ts'), '--shard', '3/2']), /--shard expects "i\/n" with 1 ≤ i ≤ n/, /3\/2/);
  });

  it('rejects a report directory that cannot be written, before running anything', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'a-file'), 'not a directory');
    const r = await runCli(['check', fixture('edge.ts'), '--report-dir', 'a-file/reports'], { cwd: dir });
    expectUsageError(r, /--report-dir a-file\/reports cannot be written/, /--report-dir \.\/reports/);
  });

  it('suggests the closest command and option for typos', async () => {
    const [cmd, opt] = await Promise.all([parseOnly(['chek']), parseOnly(['check', fixture('edge.ts'), '--run', '5'])]);
    expectUsageError(cmd, /unknown command "chek" \(did you mean check\?\)/);
    expectUsageError(opt, /unknown option --run \(did you mean --runs\?\)/);
  });

  it('refuses an unreadable reproduction: missing, a directory', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'reports'));
    const [missing, isDir] = await Promise.all([parseOnly(['replay', 'reports/none.json'], dir), parseOnly(['replay', 'reports'], dir)]);
    expectUsageError(missing, /cannot read the reproduction "reports\/none\.json" \(no such file/);
    expectUsageError(isDir, /cannot read the reproduction "reports" \(it is a directory/);
  });

  it('refuses a malformed reproduction: not JSON, not a reproduction, a field missing', async () => {
    const { dir, text } = await realReproduction();
    writeFileSync(join(dir, 'garbage.json'), '{ "type": ');
    writeFileSync(join(dir, 'other.json'), JSON.stringify({ hello: 'world' }));
    const broken = JSON.parse(text) as Record<string, unknown>;
    delete (broken['scenario'] as Record<string, unknown>)['workload'];
    writeFileSync(join(dir, 'broken.json'), JSON.stringify(broken));
    const [a, b, c] = await Promise.all([parseOnly(['replay', 'garbage.json'], dir), parseOnly(['replay', 'other.json'], dir), parseOnly(['replay', 'broken.json'], dir)]);
    expectUsageError(a, /garbage\.json is not valid JSON/);
    expectUsageError(b, /other\.json is not a steadystate reproduction/);
    expectUsageError(c, /broken\.json: field scenario\.workload is required \(a list\)/);
  });

  it('refuses a reproduction written by another steadystate version, naming both and the fix', async () => {
    const { dir, text } = await realReproduction();
    writeFileSync(join(dir, 'old.json'), text.replace(`"steadystate": "${version}"`, '"steadystate": "0.0.9"'));
    expectUsageError(await parseOnly(['replay', 'old.json'], dir), /written by steadystate 0\.0\.9/, new RegExp(`this is steadystate ${version.replace(/\./g, '\\.')}`), /npx steadystate@0\.0\.9 replay old\.json/);
  });
});

describe('steadystate --help and --version', () => {
  it('prints help for the CLI and for each command, generated from the flag table', async () => {
    // the bin for the top-level help and the version; the per-command help in this thread
    const [top, check, replay, demo, version_] = await Promise.all([runCli(['--help']), parseOnly(['check', '--help']), parseOnly(['replay', '-h']), parseOnly(['help', 'demo']), runCli(['--version'])]);
    for (const r of [top, check, replay, demo, version_]) expect(r.code).toBe(0);
    expect(top.stdout).toMatch(/Commands:\n {2}check/);
    expect(top.stdout).toMatch(/Exit codes: 0 .*1 .*2 usage error/);
    for (const flag of ['--controller NAME', '--runs N', '--seed S', '--faults a,b', '--properties a,b', '--settle MS', '--report-dir DIR', '--shard i/n', '--workers N', '--json']) expect(check.stdout).toContain(flag);
    expect(replay.stdout).toContain('Usage: steadystate replay <report>');
    expect(demo.stdout).toContain('Usage: steadystate demo');
    expect(version_.stdout.trim()).toBe(version);
  });

  it('with no arguments prints the usage and exits 1, as git does', async () => {
    const r = await runCli([]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^steadystate .*\n\nUsage: steadystate <command> \[options\]/);
    expect(r.stdout).toMatch(/-r, --runs|Commands:/);
  });
});
