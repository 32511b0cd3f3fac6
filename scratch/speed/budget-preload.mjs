import v8 from 'node:v8'; v8.setFlagsFromString('--interrupt-budget=270336');
