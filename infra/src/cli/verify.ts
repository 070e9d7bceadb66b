/**
 * `make verify`: walks the hash chain of the event log in DATA_DIR and reports the first broken
 * link. `make verify BUNDLE=<file>`: checks an audit bundle offline (no server, no data folder);
 * with PUBLIC_KEY=<base64> it also checks that the bundle was signed by that key (the one
 * GET /api/audit/verify shows). Exit code 0: intact; 1: broken; 2: could not check.
 */
import { existsSync } from 'node:fs';
import { checkBundleFile } from '../audit/bundle';
import { verifyChainParallel } from '../audit/tasks';
import { dataDir } from '../data-dir';

async function main(): Promise<number> {
  const bundle = process.env.BUNDLE;
  if (bundle) {
    if (!existsSync(bundle)) {
      console.error(`no such file: ${bundle}`);
      return 2;
    }
    const check = checkBundleFile(bundle, process.env.PUBLIC_KEY || undefined);
    const m = check.manifest;
    if (m) {
      console.log(`Bundle of company ${m.companyId}, ${m.period.startDate ?? 'start'} to ${m.period.endDate ?? 'end'}: ${check.events} events (manifest: ${m.count}), made ${m.createdAt}`);
      console.log(`First hash ${m.first?.hash ?? '-'} (position ${m.first?.position ?? '-'}), last ${m.last?.hash ?? '-'} (position ${m.last?.position ?? '-'})`);
      console.log(`Signed by Ed25519 key ${m.publicKey}${process.env.PUBLIC_KEY ? '' : ' (set PUBLIC_KEY to require this key)'}`);
      console.log(`Each event's hash recomputed from its content; ${check.linksChecked} links between consecutive positions checked`);
    }
    if (check.ok) {
      console.log('Bundle intact.');
      return 0;
    }
    for (const p of check.problems.slice(0, 20)) console.log(`BROKEN: ${p}`);
    if (check.problems.length > 20) console.log(`… and ${check.problems.length - 20} more`);
    return 1;
  }
  const dir = dataDir(process.env.DATA_DIR ?? './data');
  if (!existsSync(dir.eventsFile)) {
    console.error(`no event store in ${dir.root} (events.sqlite): nothing to verify`);
    return 2;
  }
  const report = await verifyChainParallel(dir.eventsFile);
  const eps = Math.round(report.checked / Math.max(report.ms / 1000, 0.001));
  console.log(`Checked ${report.checked} events in ${(report.ms / 1000).toFixed(2)} s (${eps} events/s)`);
  if (report.ok) {
    console.log(`Chain intact. Head: position ${report.head.position}, hash ${report.head.hash}`);
    return 0;
  }
  const b = report.broken!;
  console.log(`BROKEN at position ${b.position}${b.eventId ? ` (event ${b.eventId})` : ''}: ${b.reason}`);
  console.log(`  expected: ${b.expected}`);
  console.log(`  found:    ${b.found ?? '(none)'}`);
  console.log(`Last intact: position ${report.head.position}, hash ${report.head.hash}`);
  return 1;
}

main().then(
  (code) => (process.exitCode = code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 2;
  },
);
