import { main } from './reaper.js';
main({ policy: true });
