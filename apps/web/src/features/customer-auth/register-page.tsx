import {
  ACCOUNT_MESSAGES,
  acceptanceError,
  formatEuros,
  validateAccountStep,
  ZSelectionResponse,
  type AccountStepValues,
  type TRegisterRequest,
} from '@securering/contract';
import { useMutation, useQuery } from '@tanstack/react-query';
import { ArrowLeft, ArrowRight, CheckCircle2, MailCheck } from 'lucide-react';
import { useEffect, useRef, useState } from 'react';
import { useForm, useWatch } from 'react-hook-form';
import { Link, useNavigate } from 'react-router';
import { PageShell } from '@/components/layout/page-shell';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Card, CardContent } from '@/components/ui/card';
import { Checkbox } from '@/components/ui/checkbox';
import { Input } from '@/components/ui/input';
import { Field, Label } from '@/components/ui/label';
import { PasswordInput } from '@/components/ui/password-input';
import { useToast } from '@/components/ui/toast';
import { ApiError, apiRequest } from '@/lib/api-client';
import { usePlans } from '@/lib/plans';
import { cn } from '@/lib/utils';

type RegisterValues = Required<Omit<TRegisterRequest, 'accept_terms' | 'accept_privacy'>> & {
  accept_terms: boolean;
  accept_privacy: boolean;
};

const DEFAULTS: RegisterValues = {
  email: '',
  first_name: '',
  last_name: '',
  password: '',
  confirm_password: '',
  company: '',
  phone: '',
  country: 'France',
  address_line1: '',
  address_line2: '',
  city: '',
  postal_code: '',
  accept_terms: false,
  accept_privacy: false,
};

const STEPS = ['Compte', 'Adresse', 'Validation'] as const;
/** After success the page moves on to the login screen (spec 1 §4: follow-up after 2 seconds). */
const FOLLOW_UP_MS = 2000;

/**
 * The plan the visitor chose with « Commencer » on the home page (GET signup-selection.php, the
 * visitor cookie): shown in the summary; the new account takes it, and /subscribe opens on it
 * after the email is verified.
 */
function useSignupPlan() {
  const selection = useQuery({
    queryKey: ['register', 'signup-selection'],
    queryFn: async ({ signal }) =>
      (
        await apiRequest('/api/subscriptions/signup-selection.php', {
          schema: ZSelectionResponse,
          signal,
        })
      ).data,
    staleTime: 0,
    retry: false,
  });
  const plans = usePlans();
  const chosen = selection.data;
  const plan = chosen ? plans.data?.find((p) => p.id === chosen.plan_id) : undefined;
  return plan && chosen ? { plan, cycle: chosen.billing_cycle } : undefined;
}

export function RegisterPage() {
  const signupPlan = useSignupPlan();
  const [step, setStep] = useState(0);
  const [acceptanceMessage, setAcceptanceMessage] = useState<string | null>(null);
  const notify = useToast();
  const navigate = useNavigate();
  const form = useForm<RegisterValues>({ defaultValues: DEFAULTS });
  const { errors } = form.formState;
  const values = useWatch({ control: form.control }) as RegisterValues;
  // Each new step starts at its top (the step list, below the sticky header), not where the
  // previous one was scrolled to; its first field gets the focus.
  const stepsRef = useRef<HTMLOListElement>(null);
  const shownStep = useRef(step);
  useEffect(() => {
    if (shownStep.current === step) return;
    shownStep.current = step;
    stepsRef.current?.scrollIntoView({ block: 'start' });
    stepsRef.current?.parentElement
      ?.querySelector<HTMLElement>('form fieldset input, form fieldset button')
      ?.focus({ preventScroll: true });
  }, [step]);

  const submit = useMutation({
    mutationFn: (values: RegisterValues) =>
      apiRequest('/api/auth/register.php', {
        method: 'POST',
        body: values,
        fallbackError: 'Erreur lors de la création du compte',
      }),
    onSuccess: () =>
      notify({ title: 'Compte créé avec succès\u202f! Vérifiez votre email.', variant: 'success' }),
    // A password the server finds too common: back to step 1, with the message under the field.
    onError: (error) => {
      if (error instanceof ApiError && error.message === ACCOUNT_MESSAGES.passwordCommon) {
        setStep(0);
        form.setError('password', { type: 'server', message: error.message });
      }
    },
  });

  useEffect(() => {
    if (!submit.isSuccess) return;
    const email = form.getValues('email').trim();
    const timer = setTimeout(() => navigate('/client', { state: { registeredEmail: email } }), FOLLOW_UP_MS);
    return () => clearTimeout(timer);
  }, [submit.isSuccess, navigate, form]);

  const next = () => {
    if (step === 0) {
      form.clearErrors();
      const problems = validateAccountStep(form.getValues() as AccountStepValues);
      for (const [field, message] of Object.entries(problems)) {
        form.setError(field as keyof RegisterValues, { type: 'validate', message });
      }
      if (Object.keys(problems).length) return;
    }
    setStep((s) => Math.min(s + 1, STEPS.length - 1));
  };

  const onSubmit = form.handleSubmit((values) => {
    if (step < STEPS.length - 1) {
      next();
      return;
    }
    const problem = acceptanceError(values.accept_terms, values.accept_privacy);
    setAcceptanceMessage(problem ?? null);
    if (!problem) submit.mutate(values);
  });

  if (submit.isSuccess) {
    return (
      <PageShell title="Inscription" heading="Inscription réussie&#8239;!" width="sm">
        <Card>
          <CardContent className="flex flex-col items-center gap-4 pt-6 text-center">
            <MailCheck className="size-12 text-emerald-600" aria-hidden />
            <p>
              Un email de vérification a été envoyé à <strong>{form.getValues('email').trim()}</strong>.
              Cliquez sur le lien qu’il contient pour activer votre compte, puis choisissez votre abonnement
              et procédez au paiement.
            </p>
            <p className="text-sm text-slate-500">Redirection vers la page de connexion…</p>
          </CardContent>
        </Card>
      </PageShell>
    );
  }

  const errorText =
    submit.error instanceof ApiError && submit.error.status === 0
      ? 'Erreur de connexion'
      : submit.error?.message === ACCOUNT_MESSAGES.passwordCommon
        ? undefined // shown under the password field
        : submit.error?.message;

  return (
    <PageShell
      title="Inscription"
      heading="Créer votre compte"
      intro="Trois étapes, moins de deux minutes. Le plan se choisit après la vérification de votre email."
      width="md"
    >
      <ol
        ref={stepsRef}
        className="mb-6 flex scroll-mt-24 gap-1.5 sm:gap-2"
        aria-label="Étapes de l’inscription"
      >
        {STEPS.map((label, index) => (
          <li
            key={label}
            aria-current={index === step ? 'step' : undefined}
            className={cn(
              'flex min-w-0 flex-1 items-center justify-center gap-1 rounded-lg border px-1.5 py-2 text-xs sm:justify-start sm:gap-2 sm:px-3 sm:text-sm',
              index === step
                ? 'border-primary bg-primary/5 font-semibold text-primary'
                : 'border-slate-200 text-slate-500',
              index < step && 'text-emerald-700',
            )}
          >
            {index < step ? (
              <CheckCircle2 className="size-4 shrink-0" aria-hidden />
            ) : (
              <span className="font-mono">{index + 1}.</span>
            )}
            {label}
          </li>
        ))}
      </ol>
      <Card>
        <CardContent className="pt-6">
          <form noValidate onSubmit={onSubmit} className="space-y-4">
            {step === 0 ? (
              <fieldset className="space-y-4">
                <legend className="mb-2 text-lg font-semibold">Étape 1&#8239;: votre compte</legend>
                <div className="grid gap-4 sm:grid-cols-2">
                  <Field id="first_name" label="Prénom" error={errors.first_name?.message}>
                    <Input
                      id="first_name"
                      autoComplete="given-name"
                      aria-invalid={Boolean(errors.first_name)}
                      {...form.register('first_name')}
                    />
                  </Field>
                  <Field id="last_name" label="Nom" error={errors.last_name?.message}>
                    <Input
                      id="last_name"
                      autoComplete="family-name"
                      aria-invalid={Boolean(errors.last_name)}
                      {...form.register('last_name')}
                    />
                  </Field>
                </div>
                <Field id="email" label="Email" error={errors.email?.message}>
                  <Input
                    id="email"
                    type="email"
                    autoComplete="email"
                    aria-invalid={Boolean(errors.email)}
                    {...form.register('email')}
                  />
                </Field>
                <div className="grid gap-4 sm:grid-cols-2">
                  <Field id="company" label="Entreprise">
                    <Input id="company" autoComplete="organization" {...form.register('company')} />
                  </Field>
                  <Field id="phone" label="Téléphone">
                    <Input id="phone" type="tel" autoComplete="tel" {...form.register('phone')} />
                  </Field>
                </div>
                <Field
                  id="password"
                  label="Mot de passe"
                  error={errors.password?.message}
                  hint="Au moins 8 caractères, dont 1 majuscule et 1 chiffre."
                >
                  <PasswordInput
                    id="password"
                    autoComplete="new-password"
                    aria-invalid={Boolean(errors.password)}
                    {...form.register('password')}
                  />
                </Field>
                <Field
                  id="confirm_password"
                  label="Confirmer le mot de passe"
                  error={errors.confirm_password?.message}
                >
                  <PasswordInput
                    id="confirm_password"
                    autoComplete="new-password"
                    aria-invalid={Boolean(errors.confirm_password)}
                    {...form.register('confirm_password')}
                  />
                </Field>
              </fieldset>
            ) : null}

            {step === 1 ? (
              <fieldset className="space-y-4">
                <legend className="mb-2 text-lg font-semibold">Étape 2&#8239;: adresse de facturation</legend>
                <p className="text-sm text-slate-500">
                  Elle sert à la vérification de votre identité et à vos factures.
                </p>
                <Field id="country" label="Pays">
                  <Input id="country" autoComplete="country-name" {...form.register('country')} />
                </Field>
                <Field id="address_line1" label="Adresse">
                  <Input
                    id="address_line1"
                    autoComplete="address-line1"
                    {...form.register('address_line1')}
                  />
                </Field>
                <Field id="address_line2" label="Complément d’adresse (facultatif)">
                  <Input
                    id="address_line2"
                    autoComplete="address-line2"
                    {...form.register('address_line2')}
                  />
                </Field>
                <div className="grid gap-4 sm:grid-cols-2">
                  <Field id="city" label="Ville">
                    <Input id="city" autoComplete="address-level2" {...form.register('city')} />
                  </Field>
                  <Field id="postal_code" label="Code postal">
                    <Input id="postal_code" autoComplete="postal-code" {...form.register('postal_code')} />
                  </Field>
                </div>
              </fieldset>
            ) : null}

            {step === 2 ? (
              <fieldset className="space-y-4">
                <legend className="mb-2 text-lg font-semibold">Étape 3&#8239;: récapitulatif</legend>
                <dl
                  className="grid gap-x-4 gap-y-2 rounded-lg bg-slate-50 p-4 text-sm sm:grid-cols-[10rem_1fr]"
                  aria-label="Récapitulatif"
                >
                  <dt className="text-slate-500">Nom</dt>
                  <dd>
                    {values.first_name} {values.last_name}
                  </dd>
                  <dt className="text-slate-500">Email</dt>
                  <dd>{values.email}</dd>
                  {values.company ? (
                    <>
                      <dt className="text-slate-500">Entreprise</dt>
                      <dd>{values.company}</dd>
                    </>
                  ) : null}
                  {values.phone ? (
                    <>
                      <dt className="text-slate-500">Téléphone</dt>
                      <dd>{values.phone}</dd>
                    </>
                  ) : null}
                  <dt className="text-slate-500">Adresse</dt>
                  <dd>
                    {[
                      values.address_line1,
                      values.address_line2,
                      [values.postal_code, values.city].filter(Boolean).join(' '),
                      values.country,
                    ]
                      .filter(Boolean)
                      .join(', ') || '—'}
                  </dd>
                  {signupPlan ? (
                    <>
                      <dt className="text-slate-500">Plan choisi</dt>
                      <dd>
                        {signupPlan.plan.name} ·{' '}
                        {signupPlan.cycle === 'yearly'
                          ? 'facturation annuelle'
                          : `${formatEuros(signupPlan.plan.price)} / mois`}
                      </dd>
                    </>
                  ) : null}
                </dl>
                <div className="flex items-start gap-3">
                  <Checkbox
                    id="accept_terms"
                    checked={values.accept_terms}
                    onCheckedChange={(checked) => {
                      form.setValue('accept_terms', checked === true);
                      setAcceptanceMessage(null);
                    }}
                  />
                  <Label htmlFor="accept_terms" className="font-normal">
                    J’accepte les{' '}
                    <Link to="/terms" target="_blank" className="text-primary underline">
                      conditions générales d’utilisation
                    </Link>
                  </Label>
                </div>
                <div className="flex items-start gap-3">
                  <Checkbox
                    id="accept_privacy"
                    checked={values.accept_privacy}
                    onCheckedChange={(checked) => {
                      form.setValue('accept_privacy', checked === true);
                      setAcceptanceMessage(null);
                    }}
                  />
                  <Label htmlFor="accept_privacy" className="font-normal">
                    J’accepte la{' '}
                    <Link to="/privacy" target="_blank" className="text-primary underline">
                      politique de confidentialité
                    </Link>
                  </Label>
                </div>
                {acceptanceMessage ? <Alert variant="error">{acceptanceMessage}</Alert> : null}
              </fieldset>
            ) : null}

            {errorText ? <Alert variant="error">{errorText}</Alert> : null}

            <div className="flex justify-between gap-2 pt-2">
              {step === 0 ? (
                <Button asChild variant="outline">
                  <Link to="/">
                    <ArrowLeft aria-hidden /> Retour
                  </Link>
                </Button>
              ) : (
                <Button variant="outline" onClick={() => setStep((s) => s - 1)}>
                  <ArrowLeft aria-hidden /> Retour
                </Button>
              )}
              {step < STEPS.length - 1 ? (
                <Button type="submit">
                  Suivant <ArrowRight aria-hidden />
                </Button>
              ) : (
                <Button type="submit" disabled={submit.isPending}>
                  {submit.isPending ? 'Création…' : 'Créer mon compte'}
                </Button>
              )}
            </div>
          </form>
        </CardContent>
      </Card>
      <p className="mt-6 text-center text-sm text-slate-600">
        Déjà inscrit&#8239;?{' '}
        <Link to="/client" className="text-primary underline">
          Connectez-vous
        </Link>
      </p>
    </PageShell>
  );
}
