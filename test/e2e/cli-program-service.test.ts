import { cpSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Scenario } from '../../src/harness/scenario.js';
import { loadCorpus, saveToCorpus } from '../../src/report/corpus.js';
import { expectUsageError, fixture, runCli, runCliInProcess, tempDir, type CliRun } from './cli-helpers.js';

/**
 * `steadystate check --program FILE --service URL`: a program that calls an external REST API
 * with the global fetch gets a fake service for it from the command line (B4), and a failure's
 * reproduction rebuilds that service on replay. And the regression corpus of two programs that
 * share a name (both `main`) keeps their scenarios apart (M1).
 */
const correct = fixture('backup-store/main.ts');
// also named main: the default name of a program is its file's
const leakyProgram = fixture('backup-store/leaky/main.ts');
const STORE = 'https://backup-store.example.com';
const backups = ['--for', 'Backup', '--resource', 'Backup=backups.example.com/v1', '--sample', '{"target":"db-1"}'];
const service = ['--service', `${STORE},idempotency-key=Idempotency-Key`];
const fast = ['--workers', '0'];
// the leaky program's store DELETE must fail (a 5xx) for the leak: seed 1 meets it at run 5
const leakRun = ['--faults', 'flaky-downstream', '--runs', '20', '--seed', '1'];

/**
 * The leaky program's failing check, run once for the two tests that start from it (the slowest
 * command of this file): each gets its own copy of the folder it ran in, so neither sees what the
 * other ran there. The copy is a temp dir as deep as the original: the corpus entry names the
 * program relative to its folder.
 */
let leaky: Promise<{ dir: string; r: CliRun }> | undefined;
async function leakyCheck(): Promise<{ dir: string; r: CliRun }> {
  leaky ??= (async () => {
    const dir = tempDir();
    return { dir, r: await runCli(['check', '--program', leakyProgram, ...backups, ...service, ...leakRun, ...fast], { cwd: dir, timeoutMs: 180_000 }) };
  })();
  const { dir, r } = await leaky;
  const copy = tempDir();
  cpSync(dir, copy, { recursive: true });
  return { dir: copy, r };
}

describe('steadystate check --program --service', () => {
  it('fails isolation without the service, naming the flag that adds it (exit 1)', async () => {
    const r = await runCli(['check', '--program', correct, ...backups, '--runs', '3', '--seed', '1', ...fast], { timeoutMs: 120_000 });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toMatch(/FAIL main fails isolation/);
    expect(r.stdout).toMatch(/GET https:\/\/backup-store\.example\.com\/healthz/);
    expect(r.stdout).toContain(`for steadystate check --program, pass --service ${STORE}`);
  });

  it('passes with a fake service for the store (exit 0)', async () => {
    const r = await runCli(['check', '--program', correct, ...backups, ...service, '--runs', '8', '--seed', '1', ...fast], { timeoutMs: 120_000 });
    expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(0);
    expect(r.stdout).toMatch(/PASS main: 8 runs, seed 1/);
    expect(r.stdout).toMatch(/peak downstream \d+ req\/s/);
  });

  it('records the services in the reproduction, and replay rebuilds them (identical trace)', async () => {
    const { dir, r } = await leakyCheck();
    expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(1);
    expect(r.stdout).toMatch(/FAIL main fails deletion-completes/);
    expect(r.stdout).toMatch(/leaked external resource: backup-store\.example\.com\/backups\/\d+/);
    const report = readdirSync(join(dir, 'reports')).find((f) => f.endsWith('.json'))!;
    const file = JSON.parse(readFileSync(join(dir, 'reports', report), 'utf8')) as { controller: { source: { program: { services: unknown } } }; inputs: { downstream: { services: { baseUrl: string; idempotencyKeyHeader: string | null }[] } }; code: string[] };
    expect(file.controller.source.program.services).toEqual([{ baseUrl: STORE, idempotencyKeyHeader: 'Idempotency-Key' }]);
    expect(file.inputs.downstream.services).toMatchObject([{ baseUrl: STORE, idempotencyKeyHeader: 'Idempotency-Key' }]);
    // data the spec carries, not code the replay must be given
    expect(file.code).toEqual([]);
    // the regression test builds the same service for the matcher
    const md = readFileSync(join(dir, 'reports', report.replace(/\.json$/, '.md')), 'utf8');
    expect(md).toContain(`import { defineProgram, fakeRestService } from 'steadystate';`);
    expect(md).toContain(`const checkOptions = { downstream: () => ({ services: [fakeRestService({"baseUrl":"${STORE}","idempotencyKeyHeader":"Idempotency-Key"})] }) };`);
    expect(md).toMatch(/toPassReproduction\("reports\/[^"]+\.json", checkOptions\)/);
    expect(md).not.toMatch(/defineProgram\(\{[^\n]*"services"/);

    const again = await runCli(['replay', join('reports', report)], { cwd: dir, timeoutMs: 120_000 });
    expect(again.code, `${again.stdout}\n${again.stderr}`).toBe(1);
    expect(again.stdout).toMatch(/identical trace/);
    expect(again.stdout).toMatch(/FAIL main still fails deletion-completes: leaked external resource/);
    expect(again.stdout).not.toMatch(/does not run what the check ran/);
  });

  // what the command line says, not the process: the CLI's code in this thread (no child process per case)
  it('refuses a malformed --service as a usage error naming the fix (exit 2)', async () => {
    const usage = (args: readonly string[]) => runCliInProcess(args, tempDir());
    expectUsageError(await usage(['check', '--program', correct, ...backups, '--service', 'backup-store']), /--service expects URL\[,option=value…\]/, /e\.g\. --service https:\/\/backup-store\.example\.com,idempotency-key=Idempotency-Key/);
    expectUsageError(await usage(['check', '--program', correct, ...backups, '--service', `${STORE},idempotency=Idempotency-Key`]), /unknown option "idempotency" \(did you mean idempotency-key\?\)/);
    expectUsageError(await usage(['check', '--program', correct, ...backups, '--service', `${STORE},latency=fast`]), /latency=fast must be the virtual milliseconds/);
    expectUsageError(await usage(['check', '--program', correct, ...backups, '--service', STORE, '--service', `${STORE}/`]), /two --service flags name the base URL https:\/\/backup-store\.example\.com/);
    expectUsageError(await usage(['check', 'src/controller.ts', '--service', STORE]), /--service goes with --program FILE/, /checkOptions/);
  });
});

describe('the regression corpus of two programs named main (M1)', () => {
  it("replays a program's corpus entries for that program only, with a note for the other's", async () => {
    const { dir, r: saved } = await leakyCheck();
    expect(saved.code, `${saved.stdout}\n${saved.stderr}`).toBe(1);
    const entries = readdirSync(join(dir, 'reports/corpus/main'));
    expect(entries).toHaveLength(1);
    const entry = JSON.parse(readFileSync(join(dir, 'reports/corpus/main', entries[0]!), 'utf8')) as { program: string };
    expect(entry.program).toMatch(/backup-store\/leaky\/main\.ts$/);

    // the other main: the leaky one's scenario is not its own
    const other = await runCli(['check', '--program', correct, ...backups, ...service, '--runs', '3', '--seed', '2', ...fast], { cwd: dir, timeoutMs: 120_000 });
    expect(other.code, `${other.stdout}\n${other.stderr}`).toBe(0);
    expect(other.stderr).toMatch(/skipped corpus file reports\/corpus\/main\/deletion-completes-[0-9a-f]{8}\.json: saved by \S*backup-store\/leaky\/main\.ts, another program named "main", not by \S*backup-store\/main\.ts; give the two distinct --name values/);
    expect(other.stdout).not.toMatch(/regression corpus entr/);

    // the same program replays it first, and it still fails there
    const same = await runCli(['check', '--program', leakyProgram, ...backups, ...service, '--runs', '3', '--seed', '2', ...fast], { cwd: dir, timeoutMs: 180_000 });
    expect(same.code, `${same.stdout}\n${same.stderr}`).toBe(1);
    expect(same.stdout).toMatch(/FAIL main fails deletion-completes \(corpus entry 1 of 1/);
    expect(same.stderr).not.toMatch(/skipped corpus file/);
  });

  it('keeps module controllers as they were: their entries name no program and load as before', () => {
    const root = join(mkdtempSync(join(tmpdir(), 'steadystate-corpus-')), 'corpus');
    const scenario: Scenario = { seed: 1, controllers: [{ name: 'main' }], initialObjects: [], workload: [], faults: { events: [], background: [] } };
    const moduleEntry = saveToCorpus(root, { controller: 'main', property: 'convergence', summary: 's', scenario });
    expect(JSON.parse(readFileSync(moduleEntry, 'utf8'))).not.toHaveProperty('program');
    const programEntry = saveToCorpus(root, { controller: 'main', property: 'idempotence', summary: 's', scenario, program: join(root, '../a/main.ts') });
    expect(JSON.parse(readFileSync(programEntry, 'utf8'))).toMatchObject({ program: '../a/main.ts' });
    // without the option (the library, the vitest matchers): every entry of the name
    expect(loadCorpus(root, 'main').files).toEqual([moduleEntry, programEntry]);
    // a module's controller (the CLI): not a program's entries
    const forModule = loadCorpus(root, 'main', { program: null });
    expect(forModule.files).toEqual([moduleEntry]);
    expect(forModule.skipped).toEqual([{ file: programEntry, reason: expect.stringMatching(/^saved by the program \S*a\/main\.ts, which has this controller's name/) as unknown as string }]);
    // the program a/main.ts: its own entry only; b/main.ts: none
    expect(loadCorpus(root, 'main', { program: join(root, '../a/main.ts') }).files).toEqual([programEntry]);
    const b = loadCorpus(root, 'main', { program: join(root, '../b/main.ts') });
    expect(b.files).toEqual([]);
    expect(b.skipped.map((s) => s.reason)).toEqual([expect.stringMatching(/names no program/), expect.stringMatching(/another program named "main"/)]);
  });
});
