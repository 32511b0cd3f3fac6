/** Host fixture: retry-after.ts's buggy twin: it polls every second whatever the answer said. */
setInterval(() => {
  void fetch('https://metering.example/v1/meters').then((res) => console.log(`poll ${res.status}`));
}, 1_000);
