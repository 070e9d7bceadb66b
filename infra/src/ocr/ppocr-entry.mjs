/** The PP-OCRv5 reader thread's entry (plain JavaScript: registers tsx, then loads the TypeScript). */
import { register } from 'tsx/esm/api';

register();
await import('./ppocr-thread.ts');
