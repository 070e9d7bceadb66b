/**
 * Bytes to text: BOMs (UTF-8, UTF-16 LE/BE), UTF-16 without BOM, strict UTF-8, and
 * Windows-1252 for anything that is not valid UTF-8 (Excel's "CSV" on Windows).
 * Files that are not text at all are refused with `binary_file`.
 */
import iconv from 'iconv-lite';
import { CsvFileError } from './errors';
import type { CsvEncoding } from './types';

export interface DecodedText {
  text: string;
  encoding: CsvEncoding;
}

const SIGNATURES: { bytes: number[]; what: string }[] = [
  { bytes: [0x50, 0x4b, 0x03, 0x04], what: 'an Excel workbook or ZIP archive; save it as CSV first' },
  { bytes: [0xd0, 0xcf, 0x11, 0xe0], what: 'an old Excel workbook (.xls); save it as CSV first' },
  { bytes: [0x25, 0x50, 0x44, 0x46], what: 'a PDF document' },
  { bytes: [0x89, 0x50, 0x4e, 0x47], what: 'a PNG image' },
  { bytes: [0xff, 0xd8, 0xff], what: 'a JPEG image' },
  { bytes: [0x47, 0x49, 0x46, 0x38], what: 'a GIF image' },
  { bytes: [0x1f, 0x8b], what: 'a compressed (gzip) file' },
];

const utf8 = new TextDecoder('utf-8', { fatal: true });

export function decodeCsvBytes(bytes: Uint8Array): DecodedText {
  if (bytes.length === 0) throw emptyFile();
  for (const sig of SIGNATURES) {
    if (sig.bytes.every((b, i) => bytes[i] === b)) {
      throw new CsvFileError('binary_file', `This file is ${sig.what}, not a CSV file.`);
    }
  }
  const decoded = decodeText(bytes);
  if (decoded.text.trim() === '') throw emptyFile();
  if (looksBinary(decoded.text)) {
    throw new CsvFileError('binary_file', 'This file is not text: it looks like a binary file, not a CSV file.');
  }
  return decoded;
}

function decodeText(bytes: Uint8Array): DecodedText {
  const [b0, b1, b2] = [bytes[0], bytes[1], bytes[2]];
  if (b0 === 0xef && b1 === 0xbb && b2 === 0xbf) return { text: utf8Decode(bytes.subarray(3)), encoding: 'utf-8-bom' };
  if (b0 === 0xff && b1 === 0xfe) return { text: iconv.decode(bytes.subarray(2), 'utf16le'), encoding: 'utf-16le' };
  if (b0 === 0xfe && b1 === 0xff) return { text: iconv.decode(bytes.subarray(2), 'utf16be'), encoding: 'utf-16be' };
  const utf16 = guessUtf16(bytes);
  if (utf16 === 'le') return { text: iconv.decode(bytes, 'utf16le'), encoding: 'utf-16le' };
  if (utf16 === 'be') return { text: iconv.decode(bytes, 'utf16be'), encoding: 'utf-16be' };
  try {
    return { text: utf8.decode(bytes), encoding: 'utf-8' };
  } catch {
    return { text: iconv.decode(bytes, 'win1252'), encoding: 'windows-1252' };
  }
}

function utf8Decode(bytes: Uint8Array): string {
  try {
    return utf8.decode(bytes);
  } catch {
    // A UTF-8 BOM followed by bytes that are not UTF-8: trust the bytes, not the BOM.
    return iconv.decode(bytes, 'win1252');
  }
}

/** UTF-16 text of mostly ASCII characters has a zero in every other byte. */
function guessUtf16(bytes: Uint8Array): 'le' | 'be' | null {
  const n = Math.min(bytes.length, 2048) & ~1;
  if (n < 4) return null;
  let evenZeros = 0;
  let oddZeros = 0;
  for (let i = 0; i < n; i += 2) {
    if (bytes[i] === 0) evenZeros++;
    if (bytes[i + 1] === 0) oddZeros++;
  }
  const pairs = n / 2;
  if (oddZeros > pairs * 0.6 && evenZeros < pairs * 0.1) return 'le';
  if (evenZeros > pairs * 0.6 && oddZeros < pairs * 0.1) return 'be';
  return null;
}

/** NUL characters, or more than 1% control characters other than tab, CR, LF and FF. */
function looksBinary(text: string): boolean {
  const n = Math.min(text.length, 8192);
  let control = 0;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0) return true;
    if ((c < 0x20 && c !== 9 && c !== 10 && c !== 13 && c !== 12) || c === 0xfffd) control++;
  }
  return control > n * 0.01;
}

function emptyFile(): CsvFileError {
  return new CsvFileError('empty_file', 'The file is empty.');
}
