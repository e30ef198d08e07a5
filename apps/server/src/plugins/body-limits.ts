/**
 * Per-route body limits, far below the server-wide 1 MiB: a public form or a login never needs
 * more, and a smaller limit bounds what an anonymous caller can make the server read and validate.
 * A larger body answers 413 "Requête trop volumineuse" before it is parsed.
 */
export const BODY_LIMITS = {
  /** Logins, registration, password forms, invitations, plan selection. */
  form: 16 * 1024,
  /** The contact form: 5000 characters of message, which JSON may escape to 6 bytes each. */
  contact: 64 * 1024,
} as const;
