import {
  ENCRYPTION_LEVELS,
  PLAN_DISK_UNITS,
  PLAN_EDITOR_MESSAGES,
  PLAN_TOGGLE_FEATURES,
  normalizePlanFeatures,
  planEditorForm,
  planEditorHasFeature,
  planEditorPayload,
  planFeaturesFromText,
  togglePlanEditorFeature,
  updatePlanEditorForm,
  validatePlanEditorForm,
  type EncryptionLevel,
  type PlanDiskUnit,
  type PlanEditorForm,
  type PlanToggleFeature,
  type TAdminPlan,
} from '@securering/contract';
import { useId, useMemo, useState, type FormEvent } from 'react';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Checkbox } from '@/components/ui/checkbox';
import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
} from '@/components/ui/dialog';
import { Input, NativeSelect, Textarea } from '@/components/ui/input';
import { Field, Label } from '@/components/ui/label';
import { Switch } from '@/components/ui/switch';
import { useToast } from '@/components/ui/toast';
import { apiErrorMessage } from '@/lib/api-error-message';
import { useSavePlan } from './plans-api';

const ENCRYPTION_OPTIONS: Record<EncryptionLevel, string> = {
  basic: 'Basic (AES-128)',
  standard: 'Standard (AES-256)',
  high: 'Élevé',
  military: 'Militaire (double AES)',
};

/** The editor's switches and the feature line each one adds or removes. */
const FEATURE_SWITCHES: Array<{ kind: PlanToggleFeature; label: string }> = (
  ['chat', 'voice', 'video', 'ephemeral', 'audit', 'analytics', 'priority_support'] as const
).map((kind) => ({ kind, label: PLAN_TOGGLE_FEATURES[kind] }));

/**
 * The plan editor (spec 3 §5). `plan` undefined creates a plan from the defaults. The parent keys
 * this component by plan so each opening starts from fresh values.
 */
export function PlanEditorDialog({
  plan,
  open,
  onOpenChange,
}: {
  plan: TAdminPlan | undefined;
  open: boolean;
  onOpenChange: (open: boolean) => void;
}) {
  const [form, setForm] = useState<PlanEditorForm>(() => planEditorForm(plan));
  const [submitted, setSubmitted] = useState(false);
  const save = useSavePlan();
  const notify = useToast();
  const id = useId();
  const errors = validatePlanEditorForm(form);
  const preview = useMemo(() => {
    try {
      return planEditorPayload(form).features;
    } catch {
      return normalizePlanFeatures(planFeaturesFromText(form.features_text));
    }
  }, [form]);

  const set = <K extends keyof PlanEditorForm>(field: K, value: PlanEditorForm[K]) =>
    setForm((current) => updatePlanEditorForm(current, field, value));

  const toggleLevel = (level: EncryptionLevel, on: boolean) =>
    set(
      'encryption_levels',
      on ? [...form.encryption_levels, level] : form.encryption_levels.filter((l) => l !== level),
    );

  const handleSubmit = (event: FormEvent) => {
    event.preventDefault();
    setSubmitted(true);
    if (errors.disk) {
      notify({ title: PLAN_EDITOR_MESSAGES.diskInvalid, description: errors.disk, variant: 'error' });
      return;
    }
    if (Object.keys(errors).length > 0) return;
    save.mutate(planEditorPayload(form, plan?.id), {
      onSuccess: (res) => {
        notify({ title: res.message, variant: 'success' });
        onOpenChange(false);
      },
      onError: (error) =>
        notify({
          title: 'Impossible de sauvegarder le plan.',
          description: apiErrorMessage(error, 'Impossible de sauvegarder le plan.'),
          variant: 'error',
        }),
    });
  };

  const f = (name: string) => `${id}-${name}`;
  const nameError = submitted || form.name ? errors.name : undefined;

  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent className="max-w-3xl">
        <DialogHeader>
          <DialogTitle>{plan ? `Modifier le plan «\u202f${plan.name}\u202f»` : 'Nouveau plan'}</DialogTitle>
          <DialogDescription>
            Prix mensuel en euros. Laissez «&#8239;Utilisateurs max&#8239;» ou «&#8239;Rings max&#8239;» vide pour illimité.
          </DialogDescription>
        </DialogHeader>
        <form noValidate onSubmit={handleSubmit} className="space-y-5">
          <div className="grid gap-4 sm:grid-cols-2">
            <Field id={f('name')} label="Nom du plan" error={nameError} className="sm:col-span-2">
              <Input
                id={f('name')}
                value={form.name}
                maxLength={120}
                aria-invalid={Boolean(nameError)}
                onChange={(e) => set('name', e.target.value)}
                placeholder="Professional"
              />
            </Field>
            <Field id={f('price')} label="Prix (€ / mois)" error={errors.price}>
              <Input
                id={f('price')}
                inputMode="decimal"
                value={form.price}
                aria-invalid={Boolean(errors.price)}
                onChange={(e) => set('price', e.target.value)}
                placeholder="0"
              />
            </Field>
            <Field
              id={f('video')}
              label="Option vidéo (€ / mois)"
              error={errors.video_option}
              hint="0 = vidéo incluse"
            >
              <Input
                id={f('video')}
                inputMode="decimal"
                value={form.video_option}
                aria-invalid={Boolean(errors.video_option)}
                onChange={(e) => set('video_option', e.target.value)}
                placeholder="0"
              />
            </Field>
            <Field id={f('users')} label="Utilisateurs max" hint="Vide = illimité">
              <Input
                id={f('users')}
                inputMode="numeric"
                value={form.max_users}
                onChange={(e) => set('max_users', e.target.value)}
                placeholder="Illimité"
              />
            </Field>
            <Field id={f('rings')} label="Rings max" hint="Vide = illimité">
              <Input
                id={f('rings')}
                inputMode="numeric"
                value={form.max_rings}
                onChange={(e) => set('max_rings', e.target.value)}
                placeholder="Illimité"
              />
            </Field>
            <Field id={f('disk')} label="Espace disque" error={errors.disk} hint="Base 1024 : 1 To = 1024 Go">
              <div className="flex gap-2">
                <Input
                  id={f('disk')}
                  inputMode="numeric"
                  value={form.disk_value}
                  aria-invalid={Boolean(errors.disk)}
                  aria-describedby={errors.disk ? `${f('disk')}-error` : undefined}
                  onChange={(e) => set('disk_value', e.target.value)}
                />
                <NativeSelect
                  aria-label="Unité d’espace disque"
                  className="w-24"
                  value={form.disk_unit}
                  onChange={(e) => set('disk_unit', e.target.value as PlanDiskUnit)}
                >
                  {PLAN_DISK_UNITS.map((unit) => (
                    <option key={unit} value={unit}>
                      {unit}
                    </option>
                  ))}
                </NativeSelect>
              </div>
            </Field>
          </div>

          <fieldset className="space-y-2">
            <legend className="text-sm font-medium text-slate-700">Niveaux de chiffrement</legend>
            <div className="grid gap-2 sm:grid-cols-2">
              {ENCRYPTION_LEVELS.map((level) => (
                <div key={level} className="flex items-center gap-2">
                  <Checkbox
                    id={f(`enc-${level}`)}
                    checked={form.encryption_levels.includes(level)}
                    onCheckedChange={(v) => toggleLevel(level, v === true)}
                  />
                  <Label htmlFor={f(`enc-${level}`)}>{ENCRYPTION_OPTIONS[level]}</Label>
                </div>
              ))}
            </div>
            {errors.encryption_levels ? (
              <p role="alert" className="text-sm text-red-600">
                {errors.encryption_levels}
              </p>
            ) : null}
          </fieldset>

          <fieldset className="space-y-2">
            <legend className="text-sm font-medium text-slate-700">Fonctionnalités incluses</legend>
            <div className="grid gap-2 sm:grid-cols-2">
              {FEATURE_SWITCHES.map(({ kind, label }) => (
                <div key={kind} className="flex items-center gap-2">
                  <Switch
                    id={f(`feat-${kind}`)}
                    checked={planEditorHasFeature(form, kind)}
                    onCheckedChange={(on) => setForm((current) => togglePlanEditorFeature(current, kind, on))}
                  />
                  <Label htmlFor={f(`feat-${kind}`)}>{label}</Label>
                </div>
              ))}
            </div>
          </fieldset>

          <div className="grid gap-4 md:grid-cols-2">
            <Field
              id={f('features')}
              label="Liste des fonctionnalités"
              error={errors.features}
              hint="Une fonctionnalité par ligne. Les lignes Rings, Chiffrement et Espace disque suivent les champs."
            >
              <Textarea
                id={f('features')}
                rows={10}
                value={form.features_text}
                aria-invalid={Boolean(errors.features)}
                onChange={(e) => set('features_text', e.target.value)}
              />
            </Field>
            <div className="space-y-1.5">
              <p className="text-sm font-medium text-slate-700">Aperçu (ordre d’affichage)</p>
              <ul className="min-h-24 space-y-1 rounded-md border border-slate-200 bg-slate-50 p-3 text-sm">
                {preview.map((line) => (
                  <li key={line}>✓ {line}</li>
                ))}
              </ul>
            </div>
          </div>

          <div className="flex flex-wrap gap-6">
            <div className="flex items-center gap-2">
              <Switch
                id={f('active')}
                checked={form.active}
                onCheckedChange={(v) => setForm((c) => ({ ...c, active: v }))}
              />
              <Label htmlFor={f('active')}>Actif (visible sur le site)</Label>
            </div>
            <div className="flex items-center gap-2">
              <Switch
                id={f('popular')}
                checked={form.popular}
                onCheckedChange={(v) => setForm((c) => ({ ...c, popular: v }))}
              />
              <Label htmlFor={f('popular')}>Populaire</Label>
            </div>
          </div>

          {submitted && Object.keys(errors).length > 0 ? (
            <Alert variant="error">Corrigez les champs signalés avant d’enregistrer.</Alert>
          ) : null}

          <DialogFooter>
            <Button variant="outline" onClick={() => onOpenChange(false)}>
              Annuler
            </Button>
            <Button type="submit" disabled={save.isPending}>
              {save.isPending ? 'Enregistrement…' : 'Enregistrer'}
            </Button>
          </DialogFooter>
        </form>
      </DialogContent>
    </Dialog>
  );
}
