import type { EventStore } from '@paperlink/domain';
import type { PasswordHasher } from '@paperlink/command-api';
import type { Projection } from '@paperlink/projections';
import type { ReceiptReader } from '../receipts/ocr-job';

export interface PaperlinkOptions {
  hasher?: PasswordHasher;
  /** Skip the data-folder lock (tests that open a folder twice on purpose). */
  noLock?: boolean;
  /** How receipt files are read (tests may pass a slow or failing reader). Default: OCR pool. */
  reader?: ReceiptReader;
  /** Don't start job workers (tools that only read). */
  noJobs?: boolean;
  /** The projections to run (default: allProjections(); a test may pass a new version of one). */
  projections?: Projection[];
  /** Wraps the event store (tests: an appendMany that is not atomic, as on EventStoreDB). */
  wrapEvents?: (events: EventStore) => EventStore;
}
