export * from './accounts/views';
export * from './accounts/routes';
