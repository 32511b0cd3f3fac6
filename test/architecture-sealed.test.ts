import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SEALED_CLASSES, sealHarness } from '../src/cli/seal-harness.js';

/**
 * Red team rt42 F4: code under test patched a steadystate class's prototype at import
 * (`ObjectStore.prototype.record`) and hid the controller's writes. src/cli/seal-harness.ts freezes
 * every exported class before the checked code loads; a class added later and not listed there
 * would be patchable again. This test lists every `export class` in src/, properties/ and faults/
 * and asserts each one is sealed. (It does not call sealHarness: this file shares its module graph
 * with other test files.)
 */
const root = resolve(__dirname, '..');

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...sources(path));
    else if (/\.tsx?$/.test(name) && !/\.(test|d)\.tsx?$/.test(name)) out.push(path);
  }
  return out;
}

const classes = ['src', 'properties', 'faults'].flatMap((d) =>
  sources(join(root, d)).flatMap((file) => [...readFileSync(file, 'utf8').matchAll(/^export (?:default )?(?:abstract )?class (\w+)/gm)].map((m) => ({ file, name: m[1]! }))),
);

describe('every class steadystate exports is sealed before the checked code loads', () => {
  it('finds the classes (the scan works)', () => {
    expect(classes.map((c) => c.name)).toContain('ObjectStore');
    expect(classes.length).toBeGreaterThan(40);
  });

  it('each `export class` of src/, properties/ and faults/ is in seal-harness.ts SEALED_CLASSES', async () => {
    const missing: string[] = [];
    for (const { file, name } of classes) {
      const mod = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
      if (!SEALED_CLASSES.includes(mod[name] as (typeof SEALED_CLASSES)[number])) missing.push(`${name} (${relative(root, file)})`);
    }
    expect(missing, 'add these to SEALED_CLASSES in src/cli/seal-harness.ts').toEqual([]);
    expect(SEALED_CLASSES).toHaveLength(classes.length);
  });

  it('sealHarness freezes each listed class: its prototype and its constructor', () => {
    const frozen: object[] = [];
    const freeze = Object.freeze;
    Object.freeze = ((o: object) => (frozen.push(o), o)) as typeof Object.freeze;
    try {
      sealHarness();
    } finally {
      Object.freeze = freeze;
    }
    // identity only (a deep comparison would run the prototypes' getters)
    expect(SEALED_CLASSES.filter((C) => !frozen.includes(C.prototype) || !frozen.includes(C)).map((C) => C.name)).toEqual([]);
  });
});
