import { main } from './reaper.js';
main({ policy: false });
