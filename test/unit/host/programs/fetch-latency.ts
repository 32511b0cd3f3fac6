/**
 * Host fixture: a program that calls an external REST service with Node's global `fetch` (no
 * task of the kernel's waits on it) and logs, on the simulated clock, how long each answer took.
 * Every second it reads the collection, then creates an item with an idempotency key.
 */
let n = 0;
setInterval(() => {
  const i = n++;
  void (async () => {
    const t0 = Date.now();
    const list = await fetch('https://store.example/items');
    const items = (await list.json()) as unknown[];
    const t1 = Date.now();
    const post = await fetch('https://store.example/items', { method: 'POST', headers: { 'content-type': 'application/json', 'idempotency-key': `k-${i}` }, body: JSON.stringify({ n: i }) });
    console.log(`#${i}: list ${list.status} (${items.length}) after ${t1 - t0} ms, create ${post.status} after ${Date.now() - t1} ms`);
  })();
}, 1_000);
