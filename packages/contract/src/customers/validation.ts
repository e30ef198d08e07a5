/**
 * The account rules of spec 1 §5 as pure functions: the register wizard, the contact form and the
 * server all run these, so the messages match word for word.
 */

/** RFC 5321 path limit; longer input is refused before any other check runs. */
export const EMAIL_MAX_LENGTH = 254;
export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_LENGTH = 200;
export const CONTACT_MESSAGE_MIN_LENGTH = 10;
export const CONTACT_MESSAGE_MAX_LENGTH = 5000;

export const ACCOUNT_MESSAGES = {
  emailRequired: 'Email requis',
  emailInvalid: 'Email invalide',
  firstNameRequired: 'Prénom requis',
  lastNameRequired: 'Nom requis',
  passwordRequired: 'Mot de passe requis',
  passwordTooShort: 'Mot de passe trop court (8 min)',
  passwordUppercase: 'Mot de passe\u202f: 1 majuscule requise',
  passwordDigit: 'Mot de passe\u202f: 1 chiffre requis',
  passwordMismatch: 'Les mots de passe ne correspondent pas',
  passwordCommon: 'Ce mot de passe est trop courant\u202f: choisissez-en un plus difficile à deviner',
  acceptanceRequired: 'Vous devez accepter les conditions générales et la politique de confidentialité',
  fillAllFields: 'Veuillez remplir tous les champs',
  enterEmail: 'Veuillez entrer votre adresse email',
  invalidLink: 'Lien invalide',
  verificationTokenMissing: 'Token de vérification manquant',
  verificationLinkInvalid: 'Lien de vérification invalide ou expiré',
  verificationLinkUsed: 'Ce lien de vérification a déjà été utilisé. Connectez-vous.',
  resetLinkInvalid: 'Lien de réinitialisation invalide ou expiré',
  loginFailed: 'Email ou mot de passe incorrect',
  autoLoginFailed: 'Connexion automatique impossible. Connectez-vous avec votre mot de passe.',
  accountDisabled: 'Compte désactivé',
  registered: 'Compte créé avec succès\u202f! Vérifiez votre email.',
  resendNeutral:
    'Si un compte non vérifié existe pour cette adresse, un nouvel email de vérification a été envoyé.',
  forgotNeutral: 'Si un compte existe pour cette adresse, un email de réinitialisation a été envoyé.',
  passwordReset: 'Votre mot de passe a été réinitialisé. Vous pouvez vous connecter.',
  emailVerified: 'Votre adresse email est vérifiée.',
} as const;

export const CONTACT_MESSAGES = {
  nameRequired: 'Le nom est requis',
  emailInvalid: 'Email invalide',
  subjectRequired: 'Le sujet est requis',
  messageTooShort: 'Le message doit contenir au moins 10 caractères',
  sent: 'Message envoyé',
} as const;

/**
 * `local@domain.tld` without spaces and with exactly one `@`: what the old
 * `/^[^\s@]+@[^\s@]+\.[^\s@]+$/` accepted, checked in one pass. The length is checked first, so
 * the cost is bounded whatever the caller sends (that pattern backtracked quadratically: 6 s of
 * event loop for a 120 kB address).
 */
export function isEmailAddress(value: string): boolean {
  if (value.length === 0 || value.length > EMAIL_MAX_LENGTH) return false;
  if (/\s/.test(value)) return false;
  const at = value.indexOf('@');
  if (at < 1 || at !== value.lastIndexOf('@')) return false;
  const domain = value.slice(at + 1);
  // A dot with at least one character on each side.
  const dot = domain.indexOf('.', 1);
  return dot > 0 && dot < domain.length - 1;
}

/** Lower-cased and trimmed: emails are unique case-insensitively. */
export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

export function emailError(email: string): string | undefined {
  const value = email.trim();
  if (!value) return ACCOUNT_MESSAGES.emailRequired;
  if (!isEmailAddress(value)) return ACCOUNT_MESSAGES.emailInvalid;
  return undefined;
}

/** The first broken password rule, in the order of the specification. */
export function passwordError(password: string): string | undefined {
  if (!password) return ACCOUNT_MESSAGES.passwordRequired;
  if (password.length < PASSWORD_MIN_LENGTH) return ACCOUNT_MESSAGES.passwordTooShort;
  if (!/[A-Z]/.test(password)) return ACCOUNT_MESSAGES.passwordUppercase;
  if (!/[0-9]/.test(password)) return ACCOUNT_MESSAGES.passwordDigit;
  return undefined;
}

export interface AccountStepValues {
  email: string;
  first_name: string;
  last_name: string;
  password: string;
  confirm_password: string;
}

export type FieldErrors<K extends string> = Partial<Record<K, string>>;

/** Step 1 of the register wizard: one message per field. */
export function validateAccountStep(values: AccountStepValues): FieldErrors<keyof AccountStepValues> {
  const errors: FieldErrors<keyof AccountStepValues> = {};
  const email = emailError(values.email);
  if (email) errors.email = email;
  if (!values.first_name.trim()) errors.first_name = ACCOUNT_MESSAGES.firstNameRequired;
  if (!values.last_name.trim()) errors.last_name = ACCOUNT_MESSAGES.lastNameRequired;
  const password = passwordError(values.password);
  if (password) errors.password = password;
  else if (values.password !== values.confirm_password)
    errors.confirm_password = ACCOUNT_MESSAGES.passwordMismatch;
  return errors;
}

/** Step 3: both acceptances. */
export function acceptanceError(acceptTerms: boolean, acceptPrivacy: boolean): string | undefined {
  return acceptTerms && acceptPrivacy ? undefined : ACCOUNT_MESSAGES.acceptanceRequired;
}

export interface ContactValues {
  name: string;
  email: string;
  subject: string;
  message: string;
}

export function validateContact(values: ContactValues): FieldErrors<keyof ContactValues> {
  const errors: FieldErrors<keyof ContactValues> = {};
  if (!values.name.trim()) errors.name = CONTACT_MESSAGES.nameRequired;
  if (!isEmailAddress(values.email.trim())) errors.email = CONTACT_MESSAGES.emailInvalid;
  if (!values.subject.trim()) errors.subject = CONTACT_MESSAGES.subjectRequired;
  if (values.message.trim().length < CONTACT_MESSAGE_MIN_LENGTH)
    errors.message = CONTACT_MESSAGES.messageTooShort;
  return errors;
}
