export * from './calendar';
export * from './correlate';
