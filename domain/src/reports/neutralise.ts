/**
 * Spreadsheet formula injection (OWASP "CSV injection"): a text cell that begins with `=`, `+`,
 * `-`, `@`, a tab, a carriage return or a line feed may be read as a formula by Excel or
 * LibreOffice. Such text gets a leading single quote, so it is shown, never evaluated.
 */
const TRIGGERS = new Set(['=', '+', '-', '@', '\t', '\r', '\n']);

export function isFormulaLike(text: string): boolean {
  return text.length > 0 && TRIGGERS.has(text[0]!);
}

export function neutralise(text: string): string {
  return isFormulaLike(text) ? `'${text}` : text;
}

/** For a cell that may be empty. */
export function neutraliseOrNull(text: string | null | undefined): string | null {
  return text === null || text === undefined ? null : neutralise(text);
}
