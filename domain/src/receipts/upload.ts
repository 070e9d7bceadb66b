import type { SniffedFile } from './filetype';

/** A file that arrived at a signed direct-upload URL, before the commit call makes it a receipt. */
export interface ReceivedFile extends SniffedFile {
  /** The upload's key (the receipt id the commit gives it). */
  key: string;
  companyId: string;
  userId: string;
  sha256: string;
  size: number;
}

/** Events of an upload's stream (`upload-<key>`): the last arrival is the one the commit takes. */
export type UploadEvent = { type: 'ReceiptFileReceived'; data: ReceivedFile };
