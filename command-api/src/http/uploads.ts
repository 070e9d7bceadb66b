import { ValidationError } from '@paperlink/domain';

/**
 * What is left of a multipart parse error once multer's own (sizes, counts) are handled: busboy's
 * "Malformed part header", "Unexpected end of form", "Boundary not found". The body could not be
 * read, so it is the client's 400, never a 500 (memory storage has no errors of its own).
 */
export function unreadableUpload(err: unknown): ValidationError | undefined {
  if (!err) return undefined;
  return new ValidationError('The upload could not be read (a malformed multipart body). Send the file again.', undefined, 'bad_upload');
}
