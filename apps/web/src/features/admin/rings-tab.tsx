import { Alert, LoadError } from '@/components/ui/alert';
import { Spinner } from '@/components/ui/spinner';
import { useAdminSession } from '@/lib/auth/admin-session';
import { useAdminSettings } from './settings-api';
import { RingsGeneralForm, RingsRealtimeForm } from './rings-settings-forms';
import { RingsStatusCard } from './rings-status-card';

/** "Rings" (module site_settings): Ring and realtime settings, realtime service status (spec 3 §2.11). */
export function RingsTab() {
  const session = useAdminSession();
  const canEdit = session.can('site_settings', 'edit');
  const general = useAdminSettings('general');
  const realtime = useAdminSettings('realtime');

  let forms;
  if (general.isPending || realtime.isPending) forms = <Spinner label="Chargement des paramètres…" />;
  else if (general.isError || realtime.isError)
    forms = (
      <LoadError
        onRetry={() => {
          void general.refetch();
          void realtime.refetch();
        }}
      />
    );
  else
    forms = (
      <div className="grid gap-4 xl:grid-cols-2">
        <RingsGeneralForm initial={general.data} canEdit={canEdit} />
        <RingsRealtimeForm initial={realtime.data} canEdit={canEdit} />
      </div>
    );

  return (
    <section aria-label="Paramètres des Rings" className="space-y-4">
      <RingsStatusCard />
      {!canEdit ? (
        <Alert variant="info">Lecture seule&#8239;: vous n’avez pas le droit de modifier ces paramètres.</Alert>
      ) : null}
      {forms}
    </section>
  );
}
