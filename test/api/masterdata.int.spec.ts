import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invite, registerAccount, startApi, type Account, type Api } from '../support/harness';

let api: Api;
let admin: Account;
let user: Account;
beforeAll(async () => {
  api = await startApi();
  admin = await registerAccount(api);
  user = await registerAccount(api);
  await invite(api, admin, user, 'user');
});
afterAll(async () => api.close());

describe('master data', () => {
  it('adds, lists (sorted), renames and deletes categories, job numbers and cost codes', async () => {
    const h = admin.headers();
    const pm = await api.http.post('/api/masterdata/categories').set(h).send({ name: '  PROJECT   MANAGER ' });
    expect(pm.status).toBe(201);
    expect(pm.body).toMatchObject({ name: 'PROJECT MANAGER' });
    await api.http.post('/api/masterdata/categories').set(h).send({ name: 'Fuel' }).expect(201);
    const code = await api.http.post('/api/masterdata/cost_codes').set(h).send({ name: '01-3114', category_id: pm.body.id });
    expect(code.status).toBe(201);
    expect(code.body).toMatchObject({ name: '01-3114', category_id: pm.body.id, category_name: 'PROJECT MANAGER' });
    await api.http.post('/api/masterdata/job_numbers').set(h).send({ name: 'JOB-1' }).expect(201);

    const cats = await api.http.get('/api/masterdata/categories').set(h);
    expect(cats.body.map((c: { name: string }) => c.name)).toEqual(['Fuel', 'PROJECT MANAGER']);
    const codes = await api.http.get('/api/masterdata/cost_codes').set(user.headers(admin.companyId));
    expect(codes.status).toBe(200);
    expect(codes.body).toEqual([{ id: code.body.id, name: '01-3114', category_id: pm.body.id, category_name: 'PROJECT MANAGER' }]);

    const renamed = await api.http.put(`/api/masterdata/categories/${pm.body.id}`).set(h).send({ name: 'Project Manager' });
    expect(renamed.body).toMatchObject({ id: pm.body.id, name: 'Project Manager' });
    expect((await api.http.get('/api/masterdata/cost_codes').set(h)).body[0].category_name).toBe('Project Manager');

    const blocked = await api.http.delete(`/api/masterdata/categories/${pm.body.id}`).set(h);
    expect(blocked.status).toBe(409);
    expect(blocked.body.code).toBe('category_has_cost_codes');
    await api.http.delete(`/api/masterdata/cost_codes/${code.body.id}`).set(h).expect(200);
    await api.http.delete(`/api/masterdata/categories/${pm.body.id}`).set(h).expect(200);
    expect((await api.http.get('/api/masterdata/categories').set(h)).body.map((c: { name: string }) => c.name)).toEqual(['Fuel']);
  });

  it('validates names: empty, duplicate (any case), a cost code without a real category', async () => {
    const h = admin.headers();
    const empty = await api.http.post('/api/masterdata/job_numbers').set(h).send({ name: '   ' });
    expect(empty.status).toBe(400);
    expect(empty.body.error).toBe('Name cannot be empty.');
    await api.http.post('/api/masterdata/job_numbers').set(h).send({ name: 'J-77' }).expect(201);
    const dup = await api.http.post('/api/masterdata/job_numbers').set(h).send({ name: 'j-77' });
    expect(dup.status).toBe(409);
    const orphan = await api.http.post('/api/masterdata/cost_codes').set(h).send({ name: 'X1', category_id: 'nope' });
    expect(orphan.status).toBe(400);
    const none = await api.http.post('/api/masterdata/cost_codes').set(h).send({ name: 'X1' });
    expect(none.status).toBe(400);
    expect((await api.http.get('/api/masterdata/widgets').set(h)).status).toBe(404);
  });

  it('lets only admins change master data', async () => {
    const h = user.headers(admin.companyId);
    const res = await api.http.post('/api/masterdata/categories').set(h).send({ name: 'Sneaky' });
    expect(res.status).toBe(403);
    expect(res.body.error).toBe('Access denied. Admin privileges required.');
    const list = await api.http.get('/api/masterdata/categories').set(admin.headers());
    const id = list.body[0].id;
    expect((await api.http.put(`/api/masterdata/categories/${id}`).set(h).send({ name: 'X' })).status).toBe(403);
    expect((await api.http.delete(`/api/masterdata/categories/${id}`).set(h)).status).toBe(403);
  });
});

describe('master data CSV import', () => {
  it('imports names, skips duplicates (in the file and already there), reports errors', async () => {
    const h = admin.headers();
    await api.http.post('/api/masterdata/job_numbers').set(h).send({ name: 'JOB-EXISTING' }).expect(201);
    const csv = 'Job Number\nJOB-A\nJOB-B\njob-a\nJOB-EXISTING\n';
    const res = await api.http.post('/api/masterdata/job_numbers/import').set(h).attach('csvFile', Buffer.from(csv), 'jobs.csv');
    expect(res.status).toBe(200);
    expect(res.body.summary).toMatchObject({ imported: 2, skipped: 2, totalRows: 4 });
    expect(res.body.details.duplicates.map((d: { row: number }) => d.row)).toEqual([4, 5]);
    const names = (await api.http.get('/api/masterdata/job_numbers').set(h)).body.map((j: { name: string }) => j.name);
    expect(names).toEqual(expect.arrayContaining(['JOB-A', 'JOB-B', 'JOB-EXISTING']));
  });

  it('creates missing categories from a cost-code file', async () => {
    const h = admin.headers();
    const csv = 'Cost Code,Category\n02-100,Travel Costs\n02-200,Travel Costs\n03-100,Site Works\n';
    const res = await api.http.post('/api/masterdata/cost_codes/import').set(h).attach('csvFile', Buffer.from(csv), 'codes.csv');
    expect(res.body.summary.imported).toBe(3);
    const codes = (await api.http.get('/api/masterdata/cost_codes').set(h)).body;
    expect(codes.find((c: { name: string }) => c.name === '02-200').category_name).toBe('Travel Costs');
    const cats = (await api.http.get('/api/masterdata/categories').set(h)).body.map((c: { name: string }) => c.name);
    expect(cats).toEqual(expect.arrayContaining(['Travel Costs', 'Site Works']));
  });

  it('checks the file: present, .csv, under 5MB; admin only', async () => {
    const h = admin.headers();
    expect((await api.http.post('/api/masterdata/categories/import').set(h)).body.error).toBe('Please select a CSV file to import.');
    expect((await api.http.post('/api/masterdata/categories/import').set(h).attach('csvFile', Buffer.from('Name\nA\n'), 'a.txt')).body.error).toBe('Please upload a CSV file.');
    const big = Buffer.alloc(5 * 1024 * 1024 + 10, 'a');
    expect((await api.http.post('/api/masterdata/categories/import').set(h).attach('csvFile', big, 'big.csv')).body.error).toBe('File size must be less than 5MB.');
    const asUser = await api.http.post('/api/masterdata/categories/import').set(user.headers(admin.companyId)).attach('csvFile', Buffer.from('Name\nA\n'), 'a.csv');
    expect(asUser.status).toBe(403);
  });
});
