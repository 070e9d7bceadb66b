/**
 * tesseract.js's Node worker, started at a lower priority (nice 10, this thread only on Linux):
 * OCR may take every core, but the request thread is served first when both want the CPU.
 */
import { setPriority } from 'node:os';

try {
  setPriority(10);
} catch {
  // not permitted or not supported: run at normal priority
}
await import('tesseract.js/src/worker-script/node/index.js');
