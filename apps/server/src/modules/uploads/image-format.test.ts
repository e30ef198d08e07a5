import { describe, expect, it } from 'vitest';
import { UPLOAD_NAME_RE, contentTypeOf, detectImageFormat } from './image-format';

const ico = () => {
  const buf = Buffer.alloc(40);
  buf.writeUInt16LE(0, 0);
  buf.writeUInt16LE(1, 2);
  buf.writeUInt16LE(1, 4);
  buf.writeUInt32LE(18, 14);
  buf.writeUInt32LE(22, 18);
  return buf;
};

describe('detectImageFormat', () => {
  it('recognises PNG, JPEG, GIF, WEBP and ICO by their first bytes', () => {
    expect(detectImageFormat(Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'))).toBe('png');
    expect(detectImageFormat(Buffer.from('ffd8ffe000104a464946', 'hex'))).toBe('jpg');
    expect(detectImageFormat(Buffer.from('GIF89a\x01\x00', 'latin1'))).toBe('gif');
    expect(detectImageFormat(Buffer.from('RIFF\x10\x00\x00\x00WEBPVP8 ', 'latin1'))).toBe('webp');
    expect(detectImageFormat(ico())).toBe('ico');
  });

  it('refuses SVG, HTML, text, cursors and truncated headers', () => {
    expect(
      detectImageFormat(
        Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'),
      ),
    ).toBeUndefined();
    expect(detectImageFormat(Buffer.from('<!doctype html><html><script>alert(1)</script>'))).toBeUndefined();
    expect(detectImageFormat(Buffer.from('hello'))).toBeUndefined();
    expect(detectImageFormat(Buffer.from('89504e47', 'hex'))).toBeUndefined();
    expect(detectImageFormat(Buffer.from('RIFF\x10\x00\x00\x00WAVEfmt ', 'latin1'))).toBeUndefined();
    const cursor = ico();
    cursor.writeUInt16LE(2, 2);
    expect(detectImageFormat(cursor)).toBeUndefined();
    expect(detectImageFormat(Buffer.alloc(0))).toBeUndefined();
  });
});

describe('upload names', () => {
  it('accepts only generated names and maps them to a Content-Type', () => {
    expect(UPLOAD_NAME_RE.test('logo-AbC_12-x.png')).toBe(true);
    expect(UPLOAD_NAME_RE.test('favicon-abc.ico')).toBe(true);
    for (const bad of [
      '../secret.png',
      'logo-abc.svg',
      'logo.png',
      'Logo-abc.png',
      'logo-a.b.png',
      'logo-abc.png.html',
    ]) {
      expect(UPLOAD_NAME_RE.test(bad)).toBe(false);
    }
    expect(contentTypeOf('logo-x.jpg')).toBe('image/jpeg');
    expect(contentTypeOf('favicon-x.ico')).toBe('image/x-icon');
    expect(contentTypeOf('x.svg')).toBeUndefined();
  });
});
