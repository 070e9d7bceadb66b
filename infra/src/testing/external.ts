import { spawnSync } from 'node:child_process';

let docker: boolean | undefined;

/** Whether a Docker engine answers (the client alone is not enough). */
export function dockerAvailable(): boolean {
  if (docker === undefined) {
    const r = spawnSync('docker', ['info', '--format', '{{.ServerVersion}}'], { timeout: 5000, encoding: 'utf8' });
    docker = r.status === 0 && r.stdout.trim().length > 0;
  }
  return docker;
}

/**
 * Where a contract suite for an external server gets its server: the URL in `envVar`, else
 * a container when Docker runs, else nowhere (the suite is reported as skipped, by name).
 */
export function externalTarget(envVar: string): { url: string } | { container: true } | { skip: string } {
  const url = process.env[envVar];
  if (url) return { url };
  if (dockerAvailable()) return { container: true };
  return { skip: `${envVar} is not set and no Docker engine is available` };
}
