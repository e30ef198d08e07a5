import {
  ZSiteImageUploadResponse,
  checkSettingValue,
  getSettingDefinition,
  type SiteImageType,
} from '@securering/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useToast } from '@/components/ui/toast';
import { apiRequest } from '@/lib/api-client';
import type { SettingsMap } from '@/lib/site-settings';
import { SAVE_FAILED, SAVE_OK, adminSettingsKey, useSaveSettings } from './settings-api';

/** POST /api/admin/upload.php: the type goes first so the server knows it before the file. */
export function useUploadSiteImage() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ type, file }: { type: SiteImageType; file: File }) => {
      const form = new FormData();
      form.append('type', type);
      form.append('file', file);
      return apiRequest('/api/admin/upload.php', {
        method: 'POST',
        auth: 'admin',
        body: form,
        schema: ZSiteImageUploadResponse,
      });
    },
    onSuccess: async () => {
      await Promise.all([
        client.invalidateQueries({ queryKey: adminSettingsKey('general') }),
        client.invalidateQueries({ queryKey: ['settings'] }),
      ]);
    },
  });
}

/** A field of a settings form: its key in the category, its French label. */
export interface SettingField {
  key: string;
  label: string;
  /** Shown under the field when it has no error. */
  hint?: string;
  /** Used instead of an empty value on save (spec 3 §9 defaults). */
  fallback?: string;
}

/** Checks values with the same rules the server applies; returns the errors by key. */
export function validateSettings(
  category: string,
  fields: SettingField[],
  values: SettingsMap,
): Record<string, string> {
  const errors: Record<string, string> = {};
  for (const field of fields) {
    const def = getSettingDefinition(category, field.key);
    if (!def) continue;
    const raw = values[field.key] ?? '';
    const check = checkSettingValue(
      def.kind,
      raw.trim() === '' && field.fallback !== undefined ? field.fallback : raw,
      field.label,
    );
    if (!check.ok) errors[field.key] = check.error;
  }
  return errors;
}

/** The values to send: fallbacks replace empty values. */
export function valuesToSave(fields: SettingField[], values: SettingsMap): SettingsMap {
  return Object.fromEntries(
    fields.map((f) => {
      const value = values[f.key] ?? '';
      return [f.key, value.trim() === '' && f.fallback !== undefined ? f.fallback : value];
    }),
  );
}

/**
 * State of one settings form section: values from the loaded settings, errors from the contract's
 * checks, and a save with the French toasts.
 */
export function useSettingsForm(category: string, fields: SettingField[], initial: SettingsMap) {
  const [values, setValues] = useState<SettingsMap>(() =>
    Object.fromEntries(fields.map((f) => [f.key, initial[f.key] ?? f.fallback ?? ''])),
  );
  const [errors, setErrors] = useState<Record<string, string>>({});
  const save = useSaveSettings();
  const notify = useToast();

  const set = (key: string, value: string) => {
    setValues((v) => ({ ...v, [key]: value }));
    setErrors((e) => {
      if (!(key in e)) return e;
      const { [key]: _removed, ...rest } = e;
      return rest;
    });
  };

  /** Validates, then saves `fields` (all of them by default); extra checks may add errors. */
  const submit = (options: { only?: SettingField[]; extraErrors?: Record<string, string> } = {}) => {
    const toSave = options.only ?? fields;
    // A field's own rule (bounds, format) is reported before a cross-field rule on it.
    const found = { ...options.extraErrors, ...validateSettings(category, toSave, values) };
    setErrors(found);
    if (Object.keys(found).length > 0) {
      notify({ title: SAVE_FAILED, description: Object.values(found)[0], variant: 'error' });
      return;
    }
    save.mutate(
      { category, settings: valuesToSave(toSave, values) },
      {
        onSuccess: () => notify({ title: SAVE_OK, variant: 'success' }),
        onError: (error) => notify({ title: SAVE_FAILED, description: error.message, variant: 'error' }),
      },
    );
  };

  return { values, errors, set, submit, saving: save.isPending };
}
