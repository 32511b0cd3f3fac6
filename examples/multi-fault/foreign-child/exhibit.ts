import { convergence } from '../../../properties/convergence.js';
import type { MultiFaultExhibit } from '../exhibit.js';
import { foreignChildBuggy } from './buggy.js';
import { foreignChildCorrect } from './correct.js';
import { SITE, sitesReady } from './site.js';

export const foreignChild: MultiFaultExhibit = {
  name: 'foreign-child',
  description: 'a Site controller declares its config name taken when a SiteConfig owned by someone else stands in its cache for 2 s; after a recreation, a lagging cache keeps the old Site\'s config there, and the new Site is NameTaken for good',
  needs: ['recreation of the Site', 'delay (or coalescing, or a lost watch event) of the SiteConfig watch, so the old config stays cached for 2 s'],
  caughtBy: 'convergence',
  property: () => convergence({ converged: sitesReady }),
  buggy: [foreignChildBuggy],
  correct: [foreignChildCorrect],
  options: {
    objects: { kind: SITE, name: 'shop', spec: [{ hostname: 'shop.example.com', replicas: 2 }, { hostname: 'shop.example.com', replicas: 3 }] },
  },
  properties: [convergence({ converged: sitesReady })],
  reproduction: {
    seed: 1,
    controllers: [{ name: 'site' }],
    initialObjects: [],
    workload: [{ at: 0, type: 'create', object: { kind: SITE, metadata: { name: 'shop', namespace: 'default' }, spec: { hostname: 'shop.example.com', replicas: 2 } } }],
    faults: {
      events: [
        { kind: 'recreation', at: 1000, params: { pick: 0, gapMs: 0 } },
        { kind: 'delay', nth: 5, params: { ms: 4000 } },
      ],
      background: [],
    },
    options: { faultWindowMs: 10_000, settleMs: 20_000 },
  },
};
