/**
 * What reading PDF receipts costs the server in resident memory (ADR 0029, sixth round): a fresh
 * server (its own process, an empty data folder), one account, then PDF_MEMORY_UPLOADS 1-page
 * text PDFs uploaded 1.5 s apart (each is checked, its text read and its thumbnail drawn in the
 * worker pool: pdfjs), the server's VmRSS after each, then every 2.5 s while the pool's PDF
 * readers go idle (pdfIdleMs 5 s) and stop. Beside it, the baseline of the same run: the server
 * before the first upload. Figures are printed, never asserted.
 *
 * PDF_MEMORY_DIR: a data folder of lab/scale/scale-data.ts instead (give a copy: receipts are added
 * to it), whose big company's admin uploads; at 1,000,000 lines this is where the reading of a
 * receipt meets the company's size (ADR 0029 decision 21). PDF_MEMORY_WAIT_S: seconds to wait
 * after the start (a folder from before a projection was added builds it first; default 5).
 *
 *   nice node --import tsx bench/pdf-memory.ts
 *   cp -r <scale folder> /tmp/copy && PDF_MEMORY_DIR=/tmp/copy PDF_MEMORY_UPLOADS=8 nice node --import tsx bench/pdf-memory.ts
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, stopServer } from './child-server';
import { fmt, row, textPdf } from './lib';

const UPLOADS = Number(process.env.PDF_MEMORY_UPLOADS ?? 3);
const GIVEN = process.env.PDF_MEMORY_DIR;
const WAIT_S = Number(process.env.PDF_MEMORY_WAIT_S ?? 5);
/** lab/scale/scale-data.ts's big company's admin and the scale benches' signing secret. */
const SCALE_ADMIN = { email: 'ada.admin.0@scale.example', password: 'Passw0rdOK-scale' };
const SCALE_SECRET = 'scale-bench-signing-secret-0123456789abcdef';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
const threads = (pid: number) => readdirSync(`/proc/${pid}/task`).length;

const dir = GIVEN ?? mkdtempSync(join(tmpdir(), 'paperlink-pdf-memory-'));
const server = await startServer(dir, GIVEN ? SCALE_SECRET : 'pdf-memory-bench-signing-secret-0123456789');

/** A fresh account, or the scale folder's admin signed in to its company. */
async function account(base: string): Promise<Record<string, string>> {
  if (!GIVEN) {
    const reg = await fetch(`${base}/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ firstName: 'Pia', lastName: 'Bench', email: 'pia@pdf-memory.example', password: 'Passw0rdOK-pdf-memory', companyName: 'PDF Memory' }),
    });
    if (reg.status !== 201 && reg.status !== 200) throw new Error(`register: ${reg.status}`);
    const a = (await reg.json()) as { accessToken: string; company: { id: string } };
    return { authorization: `Bearer ${a.accessToken}`, 'x-company-id': a.company.id };
  }
  const signIn = async (headers: Record<string, string>) => {
    let r = await fetch(`${base}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(SCALE_ADMIN) });
    // 503 while the read models catch up after the start (ADR 0023): again, as the web app does.
    for (let i = 0; i < 60 && r.status === 503; i++) {
      await sleep(1000);
      r = await fetch(`${base}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(SCALE_ADMIN) });
    }
    if (r.status !== 200) throw new Error(`sign-in: ${r.status} ${await r.text()}`);
    return (await r.json()) as { accessToken: string; company?: { id: string }; user?: { companyId?: string }; companies?: Array<{ id: string }> };
  };
  const first = await signIn({});
  const companyId = first.company?.id ?? first.user?.companyId ?? first.companies?.[0]?.id;
  if (!companyId) throw new Error(`sign-in named no company: ${JSON.stringify(Object.keys(first))}`);
  const a = await signIn({ 'x-company-id': companyId });
  return { authorization: `Bearer ${a.accessToken}`, 'x-company-id': companyId };
}

try {
  const pid = server.proc.pid!;
  console.log(`PDF receipts and the server's resident memory; load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  const headers = await account(server.base);
  await sleep(GIVEN ? WAIT_S * 1000 : 2000);
  const base = rssMb(pid);
  row('server before any PDF: VmRSS (MB)', fmt(base), `${threads(pid)} threads; the baseline${GIVEN ? `; data folder ${GIVEN}` : ''}`);
  const after: string[] = [];
  for (let i = 0; i < UPLOADS; i++) {
    const form = new FormData();
    form.append('receipt', new Blob([await textPdf([`Shop ${i}`, `Date: 2024-01-0${(i % 9) + 1}`, `TOTAL 12.3${i % 10}`])], { type: 'application/pdf' }), `receipt-${i}.pdf`);
    const up = await fetch(`${server.base}/receipts/upload`, { method: 'POST', headers, body: form });
    if (up.status !== 201) throw new Error(`upload: ${up.status} ${await up.text()}`);
    await sleep(1500);
    after.push(fmt(rssMb(pid)));
  }
  row(`after each of ${UPLOADS} PDF uploads, 1.5 s apart: VmRSS (MB)`, after.join(', '), `${threads(pid)} threads; peak - baseline ${fmt(Math.max(...after.map((a) => Number(a.replace(/,/g, '')))) - base)} MB`);
  const idle: string[] = [];
  for (let i = 1; i <= 6; i++) {
    await sleep(2500);
    idle.push(`+${(i * 2.5).toFixed(1)} s ${fmt(rssMb(pid))}`);
  }
  row('then, idle: VmRSS (MB)', idle.join(', '), `${threads(pid)} threads at the end (PDF readers stop after 5 s idle)`);
} finally {
  await stopServer(server);
  if (!GIVEN) rmSync(dir, { recursive: true, force: true });
}
