import { fileURLToPath } from 'node:url';

/**
 * Stack traces as reports show them: frames of steadystate's own guard and of Node's internals
 * dropped, the working directory and the per-incarnation module query removed (so the same code
 * gives the same text in every run and every process).
 * @internal
 */
export function cleanStack(stack: string | undefined): string | undefined {
  if (stack === undefined) return undefined;
  const cwd = process.cwd();
  const lines = stack.split('\n').filter((l) => !isNoise(l));
  return lines
    .map((l) => l.split(`file://${cwd}/`).join('').split(`${cwd}/`).join('').replace(/[?&]steadystate-incarnation=\d+/g, ''))
    .join('\n');
}

/** The first frame of a stack that is the user's code (`at fn (file:line:col)`), if any. @internal */
export function firstUserFrame(stack: string | undefined): string | undefined {
  const clean = cleanStack(stack);
  if (clean === undefined) return undefined;
  for (const l of clean.split('\n').slice(1)) {
    const t = l.trim();
    if (t.startsWith('at ') && !t.includes('node_modules/')) return t;
  }
  return undefined;
}

/** The stack of the caller of a patched global (the patch's own frames are noise). @internal */
export function stackHere(): string | undefined {
  return cleanStack(new Error('here').stack?.split('\n').slice(1).join('\n').replace(/^/, 'Error\n'));
}

/** This directory (the guard's own frames), as a path and as a file URL. */
const HOST_DIR = fileURLToPath(new URL('.', import.meta.url));
const HOST_URL = new URL('.', import.meta.url).href;

function isNoise(line: string): boolean {
  const t = line.trim();
  return t.startsWith('at ') && (t.includes('node:internal') || t.includes(HOST_DIR) || t.includes(HOST_URL));
}

export { describeThrown } from '../sim/thrown.js';
