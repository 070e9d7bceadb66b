/**
 * The server in a process of its own, for the benches that measure it from outside (scale.ts,
 * import-cost.ts, scale-calls.ts): `infra/src/main.ts` on a data folder, on a free port, resolved
 * once it says it is listening. An exit the bench did not ask for (stop) is reported with the
 * server's last output.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..');

export interface ChildServer {
  proc: ChildProcess;
  /** http://127.0.0.1:<port>/api */
  base: string;
  /** The last 20,000 characters the server wrote. */
  output: () => string;
}

/** Servers a bench stopped itself (their exit is not reported). */
const stopping = new Set<ChildProcess>();

export function startServer(dir: string, secret: string, env: Record<string, string> = {}): Promise<ChildServer> {
  const proc = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'infra/src/main.ts')], {
    cwd: ROOT,
    env: { ...process.env, ...env, PORT: '0', HOST: '127.0.0.1', DATA_DIR: dir, JWT_SECRET: secret, WEB_DIST: join(dir, 'no-web') },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.stderr!.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-20_000)));
  return new Promise((resolve, reject) => {
    proc.stdout!.on('data', (d: Buffer) => {
      out = (out + d.toString()).slice(-20_000);
      const m = /listening on (http:\/\/localhost:\d+)/.exec(out);
      if (m) resolve({ proc, base: `${m[1]!.replace('localhost', '127.0.0.1')}/api`, output: () => out });
    });
    proc.once('exit', (code, signal) => {
      reject(new Error(`server exited (${code ?? signal}):\n${out.slice(-3000)}`));
      // A crash or a signal from elsewhere: how, and what the server said last.
      if (!stopping.has(proc)) console.error(`server exited unasked (code ${code}, signal ${signal}); its last output:\n${out.slice(-4000)}`);
    });
  });
}

/** Marks an exit as asked for (a kill -9 the bench makes on purpose is not reported). */
export function expectExit(server: ChildServer): void {
  stopping.add(server.proc);
}

/** SIGTERM, and waits for the exit. */
export async function stopServer(server: ChildServer): Promise<void> {
  if (server.proc.exitCode !== null || server.proc.signalCode !== null) return;
  stopping.add(server.proc);
  await new Promise<void>((resolve) => {
    server.proc.once('exit', () => resolve());
    server.proc.kill('SIGTERM');
  });
}
