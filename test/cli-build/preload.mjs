// `node --import` of the test build's CLI (test/cli-build/global-setup.ts). It registers
// hooks.mjs just before the first other loader hook (tsx's, when the CLI is about to load a
// user's module), so that hooks.mjs sits below tsx, which resolves a fixture's `../src/index.js`
// to the .ts file before it gets there. Registered at start, it would put every module of the
// engine through node's loader thread too (+0.4 s of CPU per thread, half of what the build saves).
import module from 'node:module';
import { readFileSync } from 'node:fs';
import threads from 'node:worker_threads';

const original = module.register;
let registered = false;
module.register = function register(...args) {
  if (!registered) {
    registered = true;
    const data = JSON.parse(readFileSync(new URL('./paths.json', import.meta.url), 'utf8'));
    original.call(module, './hooks.mjs', import.meta.url, { data });
  }
  return original.apply(module, args);
};

// node runs no --import in a worker thread started from code (`eval: true`), as the CLI starts
// its workers: such a worker imports this file first (node 20's loader hooks are the process's,
// but tsx registers them from the worker)
const Worker = threads.Worker;
threads.Worker = class extends Worker {
  constructor(code, options) {
    super(options?.eval === true && typeof code === 'string' ? `import(${JSON.stringify(import.meta.url)}).then(() => {\n${code}\n});` : code, options);
  }
};

// `import { register } from 'node:module'` (and Worker) bind the exports as they are now
module.syncBuiltinESMExports();
