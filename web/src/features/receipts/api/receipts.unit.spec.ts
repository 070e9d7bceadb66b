import { describe, expect, it } from 'vitest';
import { formatFileSize, resolveUploadUrl, typeOf } from './receipts';

describe('receipt helpers', () => {
  it('shows sizes in Bytes, KB, MB, GB', () => {
    expect(formatFileSize(0)).toBe('0 Bytes');
    expect(formatFileSize(512)).toBe('512 Bytes');
    expect(formatFileSize(1536)).toBe('1.5 KB');
    expect(formatFileSize(10 * 1024 * 1024)).toBe('10 MB');
    expect(formatFileSize(3 * 1024 ** 3)).toBe('3 GB');
  });
  it('puts presigned uploads on the API origin', () => {
    expect(resolveUploadUrl('/api/receipts/direct/t', '/api', 'http://localhost:3000')).toBe('http://localhost:3000/api/receipts/direct/t');
    expect(resolveUploadUrl('/api/receipts/direct/t', 'https://api.example.com/api', 'http://localhost:5173')).toBe('https://api.example.com/api/receipts/direct/t');
    expect(resolveUploadUrl('https://files.example.com/x', '/api', 'http://h')).toBe('https://files.example.com/x');
  });
  it('sends a file without a type as generic binary', () => {
    expect(typeOf(new File(['x'], 'a.jpg'))).toBe('application/octet-stream');
    expect(typeOf(new File(['x'], 'a.png', { type: 'image/png' }))).toBe('image/png');
  });
});
