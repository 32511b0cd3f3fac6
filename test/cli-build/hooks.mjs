// Loader hooks of the test build's CLI (test/cli-build/global-setup.ts): an import of the
// engine's sources (src/, faults/, properties/ of the checkout, as the tests' fixtures and the
// modules they write import it) loads the build's JavaScript instead, the one copy the CLI runs,
// as a user's `import … from 'steadystate'` loads the installed package's build. Everything
// else resolves as before.
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

let repo = '';
let dist = '';
const ENGINE = ['src/', 'faults/', 'properties/'];

export function initialize(data) {
  repo = data.repo;
  dist = data.dist;
}

/** The build's file for an engine source's URL, or undefined. */
function toBuild(url) {
  if (!url.startsWith('file:')) return undefined;
  const path = fileURLToPath(url);
  if (!path.startsWith(repo)) return undefined;
  let rel = path.slice(repo.length);
  // `steadystate` by name from inside the checkout resolves through package.json exports to dist/
  if (rel.startsWith('dist/')) rel = rel.slice('dist/'.length);
  if (!ENGINE.some((d) => rel.startsWith(d))) return undefined;
  const target = dist + rel.replace(/\.(?:ts|js)$/, '.js');
  return existsSync(target) ? pathToFileURL(target).href : undefined;
}

export async function resolve(specifier, context, next) {
  if (/^(?:\.{1,2}\/|\/|file:)/.test(specifier) && context.parentURL !== undefined) {
    const url = toBuild(new URL(specifier, context.parentURL).href);
    if (url !== undefined) return { url, format: 'module', shortCircuit: true };
  }
  const resolved = await next(specifier, context);
  const url = toBuild(resolved.url);
  return url === undefined ? resolved : { url, format: 'module', shortCircuit: true };
}
