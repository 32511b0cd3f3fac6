/** Host fixture: a program whose top level awaits what never settles (real I/O that never answers), without waiting on the simulation. */
console.log('loading');
await new Promise(() => {});
