import { AxiosError, AxiosHeaders } from 'axios';
import { describe, expect, it } from 'vitest';
import { DEFAULT_FORMAT, DEFAULT_REPORT_TYPE, DEFAULT_SETTINGS, describeDateRange, exportBody, exportErrorMessage, filenameFromDisposition, formatBytes, GROUP_BY, PAGES_PER_RECEIPT, validateExport } from './rules';

const failed = (status?: number, code?: string) => {
  const config = { headers: new AxiosHeaders() };
  const response = status ? { status, statusText: '', data: {}, headers: {}, config } : undefined;
  return new AxiosError('failed', code, config, {}, response);
};

describe('export defaults and constants (spec section 9)', () => {
  it('exports transactions as a PDF grouped by date with summary and details', () => {
    expect(DEFAULT_REPORT_TYPE).toBe('transactions');
    expect(DEFAULT_FORMAT).toBe('pdf');
    expect(DEFAULT_SETTINGS).toMatchObject({ groupBy: 'date', includeSummary: true, includeDetails: true, includeMatched: true, includeUnmatched: true });
    expect(PAGES_PER_RECEIPT).toEqual(['all', 1, 2, 3, 5]);
    expect(GROUP_BY).toEqual(['date', 'merchant', 'amount', 'status']);
  });
});

describe('validateExport (spec section 5)', () => {
  const s = DEFAULT_SETTINGS;
  it('needs a report type and a format to generate, a report type to preview', () => {
    expect(validateExport('generate', null, 'pdf', s)).toBe('Please select report type and format');
    expect(validateExport('generate', 'transactions', null, s)).toBe('Please select report type and format');
    expect(validateExport('preview', null, 'pdf', s)).toBe('Please select a report type');
    expect(validateExport('preview', 'transactions', null, s)).toBeNull();
    expect(validateExport('generate', 'transactions', 'excel', s)).toBeNull();
  });
  it('needs matched or unmatched for transactions and receipts only', () => {
    const neither = { ...s, includeMatched: false, includeUnmatched: false };
    expect(validateExport('generate', 'transactions', 'pdf', neither)).toBe('Please select at least one option: Matched or Unmatched');
    expect(validateExport('preview', 'receipts', 'pdf', neither)).toBe('Please select at least one option: Matched or Unmatched');
    expect(validateExport('generate', 'matches', 'pdf', neither)).toBeNull();
    expect(validateExport('generate', 'transactions', 'pdf', { ...neither, includeUnmatched: true })).toBeNull();
  });
  it('refuses impossible days and a start after the end; an open range is fine', () => {
    expect(validateExport('generate', 'transactions', 'pdf', { ...s, startDate: '2024-02-30' })).toBe('Please enter a valid start date');
    expect(validateExport('generate', 'transactions', 'pdf', { ...s, endDate: '24-01-01' })).toBe('Please enter a valid end date');
    expect(validateExport('generate', 'transactions', 'pdf', { ...s, startDate: '2024-03-02', endDate: '2024-03-01' })).toBe('The start date must be on or before the end date');
    expect(validateExport('generate', 'transactions', 'pdf', { ...s, startDate: '2024-03-01', endDate: '2024-03-01' })).toBeNull();
    expect(validateExport('generate', 'transactions', 'pdf', { ...s, startDate: '2024-02-29' })).toBeNull();
  });
});

describe('exportBody', () => {
  it('sends every setting, leaving out empty dates and a blank title', () => {
    const body = exportBody({ ...DEFAULT_SETTINGS, title: '  ' });
    expect(body).not.toHaveProperty('startDate');
    expect(body).not.toHaveProperty('endDate');
    expect(body).not.toHaveProperty('title');
    expect(Object.keys(body).sort()).toEqual(['groupBy', 'includeAnalytics', 'includeCharts', 'includeDetails', 'includeMatched', 'includeOCRData', 'includeSummary', 'includeUnmatched', 'maxPagesPerReceipt']);
    expect(exportBody({ ...DEFAULT_SETTINGS, startDate: '2024-01-01', endDate: '2024-01-31', title: ' Q1 ', maxPagesPerReceipt: 2 })).toMatchObject({ startDate: '2024-01-01', endDate: '2024-01-31', title: 'Q1', maxPagesPerReceipt: 2 });
  });
});

describe('exportErrorMessage (spec section 8)', () => {
  it('maps 401, 403, a time-out and anything else', () => {
    expect(exportErrorMessage(failed(401))).toBe('Authentication required. Please log in again.');
    expect(exportErrorMessage(failed(403))).toBe('You do not have permission to export reports.');
    expect(exportErrorMessage(failed(undefined, AxiosError.ECONNABORTED))).toBe('Export timeout. Please try with a smaller date range.');
    expect(exportErrorMessage(failed(undefined, AxiosError.ETIMEDOUT))).toBe('Export timeout. Please try with a smaller date range.');
    expect(exportErrorMessage(failed(504))).toBe('Export timeout. Please try with a smaller date range.');
    expect(exportErrorMessage(failed(500))).toBe('Failed to generate report. Please try again.');
    expect(exportErrorMessage(failed(undefined, AxiosError.ERR_NETWORK))).toBe('Failed to generate report. Please try again.');
    expect(exportErrorMessage(new Error('boom'))).toBe('Failed to generate report. Please try again.');
  });
});

describe('filenameFromDisposition (RFC 6266)', () => {
  it('reads quoted, bare and extended names, preferring filename*', () => {
    expect(filenameFromDisposition('attachment; filename="Acme transactions 2024-01-01 to 2024-01-31.pdf"', 'report.pdf')).toBe('Acme transactions 2024-01-01 to 2024-01-31.pdf');
    expect(filenameFromDisposition('attachment; filename=acme-receipts.xlsx', 'report.xlsx')).toBe('acme-receipts.xlsx');
    expect(filenameFromDisposition(`attachment; filename="Cafe report.pdf"; filename*=UTF-8''Caf%C3%A9%20report.pdf`, 'report.pdf')).toBe('Café report.pdf');
    expect(filenameFromDisposition(`attachment; filename*=utf-8'en'M%C3%BCller.xlsx`, 'report.xlsx')).toBe('Müller.xlsx');
    expect(filenameFromDisposition('attachment; filename="say \\"hi\\".pdf"', 'report.pdf')).toBe('say "hi".pdf');
  });
  it('falls back to the default when the header is missing, empty or names a path', () => {
    expect(filenameFromDisposition(undefined, 'report.pdf')).toBe('report.pdf');
    expect(filenameFromDisposition('attachment', 'report.xlsx')).toBe('report.xlsx');
    expect(filenameFromDisposition('attachment; filename=""', 'report.pdf')).toBe('report.pdf');
    expect(filenameFromDisposition(`attachment; filename*=UTF-8''%E0%A4%A`, 'report.pdf')).toBe('report.pdf');
    expect(filenameFromDisposition('attachment; filename="../../etc/passwd"', 'report.pdf')).toBe('passwd');
    expect(filenameFromDisposition('attachment; filename=".."', 'report.pdf')).toBe('report.pdf');
  });
});

describe('describeDateRange and formatBytes', () => {
  it('words a range whatever keys it uses', () => {
    expect(describeDateRange({ startDate: '2024-01-01', endDate: '2024-03-31' })).toBe('2024-01-01 to 2024-03-31');
    expect(describeDateRange({ start: '2024-01-01', end: null })).toBe('from 2024-01-01');
    expect(describeDateRange({ earliest: null, latest: '2024-02-01' })).toBe('until 2024-02-01');
    expect(describeDateRange({ startDate: null, endDate: null, label: 'All dates' })).toBe('All dates');
    expect(describeDateRange({})).toBeNull();
    expect(describeDateRange(true)).toBeNull();
    expect(describeDateRange('Last 30 days')).toBe('Last 30 days');
  });
  it('sizes in Bytes, KB, MB, GB', () => {
    expect(formatBytes(0)).toBe('0 Bytes');
    expect(formatBytes(512)).toBe('512 Bytes');
    expect(formatBytes(1536)).toBe('1.5 KB');
    expect(formatBytes(5 * 1024 * 1024)).toBe('5 MB');
    expect(formatBytes(3 * 1024 ** 4)).toBe('3072 GB');
  });
});
