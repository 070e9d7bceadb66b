export * from './split';
export * from './propose';
