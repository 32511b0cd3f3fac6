import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * Enforces the module boundaries of STYLE.md by scanning import specifiers, and the ban on
 * hidden time and randomness inside a run.
 */
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

function files(dir: string): string[] {
  const abs = join(root, dir);
  let out: string[] = [];
  for (const name of readdirSync(abs)) {
    const p = join(abs, name);
    if (statSync(p).isDirectory()) out = out.concat(files(relative(root, p)));
    else if (name.endsWith('.ts')) out.push(relative(root, p));
  }
  return out;
}

function imports(file: string): string[] {
  const text = readFileSync(join(root, file), 'utf8');
  const out: string[] = [];
  for (const m of text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]/g)) out.push(m[1]!);
  for (const m of text.matchAll(/import\(\s*['"]([^'"]+)['"]\s*\)/g)) out.push(m[1]!);
  return out;
}

/** Project-relative folder an import lands in (e.g. 'src/store'), or undefined for packages. */
function target(file: string, spec: string): string | undefined {
  if (!spec.startsWith('.')) return undefined;
  return relative(root, resolve(root, dirname(file), spec));
}

function violations(dir: string, allowed: (targetPath: string, file: string) => boolean): string[] {
  const bad: string[] = [];
  for (const f of files(dir)) {
    for (const spec of imports(f)) {
      const t = target(f, spec);
      if (t !== undefined && !allowed(t, f)) bad.push(`${f} imports ${spec}`);
    }
  }
  return bad;
}

const under = (t: string, ...dirs: string[]) => dirs.some((d) => t === d || t.startsWith(`${d}/`));

describe('module boundaries', () => {
  it('src/sim imports nothing else from the project', () => {
    expect(violations('src/sim', (t) => under(t, 'src/sim'))).toEqual([]);
  });

  it('src/store knows only sim and itself (it does not know the runtime exists)', () => {
    expect(violations('src/store', (t) => under(t, 'src/sim', 'src/store'))).toEqual([]);
  });

  it('src/runtime builds on sim and store only (plus the downstream decision types)', () => {
    expect(violations('src/runtime', (t) => under(t, 'src/sim', 'src/store', 'src/runtime', 'src/downstream/fetch-decision.js'))).toEqual([]);
  });

  it('only the composition roots under src/ import faults/ and properties/', () => {
    const roots = (f: string) => f === 'src/defaults.ts' || f === 'src/index.ts' || f.startsWith('src/cli/');
    expect(violations('src', (t, f) => roots(f) || !under(t, 'faults', 'properties'))).toEqual([]);
  });

  it('faults/ and properties/ never import the CLI, reports or each other', () => {
    expect(violations('faults', (t) => !under(t, 'src/cli', 'src/report', 'properties'))).toEqual([]);
    expect(violations('properties', (t) => !under(t, 'src/cli', 'faults') && (!under(t, 'src/report') || t === 'src/report/explain.js'))).toEqual([]);
  });
});

describe('no hidden time or randomness inside a run', () => {
  const banned = /\b(Date\.now|Math\.random|setTimeout|setInterval|performance\.now)\s*\(|new Date\(\s*\)/;
  for (const dir of ['src/sim', 'src/store', 'src/runtime', 'src/harness', 'faults', 'properties']) {
    it(`${dir} never reads wall-clock time, real timers or Math.random`, () => {
      const bad: string[] = [];
      for (const f of files(dir)) {
        const lines = readFileSync(join(root, f), 'utf8').split('\n');
        lines.forEach((line, i) => {
          // strip comments and string literals: explanations may name Math.random() in words
          const code = line
            .replace(/'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|`(?:[^`\\]|\\.)*`/g, "''")
            .replace(/\/\/.*$/, '')
            .replace(/^\s*\*.*$/, '');
          if (banned.test(code)) bad.push(`${f}:${i + 1}: ${line.trim()}`);
        });
      }
      expect(bad).toEqual([]);
    });
  }
});

describe('node: built-ins stay at the edges', () => {
  it('only downstream, kube-rest, host, report, story (manifest and story files), cli, vitest code and the host probe import node:*', () => {
    const bad: string[] = [];
    for (const f of files('src')) {
      // host-probe.ts: the composition root's watch on the host's randomness, clocks and files
      if (under(f, 'src/downstream', 'src/kube-rest', 'src/host', 'src/report', 'src/story', 'src/cli', 'src/vitest') || f === 'src/host-probe.ts') continue;
      for (const spec of imports(f)) if (spec.startsWith('node:')) bad.push(`${f} imports ${spec}`);
    }
    expect(bad).toEqual([]);
  });
});

describe('world-sized lists are never spread into a call', () => {
  // push(...list) and Math.max(...list) pass every element as an argument: past ~10^5 elements
  // (objects of one kind) that overflows the stack with a RangeError (issue 17 item 15)
  it('the simulation core, faults and properties use loops, not push(...) / Math.max(...) / Math.min(...)', () => {
    const bad: string[] = [];
    for (const dir of ['src/sim', 'src/store', 'src/runtime', 'src/harness', 'src/environment', 'src/downstream', 'src/kube-rest', 'faults', 'properties']) {
      for (const f of files(dir)) {
        const text = readFileSync(join(root, f), 'utf8');
        text.split('\n').forEach((line, i) => {
          if (/\.(push|unshift)\(\.\.\.|Math\.(max|min)\(\.\.\./.test(line)) bad.push(`${f}:${i + 1}: ${line.trim()}`);
        });
      }
    }
    expect(bad).toEqual([]);
  });
});

describe('the scanner itself', () => {
  it('finds the imports of a known file (so the rules above cannot pass vacuously)', () => {
    const found = imports('src/harness/simulate.ts').map((s) => target('src/harness/simulate.ts', s));
    expect(found).toContain('src/runtime/manager.js');
    expect(files('src/sim').length).toBeGreaterThan(4);
  });
});
