import { z } from 'zod';
import { successOf, zLooseBoolean } from '../common';
import { EMAIL_MAX_LENGTH, isEmailAddress } from '../customers/validation';

/** Kinds of template the Emails tab shows as a badge (spec 3 §2.5). */
export const EMAIL_TEMPLATE_KINDS = ['welcome', 'payment', 'reminder', 'password_reset'] as const;
export type EmailTemplateKind = (typeof EMAIL_TEMPLATE_KINDS)[number];

export const EMAIL_TEMPLATE_KIND_LABELS: Record<EmailTemplateKind, string> = {
  welcome: 'Bienvenue',
  payment: 'Paiement',
  reminder: 'Rappel',
  password_reset: 'Mot de passe',
};

/** The kind is inferred from the name: welcome, payment or reminder, otherwise password reset. */
export function emailTemplateKindOf(name: string): EmailTemplateKind {
  const lower = name.toLowerCase();
  if (lower.includes('welcome')) return 'welcome';
  if (lower.includes('payment')) return 'payment';
  if (lower.includes('reminder')) return 'reminder';
  return 'password_reset';
}

/** The French names of the templates the server sends (their technical names stay the API's). */
export const EMAIL_TEMPLATE_TITLES: Record<string, string> = {
  welcome_verification: 'Bienvenue et vérification de l’email',
  password_reset: 'Réinitialisation du mot de passe',
  account_exists: 'Compte déjà existant',
  payment_confirmation: 'Confirmation de paiement',
  payment_failed: 'Échec de paiement',
  subscription_reminder: 'Rappel de fin d’abonnement',
  contact_acknowledgement: 'Accusé de réception d’un message de contact',
  contact_notification: 'Nouveau message de contact (équipe)',
  ring_invitation: 'Invitation à rejoindre un Ring',
};

/** A template's name for people: its French title, else its technical name made readable. */
export function emailTemplateTitle(name: string): string {
  const known = EMAIL_TEMPLATE_TITLES[name];
  if (known) return known;
  const words = name.replace(/[_.-]+/g, ' ').trim();
  return words ? words.charAt(0).toUpperCase() + words.slice(1) : name;
}

/**
 * The kind badge a template deserves: its inferred kind, except "Mot de passe" on a template whose
 * name says nothing of a password (an invitation, a contact acknowledgement…): no badge then.
 */
export function emailTemplateBadgeKind(name: string): EmailTemplateKind | null {
  const kind = emailTemplateKindOf(name);
  return kind === 'password_reset' && !/password|reset|mot.?de.?passe/i.test(name) ? null : kind;
}

/** Size caps of a template, checked by the server and shown by the editor. */
export const EMAIL_TEMPLATE_LIMITS = {
  name: 100,
  subject: 500,
  bodyHtml: 200_000,
  bodyText: 100_000,
  variables: 50,
  variableName: 64,
} as const;

/** Rows of the HTML editor (spec 3 §9). */
export const EMAIL_TEMPLATE_EDITOR_ROWS = 10;

export const EMAIL_MESSAGES = {
  subjectRequired: 'Sujet requis',
  subjectTooLong: `Sujet\u202f: ${EMAIL_TEMPLATE_LIMITS.subject} caractères maximum`,
  htmlRequired: 'Contenu HTML requis',
  htmlTooLong: 'Contenu HTML trop long',
  textTooLong: 'Version texte trop longue',
  nameRequired: 'Nom du modèle requis',
  nameInvalid: 'Nom du modèle\u202f: lettres, chiffres, point, tiret ou souligné',
  variableInvalid: 'Variable invalide\u202f: lettres, chiffres et soulignés uniquement',
  tooManyVariables: `${EMAIL_TEMPLATE_LIMITS.variables} variables maximum`,
  templateRequired: 'Modèle requis',
  templateNotFound: 'Modèle introuvable',
  defaultNotFound: 'Modèle par défaut introuvable',
  nameTaken: 'Un modèle porte déjà ce nom',
  defaultNameLocked: 'Le nom d’un modèle par défaut ne peut pas être modifié',
  unknownAction: 'Action inconnue',
  created: 'Modèle créé',
  saved: 'Modèle enregistré',
  emailRequired: 'Email requis',
  emailInvalid: 'Email invalide',
  smtpHostRequired: 'Serveur SMTP requis',
  smtpPortInvalid: 'Port SMTP invalide',
  smtpEncryptionInvalid: 'Chiffrement invalide',
  smtpFromInvalid: 'Email d’expédition invalide',
  testFailedPrefix: 'Impossible d’envoyer l’email de test\u202f: ',
  // Why a test failed, without the server's raw text (which would describe the network probed).
  smtpUnreachable: 'Serveur SMTP injoignable',
  smtpAuthRefused: 'Identifiants SMTP refusés',
  smtpSendRefused: 'Envoi refusé par le serveur SMTP',
} as const;

/** "Template {name} restauré." (spec 3 §8). */
export const templateRestoredMessage = (name: string) => `Template ${name} restauré.`;
/** "Email de test envoyé à …" */
export const testEmailSentMessage = (email: string) => `Email de test envoyé à ${email}`;

export const ZEmailTemplate = z.object({
  id: z.string(),
  name: z.string(),
  subject: z.string(),
  body_html: z.string(),
  body_text: z.string(),
  variables: z.array(z.string()),
  is_active: z.boolean(),
  updated_at: z.string(),
  kind: z.enum(EMAIL_TEMPLATE_KINDS),
});
export type TEmailTemplate = z.infer<typeof ZEmailTemplate>;

/** GET /api/admin/email-templates.php */
export const ZEmailTemplatesResponse = successOf({
  data: z.array(ZEmailTemplate),
  meta: z.object({ total: z.number().int() }),
});
export type TEmailTemplatesResponse = z.infer<typeof ZEmailTemplatesResponse>;

const variableName = z
  .string()
  .trim()
  .min(1, EMAIL_MESSAGES.variableInvalid)
  .max(EMAIL_TEMPLATE_LIMITS.variableName, EMAIL_MESSAGES.variableInvalid)
  .regex(/^[A-Za-z0-9_]+$/, EMAIL_MESSAGES.variableInvalid);

/** Variables as a list, or as the comma-separated text old clients send; duplicates dropped. */
const zVariables = z
  .union([
    z.array(z.string()),
    z.string().transform((s) =>
      s
        .split(',')
        .map((v) => v.trim())
        .filter(Boolean),
    ),
  ])
  .pipe(z.array(variableName).max(EMAIL_TEMPLATE_LIMITS.variables, EMAIL_MESSAGES.tooManyVariables))
  .transform((list) => [...new Set(list)]);

const templateName = z
  .string({ message: EMAIL_MESSAGES.nameRequired })
  .trim()
  .min(1, EMAIL_MESSAGES.nameRequired)
  .max(EMAIL_TEMPLATE_LIMITS.name, EMAIL_MESSAGES.nameInvalid)
  .regex(/^[A-Za-z0-9._-]+$/, EMAIL_MESSAGES.nameInvalid);

const templateContent = {
  subject: z
    .string({ message: EMAIL_MESSAGES.subjectRequired })
    .trim()
    .min(1, EMAIL_MESSAGES.subjectRequired)
    .max(EMAIL_TEMPLATE_LIMITS.subject, EMAIL_MESSAGES.subjectTooLong),
  body_html: z
    .string({ message: EMAIL_MESSAGES.htmlRequired })
    .refine((s) => s.trim().length > 0, EMAIL_MESSAGES.htmlRequired)
    .refine((s) => s.length <= EMAIL_TEMPLATE_LIMITS.bodyHtml, EMAIL_MESSAGES.htmlTooLong),
  body_text: z
    .string()
    .max(EMAIL_TEMPLATE_LIMITS.bodyText, EMAIL_MESSAGES.textTooLong)
    .nullish()
    .transform((s) => s ?? ''),
  /** Omitted: derived from the placeholders the template uses. */
  variables: zVariables.optional(),
  is_active: zLooseBoolean.optional(),
};

/** PUT /api/admin/email-templates.php — edits an existing template (the name of a seeded one stays). */
export const ZUpdateEmailTemplateRequest = z.object({
  id: z
    .union([z.string(), z.number()], { message: EMAIL_MESSAGES.templateRequired })
    .transform((v) => String(v).trim())
    .pipe(z.string().min(1, EMAIL_MESSAGES.templateRequired).max(64)),
  name: templateName.optional(),
  ...templateContent,
});
export type TUpdateEmailTemplateRequest = z.input<typeof ZUpdateEmailTemplateRequest>;

/** POST /api/admin/email-templates.php without action — a brand-new template. */
export const ZCreateEmailTemplateRequest = z.object({ name: templateName, ...templateContent });
export type TCreateEmailTemplateRequest = z.input<typeof ZCreateEmailTemplateRequest>;

/** POST /api/admin/email-templates.php {action: 'reset_default', name} */
export const ZResetEmailTemplateRequest = z.object({
  action: z.literal('reset_default'),
  name: z
    .string({ message: EMAIL_MESSAGES.templateRequired })
    .trim()
    .min(1, EMAIL_MESSAGES.templateRequired)
    .max(100),
});
export type TResetEmailTemplateRequest = z.input<typeof ZResetEmailTemplateRequest>;

export const ZEmailTemplateSavedResponse = successOf({ data: ZEmailTemplate, message: z.string() });
export type TEmailTemplateSavedResponse = z.infer<typeof ZEmailTemplateSavedResponse>;

export const ZResetEmailTemplateResponse = successOf({
  message: z.string(),
  data: ZEmailTemplate.optional(),
});

export const SMTP_ENCRYPTIONS = ['tls', 'ssl', 'none'] as const;
export type SmtpEncryption = (typeof SMTP_ENCRYPTIONS)[number];
export const SMTP_ENCRYPTION_LABELS: Record<SmtpEncryption, string> = {
  tls: 'TLS (STARTTLS)',
  ssl: 'SSL',
  none: 'Aucun',
};
/** SMTP default port (spec 3 §9). */
export const SMTP_DEFAULT_PORT = 587;

/** The SMTP values of the test form; a password equal to SECRET_MARKER means "the stored one". */
export const ZEmailTestSmtp = z.object({
  host: z.string().trim().max(255).optional(),
  port: z
    .union([z.number(), z.string()])
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || (typeof v === 'string' && v.trim() === '')) return undefined;
      const n = Number(v);
      if (!Number.isInteger(n) || n < 1 || n > 65535) {
        ctx.addIssue({ code: 'custom', message: EMAIL_MESSAGES.smtpPortInvalid });
        return z.NEVER;
      }
      return n;
    }),
  username: z.string().max(255).optional(),
  password: z.string().max(4000).optional(),
  encryption: z.enum(SMTP_ENCRYPTIONS, { message: EMAIL_MESSAGES.smtpEncryptionInvalid }).optional(),
  from_email: z
    .string()
    .trim()
    .max(254)
    .refine((s) => s === '' || isEmailAddress(s), EMAIL_MESSAGES.smtpFromInvalid)
    .optional(),
  from_name: z.string().trim().max(200).optional(),
});

/** POST /api/admin/email-test.php — without smtp, the stored settings are used. */
export const ZEmailTestRequest = z.object({
  email: z
    .string({ message: EMAIL_MESSAGES.emailRequired })
    .trim()
    .min(1, EMAIL_MESSAGES.emailRequired)
    .max(EMAIL_MAX_LENGTH, { message: EMAIL_MESSAGES.emailInvalid, abort: true })
    .refine(isEmailAddress, EMAIL_MESSAGES.emailInvalid),
  smtp: ZEmailTestSmtp.optional(),
});
export type TEmailTestRequest = z.input<typeof ZEmailTestRequest>;

export const ZEmailTestResponse = successOf({ message: z.string() });

/** `{{ name }}` placeholders; names are letters, digits and underscores. */
const PLACEHOLDER = /\{\{\s*([a-zA-Z0-9_]+)\s*\}\}/g;

/** Sample values for a preview: known names get a realistic French value, others their own name. */
export function sampleTemplateVariables(
  names: readonly string[],
  siteName = 'SecureRing',
): Record<string, string> {
  const known: Record<string, string> = {
    first_name: 'Camille',
    name: 'Camille Durand',
    username: 'camille',
    email: 'camille@example.com',
    site_name: siteName,
    site_url: 'https://www.example.com',
    plan_name: 'Business',
    amount: '29,99 €',
    billing_cycle: 'mensuel',
    reference: 'PAY-2026-0001',
    expires_at: '31 décembre 2026',
    reason: 'carte refusée',
    subject: 'Demande d’information',
    message: 'Bonjour, ceci est un message d’exemple.',
    ring_name: 'Équipe produit',
    inviter_name: 'Alex Martin',
    invite_code: 'ABCD-1234',
  };
  const out: Record<string, string> = {};
  for (const name of names) {
    if (Object.hasOwn(known, name)) out[name] = known[name]!;
    else if (name.endsWith('_url')) out[name] = `https://www.example.com/${name.replace(/_url$/, '')}`;
    else out[name] = `[${name}]`;
  }
  return out;
}

/** The `{{name}}` placeholders of some texts, in order of first use. */
export function templatePlaceholders(...sources: string[]): string[] {
  const names = new Set<string>();
  for (const source of sources)
    for (const match of source.matchAll(PLACEHOLDER)) names.add(match[1] as string);
  return [...names];
}

export function escapeHtml(value: string): string {
  return value
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

export type TemplateVariables = Record<string, string | number | null | undefined>;

/**
 * Replaces placeholders, for the server's mails and the back-office preview alike: unknown, null
 * and undefined names become empty; `html` escapes values for an HTML body.
 */
export function renderTemplate(source: string, variables: TemplateVariables, mode: 'html' | 'text'): string {
  return source.replace(PLACEHOLDER, (_match, name: string) => {
    // hasOwn: a placeholder such as {{constructor}} is unknown, not an Object.prototype member.
    const value = Object.hasOwn(variables, name) ? variables[name] : undefined;
    if (value === null || value === undefined) return '';
    const text = String(value);
    return mode === 'html' ? escapeHtml(text) : text;
  });
}
