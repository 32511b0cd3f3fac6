/**
 * Host fixture (CommonJS): its module settles at once, then it imports the slow chain (the test's
 * loader hook delays each of its modules) and only then waits on the simulation, as a CommonJS
 * operator importing the ESM client does. An argument makes the chain's first module a new one
 * (a module is loaded once per process), so its import is slow again.
 */
void (async () => {
  const tag = process.argv[2];
  const { chain } = await import(tag === undefined ? './slow-chain/a.js' : `./slow-chain/a.js?${tag}`);
  console.log(`started: ${chain.join(' ')}`);
  setTimeout(() => console.log('a second later'), 1_000);
})();
