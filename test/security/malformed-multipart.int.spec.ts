/**
 * Found by the fuzz suite (ADR 0007): a multipart body that busboy cannot read (a
 * broken part header, a missing boundary, a body cut short) answered 500 on every upload route.
 * It is a 400 with `{error, code}`, like any other unreadable request body.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerAccount, startApi, type Account, type Api } from '../support/harness';

let api: Api;
let ada: Account;

beforeAll(async () => {
  api = await startApi({}, undefined, { noJobs: true });
  ada = await registerAccount(api);
});
afterAll(() => api?.close());

const BODIES: Array<[string, string, string]> = [
  ['a part header without a colon', 'multipart/form-data; boundary=XyZ', '--XyZ\r\nContent-Disposition form-data; name="f"\r\n\r\nabc\r\n--XyZ--\r\n'],
  ['a part header broken by a line break in the file name', 'multipart/form-data; boundary=XyZ', '--XyZ\r\nContent-Disposition: form-data; name="f"; filename="a\r\nb.csv"\r\n\r\nabc\r\n--XyZ--\r\n'],
  ['a body cut short', 'multipart/form-data; boundary=XyZ', '--XyZ\r\nContent-Disposition: form-data; name="f"; filename="a.csv"\r\n\r\nabc'],
  ['no boundary', 'multipart/form-data', '--XyZ\r\n\r\nabc\r\n--XyZ--\r\n'],
];

describe.each([
  ['/api/receipts/upload', 'receipt'],
  ['/api/transactions/import', 'csvFile'],
  ['/api/masterdata/categories/import', 'csvFile'],
])('POST %s', (path, field) => {
  it.each(BODIES)('with %s is 400 bad_upload', async (_label, type, body) => {
    const res = await api.http.post(path).set(ada.headers()).set('content-type', type).send(body.replace('name="f"', `name="${field}"`));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: expect.any(String), code: 'bad_upload' });
  });
});
