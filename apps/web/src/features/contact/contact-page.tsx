import { validateContact, type ContactValues } from '@securering/contract';
import { useMutation } from '@tanstack/react-query';
import { Clock, Mail, MapPin, Phone } from 'lucide-react';
import { useForm } from 'react-hook-form';
import { PageShell } from '@/components/layout/page-shell';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Card, CardContent } from '@/components/ui/card';
import { Input, Textarea } from '@/components/ui/input';
import { Field } from '@/components/ui/label';
import { useToast } from '@/components/ui/toast';
import { apiRequest } from '@/lib/api-client';
import { resolverFrom } from '@/lib/forms';
import { useGeneralSettings } from '@/lib/site-settings';

const EMPTY: ContactValues = { name: '', email: '', subject: '', message: '' };
const FAILURE = 'Impossible d’envoyer votre message. Veuillez réessayer.';

export function ContactPage() {
  const general = useGeneralSettings();
  const notify = useToast();
  const form = useForm<ContactValues>({ defaultValues: EMPTY, resolver: resolverFrom(validateContact) });
  const send = useMutation({
    mutationFn: (values: ContactValues) =>
      apiRequest('/api/contact.php', { method: 'POST', body: values, fallbackError: FAILURE }),
    onSuccess: () => {
      notify({
        title: 'Message envoyé',
        description: 'Nous vous répondrons dans les 24 heures ouvrables.',
        variant: 'success',
      });
      form.reset(EMPTY);
    },
  });
  const { errors } = form.formState;

  return (
    <PageShell
      title="Contact"
      heading="Contactez-nous"
      intro="Une question sur nos offres ou sur la sécurité&#8239;? Écrivez-nous."
      width="lg"
    >
      <div className="grid gap-8 md:grid-cols-[1fr_18rem]">
        <Card>
          <CardContent className="pt-6">
            <form
              noValidate
              onSubmit={form.handleSubmit((values) => send.mutate(values))}
              className="space-y-4"
            >
              {send.isSuccess ? (
                <Alert variant="success" title="Message envoyé">
                  Merci, votre message a bien été transmis.
                </Alert>
              ) : null}
              {send.isError ? <Alert variant="error">{FAILURE}</Alert> : null}
              <div className="grid gap-4 sm:grid-cols-2">
                <Field id="contact-name" label="Nom" error={errors.name?.message}>
                  <Input
                    id="contact-name"
                    autoComplete="name"
                    aria-invalid={Boolean(errors.name)}
                    {...form.register('name')}
                  />
                </Field>
                <Field id="contact-email" label="Email" error={errors.email?.message}>
                  <Input
                    id="contact-email"
                    type="email"
                    autoComplete="email"
                    aria-invalid={Boolean(errors.email)}
                    {...form.register('email')}
                  />
                </Field>
              </div>
              <Field id="contact-subject" label="Sujet" error={errors.subject?.message}>
                <Input
                  id="contact-subject"
                  aria-invalid={Boolean(errors.subject)}
                  {...form.register('subject')}
                />
              </Field>
              <Field id="contact-message" label="Message" error={errors.message?.message}>
                <Textarea
                  id="contact-message"
                  rows={6}
                  aria-invalid={Boolean(errors.message)}
                  {...form.register('message')}
                />
              </Field>
              <Button type="submit" disabled={send.isPending}>
                {send.isPending ? 'Envoi…' : 'Envoyer'}
              </Button>
            </form>
          </CardContent>
        </Card>
        <aside className="space-y-4 text-sm" aria-label="Coordonnées">
          {general.contact_email ? (
            <p className="flex items-start gap-3">
              <Mail className="mt-0.5 size-4 text-primary" aria-hidden />
              <a href={`mailto:${general.contact_email}`} className="hover:text-primary">
                {general.contact_email}
              </a>
            </p>
          ) : null}
          {general.contact_phone ? (
            <p className="flex items-start gap-3">
              <Phone className="mt-0.5 size-4 text-primary" aria-hidden />
              <a href={`tel:${general.contact_phone.replace(/\s/g, '')}`} className="hover:text-primary">
                {general.contact_phone}
              </a>
            </p>
          ) : null}
          {general.contact_address ? (
            <p className="flex items-start gap-3">
              <MapPin className="mt-0.5 size-4 text-primary" aria-hidden />
              <span className="whitespace-pre-line">{general.contact_address}</span>
            </p>
          ) : null}
          <p className="flex items-start gap-3 rounded-lg bg-primary/5 p-3 text-slate-700">
            <Clock className="mt-0.5 size-4 text-primary" aria-hidden />
            <span>Nous nous engageons à une réponse dans les 24 heures ouvrables.</span>
          </p>
        </aside>
      </div>
    </PageShell>
  );
}
