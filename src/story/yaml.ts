import { createRequire } from 'node:module';
import type * as Yaml from 'yaml';

let loaded: typeof Yaml | undefined;

/**
 * The `yaml` package, loaded at its first use: only stories and applied manifests read YAML, and
 * its 72 files cost every process that loads steadystate (the CLI loads it twice, in its main
 * thread and in the worker) whether or not it ever reads any. Its Node entry is CommonJS either
 * way, so `require` gives the same instance an `import` would.
 * @internal
 */
export function yaml(): typeof Yaml {
  return (loaded ??= createRequire(import.meta.url)('yaml') as typeof Yaml);
}
