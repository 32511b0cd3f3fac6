import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * A fresh project outside the repository that installs the packed package from npm's registry,
 * the way a user's controller project does. Shared by test/e2e/package.test.ts and
 * bench/startup.ts.
 */

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * What the consumer installs besides steadystate: the versions this repository tests with (its
 * lockfile), so a CI machine that just ran `npm ci` has them all in npm's cache.
 */
export const consumerDevDependencies = ['vitest@4.1.12', 'vite@8.3.8', 'typescript@5.9.3', '@types/node@20.19.43'] as const;

export interface CommandResult {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Both streams, in arrival order. */
  output: string;
  ms: number;
}

/**
 * The environment of a user's shell: no vitest worker variables (the CLI would think it runs
 * under vitest) and none of the variables npm sets for the repository's own scripts.
 */
export function userEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (k.startsWith('VITEST') || k.startsWith('npm_package_') || k.startsWith('npm_lifecycle_') || k === 'npm_config_local_prefix' || k === 'INIT_CWD' || k === 'NODE_OPTIONS') continue;
    env[k] = v;
  }
  return { ...env, CI: 'true', NO_COLOR: '1', FORCE_COLOR: '0', ...extra };
}

/** Runs a command to completion (never through a shell), with a wall-clock limit. */
export function runCommand(cmd: string, args: readonly string[], options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number }): Promise<CommandResult> {
  const timeoutMs = options.timeoutMs ?? 180_000;
  const t0 = performance.now();
  return new Promise((resolvePromise, reject) => {
    const child = spawn(cmd, args, { cwd: options.cwd, env: options.env ?? userEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let output = '';
    child.stdout.on('data', (d: Buffer) => ((stdout += d.toString()), (output += d.toString())));
    child.stderr.on('data', (d: Buffer) => ((stderr += d.toString()), (output += d.toString())));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${cmd} ${args.join(' ')} (in ${options.cwd}) did not finish within ${timeoutMs} ms\n${output}`));
    }, timeoutMs);
    child.on('error', (err) => (clearTimeout(timer), reject(err)));
    child.on('close', (code) => {
      clearTimeout(timer);
      resolvePromise({ code, stdout, stderr, output, ms: performance.now() - t0 });
    });
  });
}

/** Thrown when npm cannot reach its registry: the caller skips, saying so. */
export class RegistryUnavailable extends Error {}

const NETWORK = /\b(ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH|EHOSTUNREACH|ERR_SOCKET_TIMEOUT|UNABLE_TO_GET_ISSUER_CERT|SELF_SIGNED_CERT)\b|network request .* failed|request to https?:\/\/\S+ failed/i;

/**
 * `npm pack` of the repository into `dest` (its `prepack` builds dist/ first), exactly what
 * `npm publish` would upload.
 * @returns the tarball's absolute path
 */
export async function packPackage(dest: string): Promise<string> {
  mkdirSync(dest, { recursive: true });
  const r = await runCommand('npm', ['pack', '--pack-destination', dest], { cwd: repoRoot, timeoutMs: 300_000 });
  if (r.code !== 0) throw new Error(`npm pack failed (exit ${r.code}):\n${r.output}`);
  const tgz = readdirSync(dest).find((f) => f.endsWith('.tgz'));
  if (!tgz) throw new Error(`npm pack wrote no tarball into ${dest}:\n${r.output}`);
  return join(dest, tgz);
}

/**
 * Makes a project in a fresh temporary folder outside the repository, with its own
 * package.json, and installs the tarball and `devDependencies` into it with npm (npm's cache is
 * reused, and trusted without revalidation when it has the versions: `--prefer-offline`).
 * @throws RegistryUnavailable when npm cannot reach the registry
 */
export async function createConsumerProject(tarball: string, devDependencies: readonly string[] = consumerDevDependencies): Promise<{ dir: string; install: CommandResult }> {
  const dir = mkdtempSync(join(tmpdir(), 'steadystate-consumer-'));
  if (!relative(repoRoot, dir).startsWith('..')) throw new Error(`the consumer project ${dir} must be outside the repository ${repoRoot}`);
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify({ name: 'my-controllers', version: '1.0.0', private: true, type: 'module' }, null, 2)}\n`);
  const install = await runCommand('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', tarball, ...devDependencies], { cwd: dir, timeoutMs: 300_000 });
  if (install.code !== 0) {
    rmSync(dir, { recursive: true, force: true });
    if (NETWORK.test(install.output)) throw new RegistryUnavailable(`npm could not reach its registry to install ${devDependencies.join(', ')} and steadystate's dependencies: ${install.output.split('\n').find((l) => NETWORK.test(l)) ?? ''}`.trim());
    throw new Error(`npm install in ${dir} failed (exit ${install.code}):\n${install.output}`);
  }
  return { dir, install };
}

