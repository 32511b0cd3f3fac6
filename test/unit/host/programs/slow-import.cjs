/**
 * Host fixture (CommonJS): its module settles at once, then it imports the slow chain (the test's
 * loader hook delays each of its modules) and only then waits on the simulation, as a CommonJS
 * operator importing the ESM client does.
 */
void (async () => {
  const { chain } = await import('./slow-chain/a.js');
  console.log(`started: ${chain.join(' ')}`);
  setTimeout(() => console.log('a second later'), 1_000);
})();
