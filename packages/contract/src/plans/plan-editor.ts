/**
 * The plan editor rules of the back office (spec 3 §5), as pure functions shared by the admin
 * console (live validation, feature lines kept in sync) and the server (the same rules on save).
 */
import { ENCRYPTION_LEVELS, type EncryptionLevel, type SupportLevel } from '../constants';

/** Base 1024: 1 Go = 1 GiB, 1 To = 1 TiB (spec 3 §9). */
export const PLAN_GIB = 1024 ** 3;
export const PLAN_TIB = 1024 ** 4;
/** Disk space never goes below 1 Go. */
export const PLAN_MIN_STORAGE_BYTES = PLAN_GIB;
/** Upper bound against typing mistakes (1 024 To). */
export const PLAN_MAX_STORAGE_BYTES = 1024 * PLAN_TIB;
export const PLAN_MAX_PRICE_EUROS = 100_000;
export const PLAN_NAME_MAX = 100;
export const PLAN_FEATURE_MAX = 200;
export const PLAN_FEATURES_MAX_COUNT = 50;

export const PLAN_DISK_UNITS = ['Go', 'To'] as const;
export type PlanDiskUnit = (typeof PLAN_DISK_UNITS)[number];

export const PLAN_EDITOR_MESSAGES = {
  diskValueRequired: 'Valeur requise (entier ≥ 1)',
  diskInvalid: 'Espace disque invalide',
  nameRequired: 'Nom du plan requis',
  nameTooLong: `Nom du plan\u202f: ${PLAN_NAME_MAX} caractères maximum`,
  priceInvalid: 'Prix invalide (nombre positif, ex. 9,90)',
  videoOptionInvalid: 'Option vidéo invalide (nombre positif, ex. 4,90)',
  encryptionRequired: 'Sélectionnez au moins un niveau de chiffrement',
  featureTooLong: `Chaque fonctionnalité\u202f: ${PLAN_FEATURE_MAX} caractères maximum`,
  tooManyFeatures: `${PLAN_FEATURES_MAX_COUNT} fonctionnalités maximum`,
} as const;

/** Feature-line wording of each encryption level (the editor's 'Chiffrement …' line). */
export const PLAN_ENCRYPTION_FEATURE_LABELS: Record<EncryptionLevel, string> = {
  basic: 'Basic',
  standard: 'Standard',
  high: 'Élevé',
  military: 'Militaire',
};

// ---------------------------------------------------------------------------------------------
// Disk space
// ---------------------------------------------------------------------------------------------

/**
 * Live check of the editor's disk field: an integer of at least 1 (the unit is Go or To), at most
 * 1 024 To. Returns the French error, or null when valid.
 */
export function validateDiskEditorValue(value: string, unit: PlanDiskUnit = 'Go'): string | null {
  const text = value.trim();
  if (!/^\d+$/.test(text) || Number(text) < 1) return PLAN_EDITOR_MESSAGES.diskValueRequired;
  const bytes = Number(text) * (unit === 'To' ? PLAN_TIB : PLAN_GIB);
  return bytes > PLAN_MAX_STORAGE_BYTES ? PLAN_EDITOR_MESSAGES.diskInvalid : null;
}

/** The editor's disk field in bytes, or null while the value is invalid. */
export function diskEditorToBytes(value: string, unit: PlanDiskUnit): number | null {
  if (validateDiskEditorValue(value, unit) !== null) return null;
  return Number(value.trim()) * (unit === 'To' ? PLAN_TIB : PLAN_GIB);
}

/**
 * Bytes to the editor's integer + unit: whole To when the size is a whole number of To, otherwise
 * Go (rounded, at least 1).
 */
export function bytesToDiskEditor(bytes: number): { value: string; unit: PlanDiskUnit } {
  if (!Number.isFinite(bytes) || bytes < PLAN_GIB) return { value: '1', unit: 'Go' };
  if (bytes >= PLAN_TIB && bytes % PLAN_TIB === 0) return { value: String(bytes / PLAN_TIB), unit: 'To' };
  return { value: String(Math.max(1, Math.round(bytes / PLAN_GIB))), unit: 'Go' };
}

const DISK_UNIT_BYTES: Record<string, number> = {
  b: 1,
  o: 1,
  kb: 1024,
  ko: 1024,
  mb: 1024 ** 2,
  mo: 1024 ** 2,
  gb: PLAN_GIB,
  go: PLAN_GIB,
  tb: PLAN_TIB,
  to: PLAN_TIB,
};

/**
 * Disk space text as saved ("500 Go", "1,5 To", "2TB", "1024 mb", a bare number meaning Go) to
 * bytes, base 1024, raised to the 1 Go minimum. Null when it is not a size (or absurdly large).
 */
export function parseDiskSpace(text: string | number): number | null {
  const raw = (typeof text === 'number' ? `${text}` : text).trim();
  // Trimmed first and bounded: `\s*` on both sides of an optional unit backtracked quadratically.
  if (raw.length > 40) return null;
  const match = /^(\d+(?:[.,]\d+)?)\s*([a-zA-Z]{1,2})?$/.exec(raw);
  if (!match?.[1]) return null;
  const amount = Number(match[1].replace(',', '.'));
  const unit = (match[2] ?? 'go').toLowerCase();
  const factor = DISK_UNIT_BYTES[unit];
  if (factor === undefined || !Number.isFinite(amount)) return null;
  const bytes = Math.round(amount * factor);
  if (bytes > PLAN_MAX_STORAGE_BYTES) return null;
  return Math.max(PLAN_MIN_STORAGE_BYTES, bytes);
}

function frenchNumber(value: number): string {
  const rounded = Math.round(value * 100) / 100;
  return String(rounded).replace('.', ',');
}

/** Bytes for people: To from 1 To up, otherwise Go ("500 Go", "1 To", "1,5 To"). */
export function formatDiskSpace(bytes: number): string {
  if (bytes >= PLAN_TIB) return `${frenchNumber(bytes / PLAN_TIB)} To`;
  return `${frenchNumber(Math.max(bytes, 0) / PLAN_GIB)} Go`;
}

// ---------------------------------------------------------------------------------------------
// Numbers
// ---------------------------------------------------------------------------------------------

/** Max users / max Rings: empty means unlimited (-1), otherwise the integer, 1 when unreadable. */
export function parsePlanLimit(value: string | number | null | undefined): number {
  if (value === null || value === undefined) return -1;
  const text = String(value).trim();
  if (text === '') return -1;
  const n = Number.parseInt(text, 10);
  if (!Number.isFinite(n) || n === 0) return 1;
  return n < 0 ? -1 : n;
}

/** True when the text is a decimal number (comma or point), empty counting as 0. */
export function isPlanDecimal(value: string | number | null | undefined): boolean {
  if (value === null || value === undefined) return true;
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0;
  const text = value.trim();
  return text === '' || /^\d+(?:[.,]\d{1,2})?$/.test(text);
}

/** Price or video option: a decimal (comma allowed) in euros, 0 when empty or unreadable. */
export function parsePlanDecimal(value: string | number | null | undefined): number {
  if (value === null || value === undefined) return 0;
  const n = typeof value === 'number' ? value : Number(value.trim().replace(',', '.'));
  return Number.isFinite(n) && n >= 0 ? Math.round(n * 100) / 100 : 0;
}

// ---------------------------------------------------------------------------------------------
// Feature lines
// ---------------------------------------------------------------------------------------------

/**
 * Kinds of feature lines, in display priority. `files` (file sharing) is not named by the spec;
 * it sits between video and disk space as in the seeded plans. Unknown lines come after all,
 * alphabetically.
 */
export const PLAN_FEATURE_KINDS = [
  'encryption',
  'rings',
  'chat',
  'ephemeral',
  'voice',
  'video',
  'files',
  'disk',
  'audit',
  'analytics',
  'priority_support',
] as const;
export type PlanFeatureKind = (typeof PLAN_FEATURE_KINDS)[number];

/** Lines a switch of the editor adds or removes, with their wording. */
export const PLAN_TOGGLE_FEATURES = {
  ephemeral: 'Messages éphémères',
  audit: 'Journal d’audit',
  analytics: 'Tableau de bord analytique',
  priority_support: 'Support prioritaire',
  chat: 'Chat sécurisé',
  voice: 'Appels vocaux',
  video: 'Visioconférence',
} as const satisfies Partial<Record<PlanFeatureKind, string>>;
export type PlanToggleFeature = keyof typeof PLAN_TOGGLE_FEATURES;

function fold(text: string): string {
  return text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase();
}

/** Recognises a line by its prefix or keyword; null for a free-text line. */
export function planFeatureKind(line: string): PlanFeatureKind | null {
  const t = fold(line.trim());
  if (/^chiffrement\b/.test(t)) return 'encryption';
  if (/^rings?\s*:/.test(t)) return 'rings';
  if (/^espace disque\b/.test(t)) return 'disk';
  if (/ephemere/.test(t)) return 'ephemeral';
  if (/\baudit\b/.test(t)) return 'audit';
  if (/\banalyti[cq]/.test(t)) return 'analytics';
  if (/^support prioritaire\b/.test(t)) return 'priority_support';
  if (/visio|\bvideo/.test(t)) return 'video';
  if (/appels? voca|\bvocal/.test(t)) return 'voice';
  if (/partage de fichiers|^fichiers\b/.test(t)) return 'files';
  if (/\bchat\b/.test(t)) return 'chat';
  return null;
}

function priorityOf(line: string): number {
  const kind = planFeatureKind(line);
  return kind === null ? PLAN_FEATURE_KINDS.length : PLAN_FEATURE_KINDS.indexOf(kind);
}

/** Orders lines by fixed priority, then alphabetically in French. */
export function comparePlanFeatures(a: string, b: string): number {
  return priorityOf(a) - priorityOf(b) || a.localeCompare(b, 'fr');
}

/**
 * Feature lines as saved: trimmed, empty lines and duplicates (ignoring case) removed, sorted by
 * priority (encryption, Rings, chat, ephemeral, voice, video, disk, audit, analytics, support)
 * then alphabetically in French.
 */
export function normalizePlanFeatures(lines: readonly string[]): string[] {
  const seen = new Set<string>();
  const kept: string[] = [];
  for (const raw of lines) {
    const line = raw.replace(/\s+/g, ' ').trim();
    if (!line) continue;
    const key = line.toLocaleLowerCase('fr');
    if (seen.has(key)) continue;
    seen.add(key);
    kept.push(line);
  }
  return kept.sort(comparePlanFeatures);
}

/** Textarea content (one feature a line) to lines. */
export function planFeaturesFromText(text: string): string[] {
  return text.split(/\r?\n/);
}

/** The highest selected encryption level, or null when none is selected. */
export function highestEncryptionLevel(levels: readonly EncryptionLevel[]): EncryptionLevel | null {
  for (let i = ENCRYPTION_LEVELS.length - 1; i >= 0; i--) {
    const level = ENCRYPTION_LEVELS[i]!;
    if (levels.includes(level)) return level;
  }
  return null;
}

/** "Rings: 3" or "Rings: Illimités". */
export function ringsFeatureLine(maxRings: number): string {
  return `Rings: ${maxRings < 0 ? 'Illimités' : maxRings}`;
}

/** "Chiffrement Militaire" for the highest level, null when no level is selected. */
export function encryptionFeatureLine(levels: readonly EncryptionLevel[]): string | null {
  const top = highestEncryptionLevel(levels);
  return top ? `Chiffrement ${PLAN_ENCRYPTION_FEATURE_LABELS[top]}` : null;
}

/** "Espace disque: 500 Go". */
export function diskFeatureLine(bytes: number): string {
  return `Espace disque: ${formatDiskSpace(bytes)}`;
}

/**
 * Replaces the line of one kind (all lines of that kind) with `line`, in place of the first one,
 * or appends it; removes them when `line` is null.
 */
export function setPlanFeatureLine(
  lines: readonly string[],
  kind: PlanFeatureKind,
  line: string | null,
): string[] {
  const out: string[] = [];
  let placed = false;
  for (const current of lines) {
    if (planFeatureKind(current) !== kind) {
      out.push(current);
    } else if (!placed && line !== null) {
      out.push(line);
      placed = true;
    }
  }
  if (!placed && line !== null) out.push(line);
  return out;
}

/** Whether a line of this kind is present. */
export function hasPlanFeature(lines: readonly string[], kind: PlanFeatureKind): boolean {
  return lines.some((line) => planFeatureKind(line) === kind);
}

/** A switch of the editor: adds its line when on (unless present), removes it when off. */
export function togglePlanFeature(lines: readonly string[], kind: PlanToggleFeature, on: boolean): string[] {
  if (!on) return lines.filter((line) => planFeatureKind(line) !== kind);
  return hasPlanFeature(lines, kind) ? [...lines] : [...lines, PLAN_TOGGLE_FEATURES[kind]];
}

/** The values the generated lines follow. storageBytes null (invalid disk) leaves the disk line. */
export interface PlanFeatureSources {
  maxRings: number;
  encryptionLevels: readonly EncryptionLevel[];
  storageBytes: number | null;
}

/** Rewrites the Rings, encryption and disk lines from the plan's values; other lines untouched. */
export function syncPlanFeatures(lines: readonly string[], sources: PlanFeatureSources): string[] {
  let out = setPlanFeatureLine(lines, 'rings', ringsFeatureLine(sources.maxRings));
  out = setPlanFeatureLine(out, 'encryption', encryptionFeatureLine(sources.encryptionLevels));
  if (sources.storageBytes !== null)
    out = setPlanFeatureLine(out, 'disk', diskFeatureLine(sources.storageBytes));
  return out;
}

/** 'Messages éphémères' present ⇔ ephemeral messages allowed. */
export function ephemeralFromFeatures(lines: readonly string[]): boolean {
  return hasPlanFeature(lines, 'ephemeral');
}

/** 'Support prioritaire' raises the support level to priority, unless it is already dedicated. */
export function supportLevelFromFeatures(lines: readonly string[], current: SupportLevel): SupportLevel {
  if (hasPlanFeature(lines, 'priority_support')) return current === 'dedicated' ? 'dedicated' : 'priority';
  return current === 'priority' ? 'email' : current;
}

/** Orders a set of levels the canonical way (basic → military), dropping unknown ones. */
export function sortEncryptionLevels(levels: readonly string[]): EncryptionLevel[] {
  return ENCRYPTION_LEVELS.filter((level) => levels.includes(level));
}

// ---------------------------------------------------------------------------------------------
// The editor form
// ---------------------------------------------------------------------------------------------

/**
 * The editor's fields, as typed by the admin. The feature lines are the single source of truth
 * for the switches (chat, voice, video, ephemeral, audit, analytics, priority support).
 */
export interface PlanEditorForm {
  name: string;
  price: string;
  video_option: string;
  max_users: string;
  max_rings: string;
  disk_value: string;
  disk_unit: PlanDiskUnit;
  encryption_levels: EncryptionLevel[];
  /** One feature a line. */
  features_text: string;
  /** Kept from the plan ('dedicated' survives the 'Support prioritaire' line). */
  support_level: SupportLevel;
  popular: boolean;
  active: boolean;
}

/** Default plan on creation: price 0, 1 user, 1 Ring, video option 0, 1 Go, not popular, active. */
export const DEFAULT_NEW_PLAN = {
  price: 0,
  video_option: 0,
  max_users: 1,
  max_rings: 1,
  storage_bytes: PLAN_GIB,
  encryption_levels: ['basic', 'standard'] as EncryptionLevel[],
  features_chat: true,
  features_voice: true,
  features_video: false,
  support_level: 'email' as SupportLevel,
  popular: false,
  active: true,
};

/** The fields of an existing plan the editor starts from. */
export interface PlanEditorSource {
  name: string;
  price: number;
  video_option: number;
  max_users: number;
  max_rings: number;
  storage_bytes: number;
  encryption_levels: EncryptionLevel[];
  features: string[];
  support_level: SupportLevel;
  popular: boolean;
  active: boolean;
}

/** Feature lines of a new plan: encryption, Rings, chat, voice and disk lines of the defaults. */
export function defaultPlanFeatures(): string[] {
  return normalizePlanFeatures(
    syncPlanFeatures([PLAN_TOGGLE_FEATURES.chat, PLAN_TOGGLE_FEATURES.voice], {
      maxRings: DEFAULT_NEW_PLAN.max_rings,
      encryptionLevels: DEFAULT_NEW_PLAN.encryption_levels,
      storageBytes: DEFAULT_NEW_PLAN.storage_bytes,
    }),
  );
}

const editorNumber = (n: number) => String(n).replace('.', ',');
const editorLimit = (n: number) => (n < 0 ? '' : String(n));

/** The editor's starting values: the plan's, or the default plan's with its generated lines. */
export function planEditorForm(plan?: PlanEditorSource): PlanEditorForm {
  const source: PlanEditorSource = plan ?? { name: '', ...DEFAULT_NEW_PLAN, features: defaultPlanFeatures() };
  const disk = bytesToDiskEditor(source.storage_bytes);
  return {
    name: source.name,
    price: editorNumber(source.price),
    video_option: editorNumber(source.video_option),
    max_users: editorLimit(source.max_users),
    max_rings: editorLimit(source.max_rings),
    disk_value: disk.value,
    disk_unit: disk.unit,
    encryption_levels: sortEncryptionLevels(source.encryption_levels),
    features_text: source.features.join('\n'),
    support_level: source.support_level,
    popular: source.popular,
    active: source.active,
  };
}

function formLines(form: PlanEditorForm): string[] {
  return planFeaturesFromText(form.features_text).filter((line) => line.trim());
}

/**
 * Applies an edit of one field and keeps the feature lines in sync with it: the Rings, encryption
 * and disk lines follow their fields. Typing in the features textarea is left as typed.
 */
export function updatePlanEditorForm<K extends keyof PlanEditorForm>(
  form: PlanEditorForm,
  field: K,
  value: PlanEditorForm[K],
): PlanEditorForm {
  const next: PlanEditorForm = { ...form, [field]: value };
  let lines: string[];
  switch (field) {
    case 'max_rings':
      lines = setPlanFeatureLine(formLines(next), 'rings', ringsFeatureLine(parsePlanLimit(next.max_rings)));
      break;
    case 'encryption_levels':
      next.encryption_levels = sortEncryptionLevels(next.encryption_levels);
      lines = setPlanFeatureLine(
        formLines(next),
        'encryption',
        encryptionFeatureLine(next.encryption_levels),
      );
      break;
    case 'disk_value':
    case 'disk_unit': {
      const bytes = diskEditorToBytes(next.disk_value, next.disk_unit);
      // While the value is invalid the disk line keeps its last valid size.
      if (bytes === null) return next;
      lines = setPlanFeatureLine(formLines(next), 'disk', diskFeatureLine(bytes));
      break;
    }
    default:
      return next;
  }
  return { ...next, features_text: lines.join('\n') };
}

/** Whether the editor's switch of a toggled line is on (its line is present). */
export function planEditorHasFeature(form: PlanEditorForm, kind: PlanToggleFeature): boolean {
  return hasPlanFeature(formLines(form), kind);
}

/** A switch of the editor ('Messages éphémères', 'Audit logs', …): adds or removes its line. */
export function togglePlanEditorFeature(
  form: PlanEditorForm,
  kind: PlanToggleFeature,
  on: boolean,
): PlanEditorForm {
  return { ...form, features_text: togglePlanFeature(formLines(form), kind, on).join('\n') };
}

export type PlanEditorErrors = Partial<
  Record<'name' | 'price' | 'video_option' | 'disk' | 'encryption_levels' | 'features', string>
>;

/** Live validation of the editor; an empty object means it may be saved. */
export function validatePlanEditorForm(form: PlanEditorForm): PlanEditorErrors {
  const errors: PlanEditorErrors = {};
  const name = form.name.trim();
  if (!name) errors.name = PLAN_EDITOR_MESSAGES.nameRequired;
  else if (name.length > PLAN_NAME_MAX) errors.name = PLAN_EDITOR_MESSAGES.nameTooLong;
  if (!isPlanDecimal(form.price) || parsePlanDecimal(form.price) > PLAN_MAX_PRICE_EUROS) {
    errors.price = PLAN_EDITOR_MESSAGES.priceInvalid;
  }
  if (!isPlanDecimal(form.video_option) || parsePlanDecimal(form.video_option) > PLAN_MAX_PRICE_EUROS) {
    errors.video_option = PLAN_EDITOR_MESSAGES.videoOptionInvalid;
  }
  const disk = validateDiskEditorValue(form.disk_value, form.disk_unit);
  if (disk) errors.disk = disk;
  if (form.encryption_levels.length === 0) errors.encryption_levels = PLAN_EDITOR_MESSAGES.encryptionRequired;
  const featureError = validatePlanFeatures(normalizePlanFeatures(planFeaturesFromText(form.features_text)));
  if (featureError) errors.features = featureError;
  return errors;
}

/** Count and length limits of a normalised feature list; null when fine. */
export function validatePlanFeatures(lines: readonly string[]): string | null {
  if (lines.length > PLAN_FEATURES_MAX_COUNT) return PLAN_EDITOR_MESSAGES.tooManyFeatures;
  if (lines.some((line) => line.length > PLAN_FEATURE_MAX)) return PLAN_EDITOR_MESSAGES.featureTooLong;
  return null;
}

/** The body the editor sends (POST to create, PUT with the id to edit). */
export interface PlanEditorPayload {
  id?: string;
  name: string;
  price: number;
  video_option: number;
  max_users: number;
  max_rings: number;
  /** The size as typed ("500 Go"); the server parses it with parseDiskSpace. */
  storage: string;
  storage_bytes: number;
  /** Sent only when numeric. */
  storage_gb?: number;
  encryption_levels: EncryptionLevel[];
  features: string[];
  features_chat: boolean;
  features_voice: boolean;
  features_video: boolean;
  ephemeral_allowed: boolean;
  support_level: SupportLevel;
  popular: boolean;
  active: boolean;
}

/**
 * The request body of a form. Throws 'Espace disque invalide' while the disk field is wrong
 * (saving is blocked). Feature lines are synced with the fields, normalised and sorted.
 */
export function planEditorPayload(form: PlanEditorForm, id?: string): PlanEditorPayload {
  const bytes = diskEditorToBytes(form.disk_value, form.disk_unit);
  if (bytes === null) throw new Error(PLAN_EDITOR_MESSAGES.diskInvalid);
  const maxRings = parsePlanLimit(form.max_rings);
  const encryptionLevels = sortEncryptionLevels(form.encryption_levels);
  const features = normalizePlanFeatures(
    syncPlanFeatures(planFeaturesFromText(form.features_text), {
      maxRings,
      encryptionLevels,
      storageBytes: bytes,
    }),
  );
  const storageGb = Math.round((bytes / PLAN_GIB) * 100) / 100;
  return {
    ...(id ? { id } : {}),
    name: form.name.trim(),
    price: parsePlanDecimal(form.price),
    video_option: parsePlanDecimal(form.video_option),
    max_users: parsePlanLimit(form.max_users),
    max_rings: maxRings,
    storage: `${form.disk_value.trim()} ${form.disk_unit}`,
    storage_bytes: bytes,
    ...(Number.isFinite(storageGb) ? { storage_gb: storageGb } : {}),
    encryption_levels: encryptionLevels,
    features,
    features_chat: hasPlanFeature(features, 'chat'),
    features_voice: hasPlanFeature(features, 'voice'),
    features_video: hasPlanFeature(features, 'video'),
    ephemeral_allowed: ephemeralFromFeatures(features),
    support_level: supportLevelFromFeatures(features, form.support_level),
    popular: form.popular,
    active: form.active,
  };
}
