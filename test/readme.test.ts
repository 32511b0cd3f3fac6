import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it, vi } from 'vitest';

/** The README's usage snippet is executed, so it cannot rot. */
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const tmp = join(root, 'test', '.tmp-readme');

function snippet(name: string): string {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const m = readme.match(new RegExp(`<!-- snippet: ${name} -->\\s*\`\`\`ts\\n([\\s\\S]*?)\`\`\``));
  if (!m) throw new Error(`README.md has no "<!-- snippet: ${name} -->" ts block`);
  return m[1]!;
}

afterAll(() => rmSync(tmp, { recursive: true, force: true }));

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
});
