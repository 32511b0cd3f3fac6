import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { escapeTerminal } from '../../src/cli/terminal-text.js';
import { root, runCli, tempDir } from '../e2e/cli-helpers.js';

/**
 * Issue 17 item 17: names with a right-to-left override, NUL or terminal escapes are printed
 * escaped, in every line the CLI writes (and file names stay ASCII: safeFileName).
 */
const RLO = '\u202e';
const hostile: { what: string; raw: string; shown: string }[] = [
  { what: 'a right-to-left override', raw: `evil${RLO}txt.exe`, shown: 'evil\\u202etxt.exe' },
  { what: 'NUL', raw: 'a\u0000b', shown: 'a\\u0000b' },
  { what: 'a clear-screen escape', raw: 'x\u001b[2Jy', shown: 'x\\u001b[2Jy' },
  { what: 'a carriage return (overwrites the line)', raw: 'ok\rFAIL', shown: 'ok\\u000dFAIL' },
  { what: 'bidi isolates and marks', raw: `\u2066a\u2069\u200f`, shown: '\\u2066a\\u2069\\u200f' },
  { what: 'a C1 control', raw: 'a\u009bb', shown: 'a\\u009bb' },
];

describe('escapeTerminal', () => {
  for (const h of hostile) it(`escapes ${h.what}`, () => expect(escapeTerminal(h.raw)).toBe(h.shown));
  it('keeps newlines, tabs, colours (SGR) and ordinary Unicode', () => {
    const text = 'line 1\n\tÄ → 名前 ✓ \u001b[31mred\u001b[0m';
    expect(escapeTerminal(text)).toBe(text);
  });
});

describe('the CLI prints hostile names escaped', () => {
  it('a module path and an export name with a right-to-left override and NUL never reach the terminal raw', async () => {
    const dir = tempDir();
    const name = `ctl${RLO}gpj.ts`;
    mkdirSync(join(dir, 'src'));
    writeFileSync(join(dir, 'src', name), `export const a${'\u200f'} = 1;\n`);
    const r = await runCli(['check', `src/${name}`, '--controller', `x${RLO}y`], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).not.toMatch(/[\u0000\u202e\u200f]/);
    expect(r.stderr).toContain('ctl\\u202egpj.ts');
  });

  it('an error message with a right-to-left override and NUL in a verdict is escaped on stdout, as text and as --json', async () => {
    const dir = tempDir();
    writeFileSync(
      join(dir, 'throws.ts'),
      `import { defineController } from ${JSON.stringify(join(root, 'src/index.ts'))};\n` +
        "export const throws = defineController({ name: 'throws', for: 'Thing', sample: [{}], reconcile() { throw new Error('bad\\u202ename\\u0000!'); } });\n",
    );
    for (const extra of [[], ['--json']]) {
      const r = await runCli(['check', 'throws.ts', '--seed', '1', '--runs', '2', '--faults', 'event-loss', ...extra], { cwd: dir });
      expect(r.code, r.stderr).toBe(1);
      expect(r.stdout).toMatch(/bad\\u202ename/);
      expect(r.stdout + r.stderr).not.toMatch(/[\u0000\u202e]/);
      if (extra.length) expect(JSON.parse(r.stdout).explanation).toContain('bad\u202ename');
    }
  });
});
