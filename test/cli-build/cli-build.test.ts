import { existsSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { hashOf, inputs } from './global-setup.js';

/** The CLI build the end-to-end tests start (test/cli-build/global-setup.ts) is never stale. */
describe('the test build of the CLI', () => {
  it('is named by a hash of every input as they are now, so a run never starts an older build', () => {
    const build = inject('cliBuild');
    const files = inputs();
    for (const f of ['src/index.ts', 'src/cli/bin.ts', 'faults/index.ts', 'properties/index.ts', 'bin/steadystate.js', 'package.json', 'tsconfig.build.json', 'test/cli-build/preload.mjs', 'test/cli-build/hooks.mjs']) expect(files).toContain(f);
    expect(basename(build.dir)).toBe(hashOf(files));
    expect(existsSync(build.bin) && existsSync(join(build.dir, 'dist/src/cli/bin.js'))).toBe(true);
  });

  it('changes name when any input changes, in content or in name', () => {
    const files = ['src/a.ts', 'src/b.ts'];
    const text = (f: string) => `export const x = ${JSON.stringify(f)};\n`;
    const base = hashOf(files, text);
    expect(hashOf(files, (f) => (f === 'src/b.ts' ? `${text(f)} ` : text(f)))).not.toBe(base);
    expect(hashOf(['src/a.ts', 'src/c.ts'], text)).not.toBe(base);
    expect(hashOf(files, text)).toBe(base);
  });

  it('is laid out as the published package: the bin runs dist/ (there is no src/ beside it)', () => {
    const build = inject('cliBuild');
    expect(existsSync(join(build.dir, 'src'))).toBe(false);
    expect(readFileSync(build.bin, 'utf8')).toBe(readFileSync(join(build.dir, '../../../bin/steadystate.js'), 'utf8'));
  });
});
