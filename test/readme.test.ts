import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it, vi } from 'vitest';
import '../src/vitest/index.js';
import { check } from '../src/check.js';
import type { CheckOptions } from '../src/harness/check-options.js';
import type { ControllerDefinition } from '../src/runtime/define-controller.js';
import { tutorialBugs, withBug } from '../examples/tutorial/bugs.js';
import { configRevisions } from '../examples/false-positives/config-revisions.js';
import type { Property } from '../src/harness/property.js';

/** The README's usage snippet is executed, so it cannot rot. */
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const tmp = join(root, 'test', '.tmp-readme');

function snippet(name: string, lang = 'ts'): string {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const m = readme.match(new RegExp(`<!-- snippet: ${name} -->\\s*\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``));
  if (!m) throw new Error(`README.md has no "<!-- snippet: ${name} -->" ${lang} block`);
  return m[1]!;
}

afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** A README diff block as the changes it makes: `-` lines become the `+` lines after them. */
function changesOf(diff: string): { from: string; to: string }[] {
  const lines = diff.trimEnd().split('\n');
  const out: { from: string; to: string }[] = [];
  for (let i = 0; i < lines.length; i += 2) out.push({ from: lines[i]!.slice(1), to: lines[i + 1]!.slice(1) });
  return out;
}

describe('README', () => {
  it('the usage snippet runs and prints what it says', async () => {
    mkdirSync(tmp, { recursive: true });
    const file = join(tmp, 'usage.ts');
    writeFileSync(file, snippet('usage'));
    const logs: unknown[][] = [];
    const spy = vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => void logs.push(args));
    try {
      await import(/* @vite-ignore */ file);
    } finally {
      spy.mockRestore();
    }
    expect(logs[0]![0]).toEqual({ replicas: 3, observedGeneration: 1 });
    expect(logs[1]![0]).toMatch(/^[0-9a-f]{8}$/);
  });

  it('the history snippet declares the revisions config-revisions keeps, and its properties pass it', async () => {
    mkdirSync(tmp, { recursive: true });
    const file = join(tmp, 'history.ts');
    writeFileSync(file, snippet('history'));
    const mod = (await import(/* @vite-ignore */ file)) as { properties: Property[] };
    expect(mod.properties.map((p) => p.name)).toEqual(['same-end-state', 'recovery', 'convergence']);
    const r = await check(configRevisions.controllers, { ...configRevisions.options, properties: mod.properties, runs: 60, seed: 2 });
    expect(r.ok).toBe(true);
  });

  it("the tutorial's controller is examples/tutorial/dns-record.ts, and its bugs are the ones the bench and this test use", () => {
    expect(snippet('tutorial-controller')).toBe(readFileSync(join(root, 'examples/tutorial/dns-record.ts'), 'utf8'));
    for (const bug of tutorialBugs) expect(changesOf(snippet(`tutorial-bug-${bug.name}`, 'diff')), bug.name).toEqual(bug.changes);
    expect(snippet('tutorial-test')).toContain('await expect(dnsRecords).toPassCheck({ ...checkOptions, runs: 200, seed: 1 });');
  });

  it('the tutorial controller passes its test, and each bug is caught by the property the README names', async () => {
    mkdirSync(tmp, { recursive: true });
    const source = snippet('tutorial-controller');
    const load = async (name: string, text: string): Promise<{ dnsRecords: ControllerDefinition; checkOptions: CheckOptions }> => {
      const file = join(tmp, `${name}.ts`);
      writeFileSync(file, text);
      return (await import(/* @vite-ignore */ file)) as { dnsRecords: ControllerDefinition; checkOptions: CheckOptions };
    };
    const good = await load('dns-record', source);
    // the tutorial-test snippet's call, reports left out
    await expect(good.dnsRecords).toPassCheck({ ...good.checkOptions, runs: 200, seed: 1, reportDir: false });
    for (const bug of tutorialBugs) {
      const m = await load(`dns-record-${bug.name}`, withBug(source, bug));
      const r = await check(m.dnsRecords, { ...m.checkOptions, runs: 100, seed: 1 });
      expect(r.ok ? '(passed)' : r.property, bug.name).toBe(bug.property);
      expect(readFileSync(join(root, 'README.md'), 'utf8')).toContain(`(\`${bug.property}\`)`);
    }
  }, 120_000);
});
