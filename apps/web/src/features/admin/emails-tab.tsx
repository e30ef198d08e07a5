import {
  EMAIL_TEMPLATE_KIND_LABELS,
  emailTemplateBadgeKind,
  emailTemplateTitle,
  type TEmailTemplate,
} from '@securering/contract';
import { Eye, Pencil, Plus, RotateCcw } from 'lucide-react';
import { useState } from 'react';
import { Alert, LoadError } from '@/components/ui/alert';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card';
import {
  ConfirmDialog,
  Dialog,
  DialogContent,
  DialogDescription,
  DialogHeader,
  DialogTitle,
} from '@/components/ui/dialog';
import { Spinner } from '@/components/ui/spinner';
import { useToast } from '@/components/ui/toast';
import { ApiError } from '@/lib/api-client';
import { useAdminSession } from '@/lib/auth/admin-session';
import { formatDateTimeShort } from '@/lib/dates';
import { useEmailTemplates, useResetEmailTemplate } from './emails-api';
import { EmailPreview } from './emails-preview';
import { SmtpCard } from './emails-smtp-card';
import { EmailTemplateEditor } from './emails-template-editor';

const KIND_VARIANT = {
  welcome: 'success',
  payment: 'default',
  reminder: 'warning',
  password_reset: 'neutral',
} as const;

/** The kind badge, from the template's name (none when the name says nothing of its kind). */
const badgeKind = (template: TEmailTemplate) => emailTemplateBadgeKind(template.name);

/** The Emails tab: SMTP configuration with a test email, and the email templates (spec 3 §2.5). */
export function EmailsTab() {
  return (
    <div className="space-y-6">
      <SmtpCard />
      <TemplatesCard />
    </div>
  );
}

function TemplatesCard() {
  const session = useAdminSession();
  const canEdit = session.can('email_management', 'edit');
  const canCreate = session.can('email_management', 'create');
  const templates = useEmailTemplates();
  const reset = useResetEmailTemplate();
  const notify = useToast();
  const [editing, setEditing] = useState<TEmailTemplate | null>(null);
  const [previewing, setPreviewing] = useState<TEmailTemplate | null>(null);
  const [resetting, setResetting] = useState<TEmailTemplate | null>(null);

  const handleReset = (template: TEmailTemplate) => {
    reset.mutate(template.name, {
      onSuccess: (res) => {
        notify({ title: 'Modèle réinitialisé', description: res.message, variant: 'success' });
        setResetting(null);
      },
      onError: (error) => {
        setResetting(null);
        if (error instanceof ApiError && error.kind === 'network') {
          notify({ title: 'Erreur réseau', description: 'Impossible de réinitialiser.', variant: 'error' });
        } else {
          notify({
            title: 'Échec réinitialisation',
            description: error.message || 'Erreur inconnue',
            variant: 'error',
          });
        }
      },
    });
  };

  const list = templates.data?.data ?? [];
  const announced = templates.data?.meta.total ?? 0;

  return (
    <Card>
      <CardHeader className="flex-row flex-wrap items-start justify-between gap-4">
        <div className="space-y-1.5">
          <CardTitle>Templates d’email</CardTitle>
          <CardDescription>Textes des emails envoyés aux clients, avec leurs variables.</CardDescription>
        </div>
        {canCreate ? (
          <Button
            variant="outline"
            size="sm"
            onClick={() =>
              notify({
                title: 'Bientôt disponible',
                description: 'La création de nouveaux templates arrive prochainement.',
                variant: 'info',
              })
            }
          >
            <Plus aria-hidden /> Nouveau
          </Button>
        ) : null}
      </CardHeader>
      <CardContent className="space-y-4">
        {templates.isPending ? (
          <Spinner />
        ) : templates.isError ? (
          <LoadError message={templates.error.message} onRetry={() => void templates.refetch()} />
        ) : (
          <>
            {announced > 0 && list.length === 0 ? (
              <Alert variant="error" title="Attention">
                Le serveur indique {announced} template(s), mais aucun n’a été reçu. Rechargez la page ou
                vérifiez les journaux.
              </Alert>
            ) : null}
            {list.length === 0 && announced === 0 ? (
              <p className="text-sm text-slate-500">Aucun template.</p>
            ) : null}
            <ul className="divide-y divide-slate-200 rounded-lg border border-slate-200">
              {list.map((template) => (
                <li
                  key={template.id}
                  className="flex flex-col gap-3 p-4 md:flex-row md:items-center md:justify-between"
                >
                  <div className="min-w-0 space-y-1">
                    <div className="flex flex-wrap items-center gap-2">
                      <span className="text-sm font-semibold">{emailTemplateTitle(template.name)}</span>
                      {badgeKind(template) ? (
                        <Badge variant={KIND_VARIANT[badgeKind(template)!]}>
                          {EMAIL_TEMPLATE_KIND_LABELS[badgeKind(template)!]}
                        </Badge>
                      ) : null}
                      <Badge variant={template.is_active ? 'success' : 'neutral'}>
                        {template.is_active ? 'Actif' : 'Inactif'}
                      </Badge>
                    </div>
                    <p className="truncate text-sm text-slate-700">{template.subject}</p>
                    <p className="font-mono text-xs text-slate-500">{template.name}</p>
                    <p className="text-xs text-slate-500">
                      Modifié le {formatDateTimeShort(template.updated_at)}
                    </p>
                  </div>
                  <div className="flex flex-wrap gap-2">
                    {canEdit ? (
                      <Button variant="outline" size="sm" onClick={() => setEditing(template)}>
                        <Pencil aria-hidden /> Modifier
                      </Button>
                    ) : null}
                    <Button variant="outline" size="sm" onClick={() => setPreviewing(template)}>
                      <Eye aria-hidden /> Aperçu
                    </Button>
                    {canEdit ? (
                      <Button variant="ghost" size="sm" onClick={() => setResetting(template)}>
                        <RotateCcw aria-hidden /> Réinitialiser
                      </Button>
                    ) : null}
                  </div>
                </li>
              ))}
            </ul>
          </>
        )}
      </CardContent>

      {editing ? (
        <EmailTemplateEditor key={editing.id} template={editing} onClose={() => setEditing(null)} />
      ) : null}

      <Dialog open={previewing !== null} onOpenChange={(open) => (open ? undefined : setPreviewing(null))}>
        <DialogContent className="max-w-3xl">
          <DialogHeader>
            <DialogTitle>
              Aperçu&#8239;: {previewing ? emailTemplateTitle(previewing.name) : ''}
            </DialogTitle>
            <DialogDescription>Rendu du template avec des valeurs d’exemple.</DialogDescription>
          </DialogHeader>
          {previewing ? <EmailPreview source={previewing} /> : null}
        </DialogContent>
      </Dialog>

      <ConfirmDialog
        open={resetting !== null}
        onOpenChange={(open) => (open ? undefined : setResetting(null))}
        title="Réinitialiser le template&#8239;?"
        description={
          resetting
            ? `Le sujet, le contenu et les variables de «\u202f${resetting.name}\u202f» seront remplacés par la version par défaut.`
            : undefined
        }
        confirmLabel="Réinitialiser"
        pending={reset.isPending}
        onConfirm={() => (resetting ? handleReset(resetting) : undefined)}
      />
    </Card>
  );
}
