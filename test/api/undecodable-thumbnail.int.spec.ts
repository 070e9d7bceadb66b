/**
 * A receipt image that passes the upload's checks but cannot be decoded (its data is noise, as a
 * damaged scan's can be): its thumbnail answered 500. It is the file's fault: 422 image_unreadable.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerAccount, startApi, type Account, type Api } from '../support/harness';
import { labelledReader } from '../support/labelled-reader';
import { png } from '../support/images';
import { receiptPage } from '../support/receipt-page';

describe('the thumbnail of an undecodable image', () => {
  let api: Api;
  let owner: Account;
  beforeAll(async () => {
    api = await startApi({}, undefined, { reader: labelledReader() });
    owner = await registerAccount(api);
  });
  afterAll(async () => {
    await api?.close();
  });

  const thumbnailOf = async (bytes: Buffer, name: string) => {
    const up = await api.http.post('/api/receipts/upload').set(owner.headers()).attach('receipt', bytes, name);
    expect(up.status).toBe(201);
    return api.http.get(`/api/receipts/${up.body.id ?? up.body.receipt?.id}/thumbnail`).set(owner.headers());
  };

  it('answers 422 image_unreadable, not 500', async () => {
    const res = await thumbnailOf(png(800, 1000, { seed: 7 }), 'noise.png');
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('image_unreadable');
  });

  it('a readable image still gets its JPEG', async () => {
    const res = await thumbnailOf(receiptPage(28, 600), 'page.jpg');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('image/jpeg');
  });
});
