export * from './accounts/views';
export * from './accounts/routes';
export * from './masterdata/routes';
export * from './transactions/routes';
export * from './receipts/routes';
export * from './matches/routes';
export * from './analytics/routes';
export * from './operations';
