import { chain as rest } from './e.js';

export const chain = ['d', ...rest];
