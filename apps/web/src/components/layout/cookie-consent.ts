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
