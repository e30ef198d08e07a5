import { describe, expect, it } from 'vitest';
import {
  DEFAULT_NEW_PLAN,
  PLAN_EDITOR_MESSAGES,
  PLAN_GIB,
  PLAN_TIB,
  bytesToDiskEditor,
  comparePlanFeatures,
  defaultPlanFeatures,
  diskEditorToBytes,
  diskFeatureLine,
  encryptionFeatureLine,
  ephemeralFromFeatures,
  formatDiskSpace,
  highestEncryptionLevel,
  isPlanDecimal,
  normalizePlanFeatures,
  parseDiskSpace,
  parsePlanDecimal,
  parsePlanLimit,
  planEditorForm,
  planEditorHasFeature,
  planEditorPayload,
  planFeatureKind,
  ringsFeatureLine,
  setPlanFeatureLine,
  supportLevelFromFeatures,
  syncPlanFeatures,
  togglePlanEditorFeature,
  togglePlanFeature,
  updatePlanEditorForm,
  validateDiskEditorValue,
  validatePlanEditorForm,
  type PlanEditorSource,
} from './plan-editor';

/** The seeded plans' features (apps/server/src/seed/default-plans.ts), already in rule order. */
const SEEDED = {
  starter: [
    'Chiffrement Standard',
    'Rings: 1',
    'Chat sécurisé',
    'Appels vocaux',
    'Partage de fichiers',
    'Espace disque: 5 Go',
  ],
  professional: [
    'Chiffrement Élevé',
    'Rings: 3',
    'Chat sécurisé',
    'Messages éphémères',
    'Appels vocaux',
    'Partage de fichiers',
    'Espace disque: 50 Go',
    'Support prioritaire',
  ],
  enterprise: [
    'Chiffrement Militaire',
    'Rings: Illimités',
    'Chat sécurisé',
    'Messages éphémères',
    'Appels vocaux',
    'Visioconférence',
    'Partage de fichiers',
    'Espace disque: 500 Go',
    'Journal d’audit',
    'Tableau de bord analytique',
    'Support prioritaire',
  ],
};

describe('disk space in the editor', () => {
  it('requires an integer of at least 1', () => {
    for (const bad of ['', ' ', '0', '-1', '1,5', '1.5', 'abc', '2 Go']) {
      expect(validateDiskEditorValue(bad)).toBe('Valeur requise (entier ≥ 1)');
    }
    expect(validateDiskEditorValue('1')).toBeNull();
    expect(validateDiskEditorValue(' 500 ')).toBeNull();
    expect(validateDiskEditorValue('2', 'To')).toBeNull();
  });

  it('refuses absurd sizes', () => {
    expect(validateDiskEditorValue('1025', 'To')).toBe(PLAN_EDITOR_MESSAGES.diskInvalid);
    expect(validateDiskEditorValue('1024', 'To')).toBeNull();
  });

  it('converts Go and To with base 1024', () => {
    expect(diskEditorToBytes('1', 'Go')).toBe(1024 ** 3);
    expect(diskEditorToBytes('500', 'Go')).toBe(500 * 1024 ** 3);
    expect(diskEditorToBytes('2', 'To')).toBe(2 * 1024 ** 4);
    expect(diskEditorToBytes('0', 'Go')).toBeNull();
    expect(diskEditorToBytes('x', 'To')).toBeNull();
  });

  it('shows whole To in To and anything else in Go', () => {
    expect(bytesToDiskEditor(5 * PLAN_GIB)).toEqual({ value: '5', unit: 'Go' });
    expect(bytesToDiskEditor(PLAN_TIB)).toEqual({ value: '1', unit: 'To' });
    expect(bytesToDiskEditor(1.5 * PLAN_TIB)).toEqual({ value: '1536', unit: 'Go' });
    expect(bytesToDiskEditor(1)).toEqual({ value: '1', unit: 'Go' });
    expect(bytesToDiskEditor(Number.NaN)).toEqual({ value: '1', unit: 'Go' });
  });
});

describe('parseDiskSpace (on save)', () => {
  it('accepts B, KB, MB, GB, TB, Ko, Mo, Go, To in any case, with or without a space', () => {
    expect(parseDiskSpace('500 Go')).toBe(500 * PLAN_GIB);
    expect(parseDiskSpace('500go')).toBe(500 * PLAN_GIB);
    expect(parseDiskSpace('2 GB')).toBe(2 * PLAN_GIB);
    expect(parseDiskSpace('1 To')).toBe(PLAN_TIB);
    expect(parseDiskSpace('3tb')).toBe(3 * PLAN_TIB);
    expect(parseDiskSpace('2048 MB')).toBe(2 * PLAN_GIB);
    expect(parseDiskSpace('2048 mo')).toBe(2 * PLAN_GIB);
    expect(parseDiskSpace(`${2 * 1024 ** 2} KB`)).toBe(2 * PLAN_GIB);
    expect(parseDiskSpace(`${2 * 1024 ** 2} Ko`)).toBe(2 * PLAN_GIB);
    expect(parseDiskSpace(`${3 * PLAN_GIB} B`)).toBe(3 * PLAN_GIB);
  });

  it('allows a decimal comma or point', () => {
    expect(parseDiskSpace('1,5 To')).toBe(1.5 * PLAN_TIB);
    expect(parseDiskSpace('1.5 To')).toBe(1.5 * PLAN_TIB);
    expect(parseDiskSpace('2,5Go')).toBe(2.5 * PLAN_GIB);
  });

  it('raises anything below 1 GB to 1 GB and reads a bare number as Go', () => {
    expect(parseDiskSpace('500 MB')).toBe(PLAN_GIB);
    expect(parseDiskSpace('10 B')).toBe(PLAN_GIB);
    expect(parseDiskSpace('0 Go')).toBe(PLAN_GIB);
    expect(parseDiskSpace('12')).toBe(12 * PLAN_GIB);
    expect(parseDiskSpace(12)).toBe(12 * PLAN_GIB);
  });

  it('refuses what is not a size', () => {
    for (const bad of ['', 'abc', '5 XB', '-5 Go', '5 Go 2', '1,2,3 Go', '99999 To']) {
      expect(parseDiskSpace(bad)).toBeNull();
    }
  });
});

describe('formatDiskSpace', () => {
  it('shows To from 1 To up, otherwise Go, French decimals', () => {
    expect(formatDiskSpace(500 * PLAN_GIB)).toBe('500 Go');
    expect(formatDiskSpace(1023 * PLAN_GIB)).toBe('1023 Go');
    expect(formatDiskSpace(PLAN_TIB)).toBe('1 To');
    expect(formatDiskSpace(1.5 * PLAN_TIB)).toBe('1,5 To');
    expect(formatDiskSpace(2.5 * PLAN_GIB)).toBe('2,5 Go');
    expect(formatDiskSpace(PLAN_GIB)).toBe('1 Go');
  });
});

describe('numbers', () => {
  it('maps empty max users / Rings to unlimited, else the integer defaulting to 1', () => {
    expect(parsePlanLimit('')).toBe(-1);
    expect(parsePlanLimit('  ')).toBe(-1);
    expect(parsePlanLimit(null)).toBe(-1);
    expect(parsePlanLimit('10')).toBe(10);
    expect(parsePlanLimit(' 7 ')).toBe(7);
    expect(parsePlanLimit(25)).toBe(25);
    expect(parsePlanLimit('abc')).toBe(1);
    expect(parsePlanLimit('0')).toBe(1);
    expect(parsePlanLimit('-1')).toBe(-1);
    expect(parsePlanLimit(-5)).toBe(-1);
  });

  it('parses prices with a comma, default 0', () => {
    expect(parsePlanDecimal('9,90')).toBe(9.9);
    expect(parsePlanDecimal('29.9')).toBe(29.9);
    expect(parsePlanDecimal('')).toBe(0);
    expect(parsePlanDecimal(undefined)).toBe(0);
    expect(parsePlanDecimal('abc')).toBe(0);
    expect(parsePlanDecimal(4.999)).toBe(5);
    expect(isPlanDecimal('9,90')).toBe(true);
    expect(isPlanDecimal('')).toBe(true);
    expect(isPlanDecimal('9,999')).toBe(false);
    expect(isPlanDecimal('-1')).toBe(false);
    expect(isPlanDecimal('dix')).toBe(false);
    expect(isPlanDecimal(-1)).toBe(false);
  });
});

describe('feature lines', () => {
  it('recognises lines by prefix or keyword', () => {
    expect(planFeatureKind('Chiffrement Militaire')).toBe('encryption');
    expect(planFeatureKind('Rings: 3')).toBe('rings');
    expect(planFeatureKind('rings : Illimités')).toBe('rings');
    expect(planFeatureKind('Chat sécurisé')).toBe('chat');
    expect(planFeatureKind('Messages éphémères')).toBe('ephemeral');
    expect(planFeatureKind('Appels vocaux')).toBe('voice');
    expect(planFeatureKind('Visioconférence')).toBe('video');
    expect(planFeatureKind('Appels vidéo HD')).toBe('video');
    expect(planFeatureKind('Vidéo')).toBe('video');
    expect(planFeatureKind('Espace disque: 5 Go')).toBe('disk');
    expect(planFeatureKind('Espace disque : 1 To')).toBe('disk');
    expect(planFeatureKind('Audit logs')).toBe('audit');
    expect(planFeatureKind('Dashboard analytics')).toBe('analytics');
    // The French lines the editor writes now (issue 28), and the English ones older lists hold.
    expect(planFeatureKind('Journal d’audit')).toBe('audit');
    expect(planFeatureKind('Tableau de bord analytique')).toBe('analytics');
    expect(planFeatureKind('Support prioritaire')).toBe('priority_support');
    expect(planFeatureKind('Partage de fichiers')).toBe('files');
    expect(planFeatureKind('Intégration SSO')).toBeNull();
  });

  it('generates the Rings, encryption and disk lines', () => {
    expect(ringsFeatureLine(3)).toBe('Rings: 3');
    expect(ringsFeatureLine(-1)).toBe('Rings: Illimités');
    expect(encryptionFeatureLine(['basic'])).toBe('Chiffrement Basic');
    expect(encryptionFeatureLine(['basic', 'standard'])).toBe('Chiffrement Standard');
    expect(encryptionFeatureLine(['high', 'basic'])).toBe('Chiffrement Élevé');
    expect(encryptionFeatureLine(['military', 'basic'])).toBe('Chiffrement Militaire');
    expect(encryptionFeatureLine([])).toBeNull();
    expect(highestEncryptionLevel(['standard', 'high'])).toBe('high');
    expect(diskFeatureLine(50 * PLAN_GIB)).toBe('Espace disque: 50 Go');
    expect(diskFeatureLine(1.5 * PLAN_TIB)).toBe('Espace disque: 1,5 To');
  });

  it('replaces a line in place, appends it when missing, removes it with null', () => {
    expect(setPlanFeatureLine(['Chat sécurisé', 'Rings: 1', 'Rings: 2'], 'rings', 'Rings: 5')).toEqual([
      'Chat sécurisé',
      'Rings: 5',
    ]);
    expect(setPlanFeatureLine(['Chat sécurisé'], 'rings', 'Rings: 5')).toEqual(['Chat sécurisé', 'Rings: 5']);
    expect(setPlanFeatureLine(['Chiffrement Basic', 'Chat'], 'encryption', null)).toEqual(['Chat']);
  });

  it('keeps the generated lines in sync with the values', () => {
    const synced = syncPlanFeatures(
      ['Rings: 1', 'Chiffrement Basic', 'Chat sécurisé', 'Espace disque: 1 Go'],
      {
        maxRings: -1,
        encryptionLevels: ['basic', 'military'],
        storageBytes: 2 * PLAN_TIB,
      },
    );
    expect(synced).toEqual([
      'Rings: Illimités',
      'Chiffrement Militaire',
      'Chat sécurisé',
      'Espace disque: 2 To',
    ]);
    const noDisk = syncPlanFeatures(['Espace disque: 5 Go'], {
      maxRings: 1,
      encryptionLevels: [],
      storageBytes: null,
    });
    expect(noDisk).toEqual(['Espace disque: 5 Go', 'Rings: 1']);
  });

  it('toggles the switch lines', () => {
    const on = togglePlanFeature(['Chat sécurisé'], 'ephemeral', true);
    expect(on).toEqual(['Chat sécurisé', 'Messages éphémères']);
    expect(togglePlanFeature(on, 'ephemeral', true)).toEqual(on);
    expect(togglePlanFeature(on, 'ephemeral', false)).toEqual(['Chat sécurisé']);
    expect(togglePlanFeature([], 'audit', true)).toEqual(['Journal d’audit']);
    expect(togglePlanFeature([], 'analytics', true)).toEqual(['Tableau de bord analytique']);
    expect(togglePlanFeature(['Audit logs'], 'audit', false)).toEqual([]);
    expect(togglePlanFeature([], 'priority_support', true)).toEqual(['Support prioritaire']);
    expect(togglePlanFeature(['Support prioritaire 24/7'], 'priority_support', false)).toEqual([]);
  });

  it('trims, drops empty lines and duplicates, sorts by priority then French alphabet', () => {
    expect(
      normalizePlanFeatures([
        '  Support prioritaire ',
        '',
        'Zèbre',
        'Écran partagé',
        'Audit logs',
        'Espace disque: 5 Go',
        'Chiffrement Standard',
        'Dashboard analytics',
        'Visioconférence',
        'Appels vocaux',
        'Messages éphémères',
        'Chat sécurisé',
        'Rings: 2',
        'abonnement annuel',
        'Chat sécurisé',
        'chat SÉCURISÉ',
        '   ',
      ]),
    ).toEqual([
      'Chiffrement Standard',
      'Rings: 2',
      'Chat sécurisé',
      'Messages éphémères',
      'Appels vocaux',
      'Visioconférence',
      'Espace disque: 5 Go',
      'Audit logs',
      'Dashboard analytics',
      'Support prioritaire',
      'abonnement annuel',
      'Écran partagé',
      'Zèbre',
    ]);
    expect(comparePlanFeatures('Écran', 'Zèbre')).toBeLessThan(0);
  });

  it('leaves the seeded plans’ features as they are', () => {
    for (const features of Object.values(SEEDED)) {
      expect(normalizePlanFeatures([...features].reverse())).toEqual(features);
    }
  });

  it('derives ephemeral messages and the support level from the lines', () => {
    expect(ephemeralFromFeatures(SEEDED.professional)).toBe(true);
    expect(ephemeralFromFeatures(SEEDED.starter)).toBe(false);
    expect(supportLevelFromFeatures(['Support prioritaire'], 'email')).toBe('priority');
    expect(supportLevelFromFeatures(['Support prioritaire'], 'dedicated')).toBe('dedicated');
    expect(supportLevelFromFeatures([], 'priority')).toBe('email');
    expect(supportLevelFromFeatures([], 'dedicated')).toBe('dedicated');
    expect(supportLevelFromFeatures([], 'community')).toBe('community');
  });
});

const professional: PlanEditorSource = {
  name: 'Professional',
  price: 29.9,
  video_option: 9.9,
  max_users: 50,
  max_rings: 3,
  storage_bytes: 50 * PLAN_GIB,
  encryption_levels: ['basic', 'standard', 'high'],
  features: SEEDED.professional,
  support_level: 'priority',
  popular: true,
  active: true,
};

describe('the editor form', () => {
  it('starts a new plan from the defaults: price 0, 1 user, 1 Ring, video 0, 1 Go, active', () => {
    const form = planEditorForm();
    expect(form).toMatchObject({
      name: '',
      price: '0',
      video_option: '0',
      max_users: '1',
      max_rings: '1',
      disk_value: '1',
      disk_unit: 'Go',
      popular: false,
      active: true,
    });
    expect(form.features_text.split('\n')).toEqual(defaultPlanFeatures());
    expect(defaultPlanFeatures()).toEqual([
      'Chiffrement Standard',
      'Rings: 1',
      'Chat sécurisé',
      'Appels vocaux',
      'Espace disque: 1 Go',
    ]);
    expect(DEFAULT_NEW_PLAN).toMatchObject({
      price: 0,
      max_users: 1,
      max_rings: 1,
      video_option: 0,
      popular: false,
      active: true,
    });
  });

  it('starts from an existing plan, unlimited shown as empty', () => {
    const form = planEditorForm({
      ...professional,
      max_users: -1,
      max_rings: -1,
      storage_bytes: 2 * PLAN_TIB,
    });
    expect(form).toMatchObject({
      price: '29,9',
      max_users: '',
      max_rings: '',
      disk_value: '2',
      disk_unit: 'To',
    });
  });

  it('rewrites the Rings, encryption and disk lines as the admin edits', () => {
    let form = planEditorForm(professional);
    form = updatePlanEditorForm(form, 'max_rings', '');
    expect(form.features_text).toContain('Rings: Illimités');
    form = updatePlanEditorForm(form, 'max_rings', '7');
    expect(form.features_text).toContain('Rings: 7');
    form = updatePlanEditorForm(form, 'encryption_levels', ['military', 'basic']);
    expect(form.encryption_levels).toEqual(['basic', 'military']);
    expect(form.features_text).toContain('Chiffrement Militaire');
    expect(form.features_text).not.toContain('Chiffrement Élevé');
    form = updatePlanEditorForm(form, 'disk_unit', 'To');
    expect(form.features_text).toContain('Espace disque: 50 To');
    form = updatePlanEditorForm(form, 'disk_value', '');
    // While invalid, the last valid line stays and the error shows.
    expect(form.features_text).toContain('Espace disque: 50 To');
    expect(validatePlanEditorForm(form).disk).toBe('Valeur requise (entier ≥ 1)');
    form = updatePlanEditorForm(form, 'disk_value', '2');
    expect(form.features_text).toContain('Espace disque: 2 To');
    form = updatePlanEditorForm(form, 'name', 'Pro');
    expect(form.name).toBe('Pro');
  });

  it('drives the switches from the lines', () => {
    let form = planEditorForm(professional);
    expect(planEditorHasFeature(form, 'ephemeral')).toBe(true);
    expect(planEditorHasFeature(form, 'audit')).toBe(false);
    form = togglePlanEditorFeature(form, 'audit', true);
    form = togglePlanEditorFeature(form, 'ephemeral', false);
    expect(planEditorHasFeature(form, 'audit')).toBe(true);
    expect(form.features_text).not.toContain('Messages éphémères');
    form = togglePlanEditorFeature(form, 'video', true);
    expect(form.features_text).toContain('Visioconférence');
  });

  it('validates live', () => {
    const ok = planEditorForm(professional);
    expect(validatePlanEditorForm(ok)).toEqual({});
    expect(
      validatePlanEditorForm({
        ...ok,
        name: ' ',
        price: 'dix',
        video_option: '-2',
        disk_value: '0',
        encryption_levels: [],
      }),
    ).toEqual({
      name: 'Nom du plan requis',
      price: PLAN_EDITOR_MESSAGES.priceInvalid,
      video_option: PLAN_EDITOR_MESSAGES.videoOptionInvalid,
      disk: 'Valeur requise (entier ≥ 1)',
      encryption_levels: PLAN_EDITOR_MESSAGES.encryptionRequired,
    });
    expect(validatePlanEditorForm({ ...ok, features_text: 'x'.repeat(201) }).features).toBe(
      PLAN_EDITOR_MESSAGES.featureTooLong,
    );
  });

  it('builds the payload: parsed numbers, bytes, storage_gb, synced and sorted features', () => {
    const form = {
      ...planEditorForm(professional),
      price: '19,90',
      video_option: '',
      max_users: '',
      max_rings: '4',
      disk_value: '1',
      disk_unit: 'To' as const,
      features_text:
        'Zen\n\nSupport prioritaire\nAudit logs\nChat sécurisé\nChat sécurisé\nRings: 3\nVisioconférence',
    };
    const payload = planEditorPayload(form, 'plan-1');
    expect(payload).toMatchObject({
      id: 'plan-1',
      name: 'Professional',
      price: 19.9,
      video_option: 0,
      max_users: -1,
      max_rings: 4,
      storage: '1 To',
      storage_bytes: PLAN_TIB,
      storage_gb: 1024,
      encryption_levels: ['basic', 'standard', 'high'],
      features_chat: true,
      features_voice: false,
      features_video: true,
      ephemeral_allowed: false,
      support_level: 'priority',
      popular: true,
      active: true,
    });
    expect(payload.features).toEqual(
      [
        'Chiffrement Élevé',
        'Rings: 4',
        'Chat sécurisé',
        'Visioconférence',
        'Audit logs',
        'Support prioritaire',
        'Zen',
        'Espace disque: 1 To',
      ].sort(comparePlanFeatures),
    );
    expect(planEditorPayload(planEditorForm()).id).toBeUndefined();
  });

  it('blocks saving while the disk space is invalid', () => {
    expect(() => planEditorPayload({ ...planEditorForm(), disk_value: 'abc' })).toThrow(
      'Espace disque invalide',
    );
  });
});
