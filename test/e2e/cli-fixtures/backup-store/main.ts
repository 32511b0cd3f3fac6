import { main } from './operator.js';

main({ forgetOnStoreError: false });
