export * from './core/projection';
export * from './core/runner';
export * from './core/unit-of-work';
export * from './accounts/users';
export * from './accounts/sessions';
export * from './accounts/companies';
export * from './masterdata/items';
export { allProjections } from './registry';
