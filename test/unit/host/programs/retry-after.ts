/**
 * Host fixture: a program that polls an external API with Node's global `fetch` every second and
 * honours Retry-After in memory: after a 429 it sends nothing until the time the answer named.
 * A restarted process has nothing in memory and polls at once, as a real one does.
 */
let notBefore = 0;
setInterval(() => {
  if (Date.now() < notBefore) return;
  void (async () => {
    const res = await fetch('https://metering.example/v1/meters');
    const after = Number(res.headers.get('retry-after') ?? '0');
    if (res.status === 429) notBefore = Date.now() + after * 1000;
    console.log(`poll ${res.status}`);
  })();
}, 1_000);
