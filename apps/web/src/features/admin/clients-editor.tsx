import {
  ADMIN_CUSTOMER_MESSAGES,
  ZCreateAdminCustomerRequest,
  ZUpdateAdminCustomerRequest,
  type TAdminCustomer,
  type TCreateAdminCustomerRequest,
  type TUpdateAdminCustomerRequest,
} from '@securering/contract';
import { Save, X } from 'lucide-react';
import { useState, type FormEvent } from 'react';
import { Alert } from '@/components/ui/alert';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card';
import { Input } from '@/components/ui/input';
import { Field, Label } from '@/components/ui/label';
import { PasswordInput } from '@/components/ui/password-input';
import { Switch } from '@/components/ui/switch';
import { Tabs, TabsContent, TabsList, TabsTrigger } from '@/components/ui/tabs';
import { useToast } from '@/components/ui/toast';
import { apiErrorMessage } from '@/lib/api-error-message';
import { useAdminSession } from '@/lib/auth/admin-session';
import { useSaveCustomer } from './clients-api';
import { customerName, statusBadge } from './clients-labels';
import { CustomerPayments } from './clients-payments';
import { CustomerSubscriptions } from './clients-subscriptions';

const M = ADMIN_CUSTOMER_MESSAGES;

export type EditorTarget = { kind: 'create' } | { kind: 'edit'; customer: TAdminCustomer };

/** The admin form of a customer (spec 3 §3, camel case). */
interface CustomerForm {
  firstName: string;
  lastName: string;
  email: string;
  company: string;
  phone: string;
  country: string;
  addressLine1: string;
  addressLine2: string;
  city: string;
  postalCode: string;
  stripeCustomerId: string;
  paypalCustomerId: string;
  password: string;
  emailVerified: boolean;
  isActive: boolean;
}
type FormErrors = Partial<Record<keyof CustomerForm, string>>;

const EMPTY_FORM: CustomerForm = {
  firstName: '',
  lastName: '',
  email: '',
  company: '',
  phone: '',
  country: '',
  addressLine1: '',
  addressLine2: '',
  city: '',
  postalCode: '',
  stripeCustomerId: '',
  paypalCustomerId: '',
  password: '',
  emailVerified: false,
  isActive: true,
};

function formOf(customer: TAdminCustomer): CustomerForm {
  return {
    firstName: customer.first_name,
    lastName: customer.last_name,
    email: customer.email,
    company: customer.company,
    phone: customer.phone,
    country: customer.country,
    addressLine1: customer.address_line1,
    addressLine2: customer.address_line2,
    city: customer.city,
    postalCode: customer.postal_code,
    stripeCustomerId: customer.stripe_customer_id ?? '',
    paypalCustomerId: customer.paypal_customer_id ?? '',
    password: '',
    emailVerified: customer.email_verified,
    isActive: customer.is_active,
  };
}

/** Server (snake case) field → form field, to put the contract's messages under the right input. */
const FIELD_OF: Record<string, keyof CustomerForm> = {
  first_name: 'firstName',
  last_name: 'lastName',
  email: 'email',
  company: 'company',
  phone: 'phone',
  country: 'country',
  address_line1: 'addressLine1',
  address_line2: 'addressLine2',
  city: 'city',
  postal_code: 'postalCode',
  stripe_customer_id: 'stripeCustomerId',
  paypal_customer_id: 'paypalCustomerId',
  password: 'password',
};

function fieldsOf(form: CustomerForm) {
  return {
    first_name: form.firstName,
    last_name: form.lastName,
    email: form.email,
    company: form.company,
    phone: form.phone,
    country: form.country,
    address_line1: form.addressLine1,
    address_line2: form.addressLine2,
    city: form.city,
    postal_code: form.postalCode,
    stripe_customer_id: form.stripeCustomerId,
    paypal_customer_id: form.paypalCustomerId,
    email_verified: form.emailVerified,
    is_active: form.isActive,
  };
}

/** The edit card: Informations, Abonnements and Paiements (spec 3 §2.4). */
export function CustomerEditor({
  target,
  onClose,
  onSaved,
}: {
  target: EditorTarget;
  onClose: () => void;
  onSaved: (customer: TAdminCustomer) => void;
}) {
  const [tab, setTab] = useState('informations');
  const customer = target.kind === 'edit' ? target.customer : null;
  const badge = customer ? statusBadge(customer.status) : null;
  return (
    <Card aria-label={customer ? `Client ${customerName(customer)}` : 'Nouveau client'} role="region">
      <CardHeader className="flex-row flex-wrap items-start justify-between gap-3">
        <div className="space-y-1.5">
          <CardTitle>{customer ? customerName(customer) : 'Nouveau client'}</CardTitle>
          <CardDescription className="flex flex-wrap items-center gap-2">
            {customer ? (
              <>
                <span>{customer.email}</span>
                {badge ? <Badge variant={badge.tone}>{badge.label}</Badge> : null}
                {!customer.is_active ? <Badge variant="danger">Compte désactivé</Badge> : null}
              </>
            ) : (
              'Créez le compte, puis ajoutez-lui un abonnement.'
            )}
          </CardDescription>
        </div>
        <Button variant="ghost" size="sm" onClick={onClose} aria-label="Fermer la fiche client">
          <X aria-hidden /> Fermer
        </Button>
      </CardHeader>
      <CardContent>
        <Tabs value={tab} onValueChange={setTab}>
          <TabsList>
            <TabsTrigger value="informations">Informations</TabsTrigger>
            <TabsTrigger value="abonnements" disabled={!customer}>
              Abonnements
            </TabsTrigger>
            <TabsTrigger value="paiements" disabled={!customer}>
              Paiements
            </TabsTrigger>
          </TabsList>
          <TabsContent value="informations">
            <CustomerInfoForm customer={customer} onSaved={onSaved} />
          </TabsContent>
          {customer ? (
            <>
              <TabsContent value="abonnements">
                <CustomerSubscriptions customerId={customer.id} />
              </TabsContent>
              <TabsContent value="paiements">
                <CustomerPayments customerId={customer.id} />
              </TabsContent>
            </>
          ) : null}
        </Tabs>
      </CardContent>
    </Card>
  );
}

function CustomerInfoForm({
  customer,
  onSaved,
}: {
  customer: TAdminCustomer | null;
  onSaved: (customer: TAdminCustomer) => void;
}) {
  const session = useAdminSession();
  const notify = useToast();
  const save = useSaveCustomer();
  const [form, setForm] = useState<CustomerForm>(() => (customer ? formOf(customer) : EMPTY_FORM));
  const [errors, setErrors] = useState<FormErrors>({});
  const [problem, setProblem] = useState<string | null>(null);
  const creating = customer === null;
  const canSave = session.can('client_users', creating ? 'create' : 'edit');

  const set = <K extends keyof CustomerForm>(key: K, value: CustomerForm[K]) => {
    setForm((current) => ({ ...current, [key]: value }));
    setErrors((current) => (current[key] ? { ...current, [key]: undefined } : current));
  };

  const handleSubmit = (event: FormEvent) => {
    event.preventDefault();
    setProblem(null);
    const body: TCreateAdminCustomerRequest | TUpdateAdminCustomerRequest = creating
      ? { ...fieldsOf(form), password: form.password }
      : {
          id: customer.id,
          ...fieldsOf(form),
          ...(form.password.trim() ? { password: form.password, password_update: true } : {}),
        };
    const parsed = creating
      ? ZCreateAdminCustomerRequest.safeParse(body)
      : ZUpdateAdminCustomerRequest.safeParse(body);
    const found: FormErrors = {};
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        const field = FIELD_OF[String(issue.path[0])];
        if (field && !found[field]) found[field] = issue.message;
      }
    }
    // Spec 3 §5: the create form asks for the password in its own words.
    if (creating && !form.password) {
      found.password = M.passwordRequiredForCreate;
      notify({ title: M.passwordRequired, description: M.passwordRequiredForCreate, variant: 'error' });
    }
    if (!parsed.success || Object.keys(found).length > 0) {
      setErrors(found);
      if (Object.keys(found).length === 0) setProblem(parsed.error?.issues[0]?.message ?? 'Requête invalide');
      return;
    }
    setErrors({});
    save.mutate(
      creating
        ? { kind: 'create', body: body as TCreateAdminCustomerRequest }
        : { kind: 'update', body: body as TUpdateAdminCustomerRequest },
      {
        onSuccess: (res) => {
          notify({ title: res.message, variant: 'success' });
          setForm((current) => ({ ...current, password: '' }));
          onSaved(res.data);
        },
        onError: (error) =>
          setProblem(
            apiErrorMessage(
              error,
              creating ? 'Erreur lors de la création.' : 'Erreur lors de la modification.',
              M.connectionError,
            ),
          ),
      },
    );
  };

  const text = (
    key: keyof CustomerForm,
    label: string,
    props: { type?: string; autoComplete?: string; maxLength?: number } = {},
  ) => (
    <Field id={`client-${key}`} label={label} error={errors[key]}>
      <Input
        id={`client-${key}`}
        value={form[key] as string}
        onChange={(e) => set(key, e.target.value)}
        aria-invalid={errors[key] ? true : undefined}
        aria-describedby={errors[key] ? `client-${key}-error` : undefined}
        maxLength={props.maxLength ?? 255}
        type={props.type ?? 'text'}
        autoComplete={props.autoComplete ?? 'off'}
      />
    </Field>
  );

  return (
    <form noValidate onSubmit={handleSubmit} className="space-y-6">
      <fieldset disabled={!canSave || save.isPending} className="grid gap-4 md:grid-cols-2">
        {text('firstName', 'Prénom', { maxLength: 100 })}
        {text('lastName', 'Nom', { maxLength: 100 })}
        {text('email', 'Email', { type: 'email', maxLength: 254 })}
        {text('company', 'Entreprise', { maxLength: 150 })}
        {text('phone', 'Téléphone', { type: 'tel', maxLength: 50 })}
        {text('country', 'Pays', { maxLength: 100 })}
        {text('addressLine1', 'Adresse', { maxLength: 255 })}
        {text('addressLine2', 'Complément d’adresse', { maxLength: 255 })}
        {text('city', 'Ville', { maxLength: 100 })}
        {text('postalCode', 'Code postal', { maxLength: 20 })}
        {text('stripeCustomerId', 'Identifiant client Stripe')}
        {text('paypalCustomerId', 'Identifiant client PayPal')}
        <Field
          id="client-password"
          label={creating ? 'Mot de passe' : 'Nouveau mot de passe'}
          error={errors.password}
          hint={
            creating
              ? '8 caractères minimum, dont une majuscule et un chiffre.'
              : 'Laisser vide pour conserver le mot de passe actuel.'
          }
        >
          <PasswordInput
            id="client-password"
            value={form.password}
            onChange={(e) => set('password', e.target.value)}
            autoComplete="new-password"
            maxLength={200}
            aria-invalid={errors.password ? true : undefined}
            aria-describedby={errors.password ? 'client-password-error' : undefined}
          />
        </Field>
        <div className="flex flex-col justify-end gap-3">
          <div className="flex items-center gap-3">
            <Switch
              id="client-email-verified"
              checked={form.emailVerified}
              onCheckedChange={(v) => set('emailVerified', v)}
            />
            <Label htmlFor="client-email-verified">Email vérifié</Label>
          </div>
          <div className="flex items-center gap-3">
            <Switch id="client-active" checked={form.isActive} onCheckedChange={(v) => set('isActive', v)} />
            <Label htmlFor="client-active">Compte actif</Label>
          </div>
          {!form.isActive && !creating ? (
            <p className="text-xs text-slate-500">Désactiver le compte déconnecte le client immédiatement.</p>
          ) : null}
        </div>
      </fieldset>
      {problem ? <Alert variant="error">{problem}</Alert> : null}
      {canSave ? (
        <div className="flex justify-end">
          <Button type="submit" disabled={save.isPending}>
            <Save aria-hidden />{' '}
            {save.isPending ? 'Enregistrement…' : creating ? 'Créer le client' : 'Enregistrer'}
          </Button>
        </div>
      ) : null}
    </form>
  );
}
