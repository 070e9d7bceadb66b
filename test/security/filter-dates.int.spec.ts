/**
 * A date that no calendar has (`2024-02-30`, month 13, day 00)
 * in a list filter is a 400 that says so, not an empty list that looks like "no data".
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerAccount, startApi, type Account, type Api } from '../support/harness';

let api: Api;
let ada: Account;

beforeAll(async () => {
  api = await startApi();
  ada = await registerAccount(api, { firstName: 'Ada', lastName: 'Admin' });
});
afterAll(() => api?.close());

const IMPOSSIBLE = ['2024-02-30', '2023-02-29', '2024-13-01', '2024-00-10', '2024-04-31', '2024-01-00', '0000-01-01'];
const REAL = ['2024-02-29', '2023-12-31', '2024-01-01'];

describe.each([['/api/transactions'], ['/api/receipts']])('%s date filters', (path) => {
  it.each(IMPOSSIBLE.flatMap((d) => [['startDate', d], ['endDate', d]]))('%s=%s is 400 validation_failed', async (field, value) => {
    const res = await api.http.get(path).query({ [field]: value }).set(ada.headers());
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_failed');
    expect(res.body.error).toMatch(/not a date|calendar/i);
    expect(res.body.details).toEqual([expect.objectContaining({ field })]);
  });

  it.each(REAL)('startDate=%s (a real day) is 200', async (value) => {
    const res = await api.http.get(path).query({ startDate: value, endDate: value }).set(ada.headers());
    expect(res.status).toBe(200);
  });
});
