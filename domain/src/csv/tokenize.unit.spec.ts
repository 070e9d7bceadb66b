import { describe, expect, it } from 'vitest';
import { detectDelimiter, tokenize } from './tokenize';

describe('tokenize', () => {
  it('reads quotes, doubled quotes, CR/LF/CRLF line ends and keeps the starting line of each record', () => {
    const text = 'a,"b ""x"", c",d\r\n1,"two\nlines",3\r4,,\n"unclosed,5,6';
    expect(tokenize(text, ',')).toEqual([
      { line: 1, cells: ['a', 'b "x", c', 'd'] },
      { line: 2, cells: ['1', 'two\nlines', '3'] },
      { line: 4, cells: ['4', '', ''] },
      { line: 5, cells: ['"unclosed', '5', '6'] },
    ]);
  });

  it('keeps text after a closing quote on the same line, and quotes inside unquoted cells', () => {
    expect(tokenize('"ab"c,d"e', ',')).toEqual([{ line: 1, cells: ['abc', 'd"e'] }]);
  });
});

describe('detectDelimiter', () => {
  it('picks the separator that splits lines evenly', () => {
    expect(detectDelimiter('a,b,c\n1,2,3\n').delimiter).toBe(',');
    expect(detectDelimiter('Datum;Text;Betrag\n01.02.2024;Kaffee, gross;-3,50\n02.02.2024;Brot;-2,10\n').delimiter).toBe(';');
    expect(detectDelimiter('Date\tDescription\tAmount\n01/02/2024\tCoffee, large\t-3.50\n').delimiter).toBe('\t');
  });

  it('honours an Excel sep= line, and reports a width of 1 for text that is not split', () => {
    expect(detectDelimiter('sep=;\nA,B;C\n')).toEqual({ delimiter: ';', width: 2, sepLine: true });
    expect(detectDelimiter('just words\nmore words\n').width).toBe(1);
  });
});
