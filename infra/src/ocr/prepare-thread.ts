/**
 * The OCR preparation thread: runs prepareSteps (decoding and resizing in sharp, the PGM in
 * JavaScript) off the thread that asked, one image at a time.
 * Messages: `{ id, image, steps }` in, `{ id, prepared }` or `{ id, error }` out.
 */
import { parentPort } from 'node:worker_threads';
import { prepareSteps } from './preprocess';
import type { PrepSteps } from './preprocess';

interface Request {
  id: number;
  image: Uint8Array;
  steps: PrepSteps;
}

parentPort!.on('message', (req: Request) => {
  prepareSteps(req.image, req.steps).then(
    (prepared) => {
      const image = new Uint8Array(prepared.image.buffer, prepared.image.byteOffset, prepared.image.byteLength);
      // A buffer of its own so it can be moved, not copied, back.
      const own = image.byteOffset === 0 && image.byteLength === image.buffer.byteLength ? image : new Uint8Array(image);
      parentPort!.postMessage({ id: req.id, prepared: { ...prepared, image: own } }, [own.buffer as ArrayBuffer]);
    },
    (error: unknown) => parentPort!.postMessage({ id: req.id, error: error instanceof Error ? error.message : String(error) }),
  );
});
