import { Save } from 'lucide-react';
import type { ReactNode } from 'react';
import { Button } from '@/components/ui/button';
import { Card, CardContent, CardDescription, CardFooter, CardHeader, CardTitle } from '@/components/ui/card';

interface SettingsFormCardProps {
  title: string;
  description: ReactNode;
  /** Admins without the edit right see the values but no save button. */
  canEdit: boolean;
  saving: boolean;
  onSave: () => void;
  saveLabel?: string;
  contentClassName?: string;
  children: ReactNode;
}

/** One settings form of the back office: a card whose footer saves the fields it holds. */
export function SettingsFormCard({
  title,
  description,
  canEdit,
  saving,
  onSave,
  saveLabel = 'Enregistrer',
  contentClassName,
  children,
}: SettingsFormCardProps) {
  return (
    <form
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        onSave();
      }}
    >
      <Card>
        <CardHeader>
          <CardTitle>{title}</CardTitle>
          <CardDescription>{description}</CardDescription>
        </CardHeader>
        <CardContent className={contentClassName}>{children}</CardContent>
        {canEdit ? (
          <CardFooter>
            <Button type="submit" disabled={saving}>
              <Save aria-hidden /> {saving ? 'Enregistrement…' : saveLabel}
            </Button>
          </CardFooter>
        ) : null}
      </Card>
    </form>
  );
}
