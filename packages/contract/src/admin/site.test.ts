import { describe, expect, it } from 'vitest';
import { SITE_UPLOAD_MESSAGES, checkSiteImageFile } from './site';

describe('checkSiteImageFile', () => {
  it('accepts images up to 5 MB, refuses SVG, other types, empty and larger files', () => {
    expect(checkSiteImageFile({ type: 'image/png', size: 5 * 1024 * 1024 })).toBeNull();
    expect(checkSiteImageFile({ type: 'image/x-icon', size: 1000 })).toBeNull();
    expect(checkSiteImageFile({ type: '', size: 1000, name: 'favicon.ico' })).toBeNull();
    expect(checkSiteImageFile({ type: 'image/png', size: 5 * 1024 * 1024 + 1 })).toBe(
      SITE_UPLOAD_MESSAGES.tooLarge,
    );
    expect(checkSiteImageFile({ type: 'image/svg+xml', size: 100 })).toBe(SITE_UPLOAD_MESSAGES.invalidImage);
    expect(checkSiteImageFile({ type: 'text/html', size: 100, name: 'logo.png' })).toBe(
      SITE_UPLOAD_MESSAGES.invalidImage,
    );
    expect(checkSiteImageFile({ type: '', size: 100, name: 'logo.svg' })).toBe(
      SITE_UPLOAD_MESSAGES.invalidImage,
    );
    expect(checkSiteImageFile({ type: 'image/png', size: 0 })).toBe(SITE_UPLOAD_MESSAGES.invalidImage);
  });
});
