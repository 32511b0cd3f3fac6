import { chain as rest } from './c.js';

export const chain = ['b', ...rest];
