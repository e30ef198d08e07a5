import {
  ZEmailTemplateSavedResponse,
  ZEmailTemplatesResponse,
  ZEmailTestResponse,
  ZResetEmailTemplateResponse,
  type TEmailTestRequest,
  type TUpdateEmailTemplateRequest,
} from '@securering/contract';
import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';

export const emailsKeys = {
  templates: () => ['admin', 'emails', 'templates'] as const,
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
