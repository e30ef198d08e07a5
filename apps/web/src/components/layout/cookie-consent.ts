/**
 * Fired on `window` when the cookie banner's height changes (it appears, resizes or goes): floating
 * buttons placed above it (back-to-top) check again whether they cover a control. The banner and
 * the button load lazily, in either order, so a scroll event cannot be relied on.
 */
export const COOKIE_BANNER_RESIZE_EVENT = 'securering:cookie-banner-resize';

export interface ConsentPreferences {
  necessary: true;
  functional: boolean;
  analytics: boolean;
  marketing: boolean;
}

export const ESSENTIAL_CONSENT: ConsentPreferences = {
  necessary: true,
  functional: false,
  analytics: false,
  marketing: false,
};

export const ALL_CONSENT: ConsentPreferences = {
  necessary: true,
  functional: true,
  analytics: true,
  marketing: true,
};
