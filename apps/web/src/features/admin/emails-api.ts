import {
  ZEmailTemplateSavedResponse,
  ZEmailTemplatesResponse,
  ZEmailTestResponse,
  ZGetSettingsResponse,
  ZResetEmailTemplateResponse,
  ZSaveSettingsResponse,
  type TEmailTestRequest,
  type TUpdateEmailTemplateRequest,
} from '@securering/contract';
import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';
import { flattenCategory } from '@/lib/site-settings';

export const emailsKeys = {
  templates: () => ['admin', 'emails', 'templates'] as const,
  smtp: () => ['admin', 'emails', 'smtp'] as const,
};

export function getEmailTemplatesQueryOptions() {
  return queryOptions({
    queryKey: emailsKeys.templates(),
    queryFn: async ({ signal }) =>
      apiRequest('/api/admin/email-templates.php', {
        auth: 'admin',
        schema: ZEmailTemplatesResponse,
        signal,
        fallbackError: 'Impossible de charger les données.',
      }),
  });
}

export const useEmailTemplates = () => useQuery(getEmailTemplatesQueryOptions());

/** The stored SMTP settings (the password comes back as the secret marker). */
export function useSmtpSettings() {
  return useQuery({
    queryKey: emailsKeys.smtp(),
    queryFn: async ({ signal }) => {
      const res = await apiRequest('/api/admin/settings.php?category=smtp', {
        auth: 'admin',
        schema: ZGetSettingsResponse,
        signal,
        fallbackError: 'Impossible de charger les données.',
      });
      return flattenCategory(res.data, 'smtp');
    },
  });
}

export function useSaveSmtpSettings() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (settings: Record<string, string>) =>
      apiRequest('/api/admin/settings.php', {
        method: 'POST',
        auth: 'admin',
        body: { category: 'smtp', settings },
        schema: ZSaveSettingsResponse,
        fallbackError: 'Impossible de sauvegarder les paramètres.',
      }),
    onSuccess: () => client.invalidateQueries({ queryKey: emailsKeys.smtp() }),
  });
}

export function useSendTestEmail() {
  return useMutation({
    mutationFn: (body: TEmailTestRequest) =>
      apiRequest('/api/admin/email-test.php', {
        method: 'POST',
        auth: 'admin',
        body,
        schema: ZEmailTestResponse,
        fallbackError: "Impossible d'envoyer l'email de test.",
      }),
  });
}

export function useSaveEmailTemplate() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: TUpdateEmailTemplateRequest) =>
      apiRequest('/api/admin/email-templates.php', {
        method: 'PUT',
        auth: 'admin',
        body,
        schema: ZEmailTemplateSavedResponse,
        fallbackError: 'Impossible de sauvegarder le template.',
      }),
    onSuccess: () => client.invalidateQueries({ queryKey: emailsKeys.templates() }),
  });
}

export function useResetEmailTemplate() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (name: string) =>
      apiRequest('/api/admin/email-templates.php', {
        method: 'POST',
        auth: 'admin',
        body: { action: 'reset_default', name },
        schema: ZResetEmailTemplateResponse,
        fallbackError: 'Erreur inconnue',
      }),
    onSettled: () => client.invalidateQueries({ queryKey: emailsKeys.templates() }),
  });
}
