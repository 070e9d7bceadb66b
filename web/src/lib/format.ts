const usd = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' });

/** Spec section 9: money is shown in US dollars. */
export const formatUsd = (n: number | null | undefined) => (n === null || n === undefined ? '' : usd.format(n));
