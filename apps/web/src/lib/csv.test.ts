import { describe, expect, it } from 'vitest';
import { toCsv } from './csv';

const BOM = '\uFEFF';

describe('toCsv', () => {
  it('starts with a UTF-8 BOM, separates with ";" and ends lines with CRLF', () => {
    const csv = toCsv(
      ['Date', 'Messages'],
      [
        ['2026-11-21', 2],
        ['2026-11-22', 3],
      ],
    );
    expect(csv).toBe(`${BOM}Date;Messages\r\n2026-11-21;2\r\n2026-11-22;3\r\n`);
    expect(csv.charCodeAt(0)).toBe(0xfeff);
  });

  it('gives only the header line when there are no rows', () => {
    expect(toCsv(['Date', 'Appels'], [])).toBe(`${BOM}Date;Appels\r\n`);
  });

  it('quotes fields holding the separator and doubles their quotes', () => {
    expect(toCsv(['Nom'], [['a;b'], ['dit "bonjour"'], ['"']])).toBe(
      `${BOM}Nom\r\n"a;b"\r\n"dit ""bonjour"""\r\n""""\r\n`,
    );
  });

  it('keeps newlines inside quoted fields', () => {
    expect(toCsv(['Note'], [['ligne 1\nligne 2'], ['a\r\nb'], ['fin\r']])).toBe(
      `${BOM}Note\r\n"ligne 1\nligne 2"\r\n"a\r\nb"\r\n"fin\r"\r\n`,
    );
  });

  it("keeps text cells that start like a formula as text (a leading ')", () => {
    expect(toCsv(['Texte'], [['=HYPERLINK("x")'], ['+33 6'], ['-1'], ['@SUM(A1)'], ['\t=1'], ['a=b']])).toBe(
      `${BOM}Texte\r\n"'=HYPERLINK(""x"")"\r\n'+33 6\r\n'-1\r\n'@SUM(A1)\r\n'\t=1\r\na=b\r\n`,
    );
    // Numbers stay numbers.
    expect(toCsv(['N'], [[-1]])).toBe(`${BOM}N\r\n-1\r\n`);
  });

  it('leaves commas, accents and spaces alone', () => {
    expect(toCsv(['Libellé'], [['1,5 Go'], ['  Équipe  ']])).toBe(
      `${BOM}Libellé\r\n1,5 Go\r\n  Équipe  \r\n`,
    );
  });

  it('writes null as an empty field and numbers as they are', () => {
    expect(toCsv(['A', 'B', 'C'], [[null, 0, -1.5]])).toBe(`${BOM}A;B;C\r\n;0;-1.5\r\n`);
    expect(toCsv(['A', 'B'], [[null, null]])).toBe(`${BOM}A;B\r\n;\r\n`);
  });

  it('quotes headers too', () => {
    expect(toCsv(['Date;jour', 'Messages'], [])).toBe(`${BOM}"Date;jour";Messages\r\n`);
  });
});
