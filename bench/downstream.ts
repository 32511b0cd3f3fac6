/**
 * Downstream calls per second (SPEC §10: ≥ 20,000/s through `ctx.fetch` to built-in fake
 * services). Measures the fast path called directly, the same inside a kernel task (what
 * `ctx.fetch` costs a reconciler) and user msw handlers.
 */
import { pathToFileURL } from 'node:url';
import { http, HttpResponse } from 'msw';
import { Kernel, type Task } from '../src/sim/kernel.js';
import { createDownstream, type Downstream } from '../src/downstream/intercept.js';
import { fakeRestService } from '../src/downstream/fake-rest-service.js';

/** One bench row. */
export interface BenchRow {
  name: string;
  value: number;
  unit: string;
}

const DNS = 'https://dns.example';

/** A create → get → patch → delete cycle: 4 calls, the mix a sync loop makes. */
async function crudCycle(ds: Downstream, task: Task | undefined, i: number): Promise<void> {
  const created = await ds.fetch(task, 'bench', `${DNS}/records`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ owner: `default/obj-${i}`, name: `obj-${i}.example`, ip: '10.0.0.1', ttl: 60 }),
  });
  const { id } = (await created.json()) as { id: string };
  await (await ds.fetch(task, 'bench', `${DNS}/records/${id}`)).json();
  await (await ds.fetch(task, 'bench', `${DNS}/records/${id}`, { method: 'PATCH', body: '{"ttl":120}' })).json();
  await ds.fetch(task, 'bench', `${DNS}/records/${id}`, { method: 'DELETE' });
}

async function measure(calls: number, body: () => Promise<void>): Promise<number> {
  const start = performance.now();
  await body();
  return calls / ((performance.now() - start) / 1000);
}

async function fastPathDirect(cycles: number): Promise<number> {
  const kernel = new Kernel();
  const ds = createDownstream(kernel, { services: [fakeRestService({ baseUrl: DNS })] });
  return measure(cycles * 4, async () => {
    for (let i = 0; i < cycles; i++) await crudCycle(ds, undefined, i);
  });
}

async function fastPathInKernel(cycles: number): Promise<number> {
  const kernel = new Kernel();
  const ds = createDownstream(kernel, { services: [fakeRestService({ baseUrl: DNS })] });
  return measure(cycles * 4, async () => {
    kernel.spawn(
      'bench',
      async (task) => {
        for (let i = 0; i < cycles; i++) await crudCycle(ds, task, i);
      },
      (err, failed) => {
        if (failed) throw err;
      },
    );
    await kernel.run(1);
  });
}

async function mswPath(pairs: number): Promise<number> {
  const kernel = new Kernel();
  let n = 0;
  const handlers = [
    http.post('https://api.example/items', async ({ request }) => HttpResponse.json({ id: String(++n), ...((await request.json()) as object) }, { status: 201 })),
    http.get('https://api.example/items/:id', ({ params }) => HttpResponse.json({ id: params['id'] })),
  ];
  const ds = createDownstream(kernel, { handlers });
  return measure(pairs * 2, async () => {
    for (let i = 0; i < pairs; i++) {
      const created = await ds.fetch(undefined, 'bench', 'https://api.example/items', { method: 'POST', body: JSON.stringify({ owner: `o${i}` }) });
      const { id } = (await created.json()) as { id: string };
      await (await ds.fetch(undefined, 'bench', `https://api.example/items/${id}`)).json();
    }
  });
}

/**
 * Runs the downstream benchmarks (after a warm-up) and returns one row per path.
 * @returns calls per second for the fast path (direct and inside a kernel task) and the msw path
 */
export async function benchDownstream(): Promise<BenchRow[]> {
  await fastPathDirect(2_000);
  await fastPathInKernel(2_000);
  await mswPath(500);
  return [
    { name: 'downstream fast path (fake service)', value: Math.round(await fastPathDirect(25_000)), unit: 'calls/s' },
    { name: 'downstream fast path in a kernel task', value: Math.round(await fastPathInKernel(25_000)), unit: 'calls/s' },
    { name: 'downstream msw handler path', value: Math.round(await mswPath(3_000)), unit: 'calls/s' },
  ];
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const row of await benchDownstream()) console.log(`${row.name.padEnd(40)} ${row.value.toLocaleString('en-US').padStart(12)} ${row.unit}`);
}
