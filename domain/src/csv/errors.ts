import { AppError } from '../core/errors';

export type CsvFileErrorCode =
  | 'empty_file'
  | 'binary_file'
  | 'not_csv'
  | 'header_only'
  | 'no_valid_rows'
  | 'missing_column'
  | 'too_many_rows';

/** The file as a whole cannot be imported; `code` is stable, `message` is for people. */
export class CsvFileError extends AppError {
  constructor(
    override readonly code: CsvFileErrorCode,
    message: string,
    details?: unknown,
  ) {
    super(422, code, message, details);
  }
}
