import type { Server } from 'node:http';
import { createPaperlink, VERSION } from './app';
import { loadConfig } from './config';
import { answerClientErrors } from './http/client-errors';

/**
 * One process: command API, query API, projectors and job workers, plus the web app; or one of
 * them (PAPERLINK_ROLE=command, query or projector; ADR 0025).
 */
async function main(): Promise<void> {
  const config = loadConfig();
  const paperlink = await createPaperlink(config);
  const server: Server = answerClientErrors(paperlink.app.listen(config.PORT, config.HOST, () => {
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : config.PORT;
    console.log(`Paperlink ${VERSION} (${paperlink.adapters.profile}, role ${config.PAPERLINK_ROLE}) listening on http://localhost:${port} with data in ${config.DATA_DIR}`);
  }));
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal}: shutting down`);
    server.close();
    server.closeAllConnections();
    await paperlink.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
