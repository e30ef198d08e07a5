import { useId, useState, type FormEvent } from 'react';
import { Button } from '@/components/ui/button';
import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
} from '@/components/ui/dialog';
import { Input } from '@/components/ui/input';
import { Field } from '@/components/ui/label';

/**
 * A dialog asking for one name ("Nouveau dossier", "Renommer"). The parent mounts it with a `key`
 * per use, so it opens with `initial` each time.
 */
export function NameDialog({
  title,
  description,
  label,
  initial = '',
  submitLabel,
  pending,
  error,
  onSubmit,
  onClose,
}: {
  title: string;
  description?: string;
  label: string;
  initial?: string;
  submitLabel: string;
  pending: boolean;
  error?: string | undefined;
  onSubmit(value: string): void;
  onClose(): void;
}) {
  const id = useId();
  const [value, setValue] = useState(initial);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!pending) onSubmit(value);
  };
  return (
    <Dialog open onOpenChange={(open) => (open ? undefined : onClose())}>
      <DialogContent>
        <form onSubmit={submit} className="grid gap-4">
          <DialogHeader>
            <DialogTitle>{title}</DialogTitle>
            <DialogDescription className={description ? undefined : 'sr-only'}>
              {description ?? title}
            </DialogDescription>
          </DialogHeader>
          <Field id={id} label={label} error={error}>
            <Input
              id={id}
              value={value}
              autoFocus
              autoComplete="off"
              aria-invalid={error ? true : undefined}
              aria-describedby={error ? `${id}-error` : undefined}
              onChange={(event) => setValue(event.target.value)}
            />
          </Field>
          <DialogFooter>
            <Button type="button" variant="outline" onClick={onClose}>
              Annuler
            </Button>
            <Button type="submit" disabled={pending}>
              {submitLabel}
            </Button>
          </DialogFooter>
        </form>
      </DialogContent>
    </Dialog>
  );
}
