import type { CliIo } from '../io.js';
import type { DemoCommandOptions } from '../options.js';
import { UsageError } from '../usage-error.js';

/** The part of examples/demo.ts the command uses. */
interface DemoModule {
  runDemo(options: { trials?: number; zooRuns?: number; reportDir?: string; print?: (line: string) => void }): Promise<number>;
}

/**
 * `steadystate demo`: runs the bundled examples (examples/demo.ts), the same code as
 * `npm run demo`. Exit 0 when every outcome was as expected.
 * @internal
 */
export async function demoCommand(o: DemoCommandOptions, io: CliIo): Promise<number> {
  // examples/ sits beside src/ (sources) or beside dist/src/ (a build): one level up from src either way
  const here = import.meta.url;
  const url = new URL(`../../../examples/demo.${here.endsWith('.ts') ? 'ts' : 'js'}`, here);
  let demo: DemoModule;
  try {
    demo = (await import(url.href)) as DemoModule;
  } catch (err) {
    throw new UsageError(`steadystate demo: the bundled examples could not be loaded from ${url.pathname} (${err instanceof Error ? err.message.split('\n')[0] : String(err)}). Reinstall steadystate, or run the demo from a checkout with npm run demo.`);
  }
  const unexpected = await demo.runDemo({ ...(o.trials !== undefined ? { trials: o.trials } : {}), ...(o.zooRuns !== undefined ? { zooRuns: o.zooRuns } : {}), reportDir: o.reportDir, print: (line) => io.stdout.write(`${line}\n`) });
  return unexpected === 0 ? 0 : 1;
}
