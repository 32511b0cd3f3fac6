import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runCli } from './e2e/cli-helpers.js';

/**
 * The README's "Testing a story" snippets run as written: the TypeScript story, the same story
 * from YAML files, and the CLI form each find the bug in the buggy controller with a shrunk story
 * and pass on its fixed twin. (Paths the snippets name relative to a project are mapped onto a
 * temp dir; the CLI's copy of the module imports steadystate from the sources.)
 */
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const tmp = join(root, 'test', '.tmp-readme-story');

function snippet(name: string, lang: string): string {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const m = readme.match(new RegExp(`<!-- snippet: ${name} -->\\s*\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``));
  if (!m) throw new Error(`README.md has no "<!-- snippet: ${name} -->" ${lang} block`);
  return m[1]!;
}

async function logsOf(file: string): Promise<unknown[][]> {
  const logs: unknown[][] = [];
  const spy = vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => void logs.push(args));
  try {
    await import(/* @vite-ignore */ file);
  } finally {
    spy.mockRestore();
  }
  return logs;
}

beforeAll(() => {
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(join(tmp, 'manifests'), { recursive: true });
  writeFileSync(join(tmp, 'replicas.ts'), snippet('story-module', 'ts'));
  writeFileSync(join(tmp, 'manifests', 'web.yaml'), snippet('story-manifest', 'yaml'));
  writeFileSync(join(tmp, 'story.yaml'), snippet('story-file', 'yaml'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('README: Testing a story', () => {
  it('the TypeScript story finds the bug with a shrunk story and passes the fixed twin', async () => {
    writeFileSync(join(tmp, 'story-ts.ts'), snippet('story-ts', 'ts'));
    const logs = await logsOf(join(tmp, 'story-ts.ts'));
    expect(logs[0]).toEqual([false, 'convergence']);
    const shrunk = logs[1]![0] as string[];
    expect(shrunk.length).toBeLessThan(3);
    // the snippet's comment says what it prints
    const comment = /console\.log\(buggy\.scenario\?\.workload[^\n]*\/\/ (\[[^\]]*\])/.exec(snippet('story-ts', 'ts'))![1]!;
    expect(shrunk).toEqual(JSON.parse(comment.replace(/'/g, '"')));
    expect(logs[2]).toEqual([true]);
  });

  it('the same story from YAML files does too', async () => {
    writeFileSync(join(tmp, 'story-yaml.ts'), snippet('story-yaml', 'ts').replace(/'story\.yaml'/g, JSON.stringify(join(tmp, 'story.yaml'))));
    const logs = await logsOf(join(tmp, 'story-yaml.ts'));
    expect(logs).toEqual([[false, 'convergence'], [true]]);
  });

  it('and the CLI form: exit 1 on the buggy controller (a shrunk story in the report), 0 on the fixed one, 0 with --manifests', async () => {
    const cli = join(tmp, 'cli');
    mkdirSync(join(cli, 'manifests'), { recursive: true });
    writeFileSync(join(cli, 'replicas.ts'), snippet('story-module', 'ts').replace("from 'steadystate'", `from ${JSON.stringify(join(root, 'src/index.ts'))}`));
    writeFileSync(join(cli, 'manifests', 'web.yaml'), snippet('story-manifest', 'yaml'));
    writeFileSync(join(cli, 'story.yaml'), snippet('story-file', 'yaml'));
    const commands = snippet('story-cli', 'sh')
      .split('\n')
      .filter((l) => l.startsWith('npx steadystate '))
      .map((l) => l.replace(/\s+#.*$/, '').replace(/^npx steadystate /, '').match(/'[^']*'|\S+/g)!.map((a) => a.replace(/^'|'$/g, '')));
    expect(commands).toHaveLength(3);
    const [buggy, fixed, manifests] = await Promise.all(commands.map((args) => runCli([...args, '--runs', '30'], { cwd: cli })));
    expect(buggy!.code, buggy!.stderr).toBe(1);
    expect(buggy!.stdout).toMatch(/FAIL replicas-edge fails convergence/);
    const report = /Replay: npx steadystate replay (\S+)/.exec(buggy!.stdout)![1]!;
    const file = JSON.parse(readFileSync(join(cli, report), 'utf8')) as { scenario: { workload: unknown[]; initialObjects: { metadata: { name: string } }[] }; originalScenario: { workload: unknown[] } };
    expect(file.scenario.workload.length).toBeLessThan(file.originalScenario.workload.length);
    expect(file.scenario.initialObjects.map((o) => o.metadata.name)).toEqual(['web']);
    expect(fixed!.code, fixed!.stdout + fixed!.stderr).toBe(0);
    expect(manifests!.code, manifests!.stdout + manifests!.stderr).toBe(0);
  });
});
