import { describe, it } from 'vitest';
import { expectUsageError, fixture, runCli } from '../e2e/cli-helpers.js';

/**
 * The attack list, bad command lines: each row must exit 2 with one paragraph naming the fix
 * (never a stack, never a run with a meaningless verdict). Adding an attack is adding a row.
 */
interface BadCommandLine {
  attack: string;
  args: string[];
  says: RegExp[];
}

const rows: BadCommandLine[] = [
  { attack: '--settle 0 (item 5)', args: ['check', fixture('level.ts'), '--settle', '0'], says: [/--settle 0 is too short to judge: the settle phase must be at least 3000 virtual ms, because/, /restartDelayMs/, /--settle 3000 or more/] },
  { attack: '--settle 1 (item 5)', args: ['check', fixture('level.ts'), '--settle', '1'], says: [/--settle 1 is too short to judge/] },
];

describe('bad command lines exit 2 with a message', () => {
  for (const r of rows) {
    it(r.attack, async () => {
      expectUsageError(await runCli(r.args), ...r.says);
    });
  }
});
