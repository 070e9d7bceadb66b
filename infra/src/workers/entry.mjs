/**
 * A pool worker's entry: plain JavaScript, so it starts the same way under `node --import tsx`,
 * the tsx CLI and vitest (the pool starts it without the parent's loader flags). It registers
 * tsx in this thread, then loads the TypeScript worker loop.
 */
import { register } from 'tsx/esm/api';

register();
await import('./worker.ts');
