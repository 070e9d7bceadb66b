export * from './types';
export * from './neutralise';
export * from './summary';
export * from './grouping';
export * from './naming';
export * from './print-copy';
