import { chain as rest } from './b.js';

export const chain = ['a', ...rest];
