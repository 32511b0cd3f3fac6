import { SetupServerApi } from 'msw/node';
import { getRawRequest } from '@mswjs/interceptors';
import { ClientRequestInterceptor } from '@mswjs/interceptors/ClientRequest';
import { http } from 'msw';
import * as k8s from '@kubernetes/client-node';
const mode = process.argv[2];
const streams: any[] = [];
const server = new SetupServerApi([
  http.all('https://steadystate.invalid/*', async ({ request }) => {
    const url = new URL(request.url);
    if (url.searchParams.get('watch')) {
      console.log('WATCH request', url.search);
      let ctrl!: ReadableStreamDefaultController<Uint8Array>;
      const stream = new ReadableStream<Uint8Array>({ start(c) { ctrl = c; c.enqueue(new TextEncoder().encode("\n")); }, cancel(r) { console.log('stream cancelled', String(r)); } });
      const raw = getRawRequest(request) as any;
      raw?.on('close', () => console.log('raw request close'));
      raw?.on('abort', () => console.log('raw request abort'));
      streams.push({ ctrl, raw });
      return new Response(stream, { status: 200, headers: { 'content-type': 'application/json' } });
    }
    return Response.json({ kind: 'PodList', apiVersion: 'v1', metadata: { resourceVersion: '1' }, items: [] });
  }),
], [new ClientRequestInterceptor()]);
server.listen({ onUnhandledRequest: 'error' });
const kc = new k8s.KubeConfig();
kc.loadFromOptions({ clusters: [{ name: 'c', server: 'https://steadystate.invalid' }], users: [{ name: 'u', token: 't' }], contexts: [{ name: 'x', cluster: 'c', user: 'u' }], currentContext: 'x' });
const api = kc.makeApiClient(k8s.CoreV1Api);
const inf = k8s.makeInformer(kc, '/api/v1/namespaces/default/pods', () => api.listNamespacedPod({ namespace: 'default' }));
inf.on('error', (e: any) => console.log('INFORMER ERROR', e?.message ?? e));
inf.on('connect', () => console.log('CONNECT'));
const keep = setInterval(() => {}, 1000);
await inf.start();
const tick = async (n: number) => { for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r)); };
await tick(5);
const s = streams[0];
if (mode === 'error') s.ctrl.error(new Error('cut'));
if (mode === 'close') s.ctrl.close();
if (mode === 'destroy') s.raw.destroy(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }));
if (mode === 'sockdestroy') s.raw.socket.destroy(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }));
if (mode === 'abort') { await inf.stop(); }
let n = 0; while (n < 200) { await tick(1); n++; if (streams.length > 1) { console.log('rewatch after', n); break; } }
await tick(20);
console.log('streams', streams.length);
if (mode !== 'abort') await inf.stop();
await tick(20);
// enqueue after abort
try { streams.at(-1).ctrl.enqueue(new TextEncoder().encode('{}\n')); console.log('enqueue ok; desiredSize', streams.at(-1).ctrl.desiredSize); } catch (e) { console.log('enqueue threw', String(e)); }
await tick(20);
server.close(); clearInterval(keep);
