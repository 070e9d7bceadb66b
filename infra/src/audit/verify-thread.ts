/** One range of the chain check (./tasks.ts verifyChainParallel), on its own read-only connection. */
import { parentPort, workerData } from 'node:worker_threads';
import { verifyChainFile } from './tasks';

const { file, range } = workerData as { file: string; range: { after: number; until: number } };
parentPort!.postMessage(verifyChainFile(file, range));
