import { cpSync, existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot, runCommand, userEnv } from './consumer-project.js';

/**
 * A fresh clone right after `npm ci` has no dist/ (nothing built it): `npx steadystate` must still
 * work (issue 15), from the TypeScript sources. The clone here is the repository's tracked code
 * copied without dist/, with the installed node_modules linked in place of `npm ci`.
 */
describe('a fresh clone without a build', () => {
  it('npx steadystate runs the CLI from the sources', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'steadystate-clone-'));
    try {
      for (const part of ['package.json', 'package-lock.json', 'tsconfig.json', 'bin', 'src', 'faults', 'properties', 'examples']) cpSync(join(repoRoot, part), join(dir, part), { recursive: true });
      symlinkSync(join(repoRoot, 'node_modules'), join(dir, 'node_modules'), 'dir');
      expect(existsSync(join(dir, 'dist'))).toBe(false);
      // a private npx cache: no earlier install of this package can answer for it
      const env = userEnv({ npm_config_cache: join(dir, '.npm-cache'), npm_config_yes: 'true' });
      const version = await runCommand('npx', ['steadystate', '--version'], { cwd: dir, env, timeoutMs: 120_000 });
      expect(version.code, version.output).toBe(0);
      expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
      const help = await runCommand('npx', ['steadystate', 'check', '--help'], { cwd: dir, env, timeoutMs: 120_000 });
      expect(help.code, help.output).toBe(0);
      expect(help.stdout).toContain('Usage: steadystate check <module>');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 240_000);
});
