export * from './core/money';
