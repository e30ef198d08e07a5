import { FileText, Palette, Settings } from 'lucide-react';
import { useState } from 'react';
import { Alert, LoadError } from '@/components/ui/alert';
import { Spinner } from '@/components/ui/spinner';
import { Tabs, TabsContent, TabsList, TabsTrigger } from '@/components/ui/tabs';
import { useAdminSession } from '@/lib/auth/admin-session';
import { useAdminSettings } from './settings-api';
import { SiteAppearanceSection } from './site-appearance-section';
import { SiteGeneralSection } from './site-general-section';
import { SiteLegalSection } from './site-legal-section';

/** "Site" (module site_settings): general settings, appearance, legal pages (spec 3 §2.10). */
export function SiteTab() {
  const session = useAdminSession();
  const canEdit = session.can('site_settings', 'edit');
  const general = useAdminSettings('general');
  const legal = useAdminSettings('legal');
  const [section, setSection] = useState('general');

  if (general.isPending || legal.isPending) return <Spinner label="Chargement des paramètres…" />;
  if (general.isError || legal.isError) {
    return (
      <LoadError
        onRetry={() => {
          void general.refetch();
          void legal.refetch();
        }}
      />
    );
  }

  return (
    <section aria-label="Paramètres du site" className="space-y-4">
      {!canEdit ? (
        <Alert variant="info">Lecture seule&#8239;: vous n’avez pas le droit de modifier ces paramètres.</Alert>
      ) : null}
      <Tabs value={section} onValueChange={setSection}>
        <TabsList>
          <TabsTrigger value="general">
            <Settings aria-hidden /> Général
          </TabsTrigger>
          <TabsTrigger value="appearance">
            <Palette aria-hidden /> Apparence
          </TabsTrigger>
          <TabsTrigger value="legal">
            <FileText aria-hidden /> Pages légales
          </TabsTrigger>
        </TabsList>
        {/* Each form starts from the settings loaded when it opens; saving refreshes the queries. */}
        <TabsContent value="general">
          <SiteGeneralSection initial={general.data} canEdit={canEdit} />
        </TabsContent>
        <TabsContent value="appearance">
          <SiteAppearanceSection initial={general.data} canEdit={canEdit} />
        </TabsContent>
        <TabsContent value="legal">
          <SiteLegalSection initial={legal.data} canEdit={canEdit} />
        </TabsContent>
      </Tabs>
    </section>
  );
}
