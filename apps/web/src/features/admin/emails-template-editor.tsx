import {
  EMAIL_MESSAGES,
  EMAIL_TEMPLATE_EDITOR_ROWS,
  EMAIL_TEMPLATE_LIMITS,
  emailTemplateTitle,
  templatePlaceholders,
  type TEmailTemplate,
} from '@securering/contract';
import { Eye, EyeOff, Save } from 'lucide-react';
import { useState } from 'react';
import { Button } from '@/components/ui/button';
import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
} from '@/components/ui/dialog';
import { Input, Textarea } from '@/components/ui/input';
import { Field, Label } from '@/components/ui/label';
import { Switch } from '@/components/ui/switch';
import { useToast } from '@/components/ui/toast';
import { useSaveEmailTemplate } from './emails-api';
import { EmailPreview } from './emails-preview';

type Errors = Partial<Record<'subject' | 'body_html', string>>;

/** Edits one template; the dialog is keyed by template so its draft starts from the stored values. */
export function EmailTemplateEditor({
  template,
  onClose,
}: {
  template: TEmailTemplate;
  onClose: () => void;
}) {
  const [subject, setSubject] = useState(template.subject);
  const [bodyHtml, setBodyHtml] = useState(template.body_html);
  const [bodyText, setBodyText] = useState(template.body_text);
  const [active, setActive] = useState(template.is_active);
  const [errors, setErrors] = useState<Errors>({});
  const [showPreview, setShowPreview] = useState(false);
  const save = useSaveEmailTemplate();
  const notify = useToast();

  const unknownPlaceholders = templatePlaceholders(subject, bodyHtml, bodyText).filter(
    (name) => !template.variables.includes(name),
  );

  const handleSubmit = (event: React.FormEvent) => {
    event.preventDefault();
    const problems: Errors = {};
    if (!subject.trim()) problems.subject = EMAIL_MESSAGES.subjectRequired;
    if (!bodyHtml.trim()) problems.body_html = EMAIL_MESSAGES.htmlRequired;
    setErrors(problems);
    if (Object.keys(problems).length) return;
    save.mutate(
      {
        id: template.id,
        name: template.name,
        subject: subject.trim(),
        body_html: bodyHtml,
        body_text: bodyText,
        variables: template.variables,
        is_active: active ? 1 : 0,
      },
      {
        onSuccess: (res) => {
          notify({ title: 'Template enregistré', description: res.message, variant: 'success' });
          onClose();
        },
        onError: (error) =>
          notify({
            title: 'Impossible de sauvegarder le template.',
            description: error.message,
            variant: 'error',
          }),
      },
    );
  };

  return (
    <Dialog open onOpenChange={(open) => (open ? undefined : onClose())}>
      <DialogContent className="max-w-3xl">
        <DialogHeader>
          <DialogTitle>Modifier le template «&#8239;{emailTemplateTitle(template.name)}&#8239;»</DialogTitle>
          <DialogDescription>
            Les variables s’écrivent entre doubles accolades, par exemple {'{{first_name}}'}.
          </DialogDescription>
        </DialogHeader>
        <form noValidate className="space-y-4" onSubmit={handleSubmit}>
          <Field id="template-subject" label="Sujet" error={errors.subject}>
            <Input
              id="template-subject"
              value={subject}
              maxLength={EMAIL_TEMPLATE_LIMITS.subject}
              aria-invalid={Boolean(errors.subject)}
              onChange={(e) => setSubject(e.target.value)}
            />
          </Field>
          <Field id="template-html" label="Contenu HTML" error={errors.body_html}>
            <Textarea
              id="template-html"
              rows={EMAIL_TEMPLATE_EDITOR_ROWS}
              value={bodyHtml}
              maxLength={EMAIL_TEMPLATE_LIMITS.bodyHtml}
              aria-invalid={Boolean(errors.body_html)}
              spellCheck={false}
              className="font-mono text-xs"
              onChange={(e) => setBodyHtml(e.target.value)}
            />
          </Field>
          <Field id="template-text" label="Version texte">
            <Textarea
              id="template-text"
              rows={6}
              value={bodyText}
              maxLength={EMAIL_TEMPLATE_LIMITS.bodyText}
              className="font-mono text-xs"
              onChange={(e) => setBodyText(e.target.value)}
            />
          </Field>
          <div className="rounded-md bg-slate-50 p-3 text-xs text-slate-600">
            <p>
              <span className="font-medium">Variables disponibles&#8239;: </span>
              {template.variables.length ? template.variables.map((v) => `{{${v}}}`).join(', ') : 'aucune'}
            </p>
            {unknownPlaceholders.length ? (
              <p className="mt-1 text-amber-700">
                Variables non fournies à l’envoi (elles seront vides)&#8239;:{' '}
                {unknownPlaceholders.map((v) => `{{${v}}}`).join(', ')}
              </p>
            ) : null}
          </div>
          <div className="flex items-center gap-3">
            <Switch id="template-active" checked={active} onCheckedChange={setActive} />
            <Label htmlFor="template-active">{active ? 'Actif' : 'Inactif'}</Label>
          </div>
          {showPreview ? (
            <EmailPreview
              source={{
                subject,
                body_html: bodyHtml,
                body_text: bodyText,
                variables: template.variables,
              }}
            />
          ) : null}
          <DialogFooter>
            <Button variant="outline" onClick={() => setShowPreview((v) => !v)}>
              {showPreview ? <EyeOff aria-hidden /> : <Eye aria-hidden />}
              {showPreview ? 'Masquer l’aperçu' : 'Aperçu'}
            </Button>
            <Button variant="outline" onClick={onClose}>
              Annuler
            </Button>
            <Button type="submit" disabled={save.isPending}>
              <Save aria-hidden /> Enregistrer
            </Button>
          </DialogFooter>
        </form>
      </DialogContent>
    </Dialog>
  );
}
