import { Tabs, TabsContent, TabsList, TabsTrigger } from '@/components/ui/tabs';
import { useGeneralSettings } from '@/lib/site-settings';
import { renderEmailPreview, type PreviewSource } from './emails-preview-render';

/**
 * A template preview. The HTML is shown in an iframe with an empty sandbox: no script, form,
 * popup or navigation of the console can come from a template.
 */
export function EmailPreview({ source }: { source: PreviewSource }) {
  const general = useGeneralSettings();
  const preview = renderEmailPreview(source, general.site_name || 'SecureRing');
  return (
    <div className="space-y-3">
      <p className="text-sm">
        <span className="font-medium text-slate-600">Sujet&#8239;: </span>
        {preview.subject}
      </p>
      <Tabs defaultValue="html">
        <TabsList>
          <TabsTrigger value="html">HTML</TabsTrigger>
          <TabsTrigger value="text">Texte</TabsTrigger>
        </TabsList>
        <TabsContent value="html" className="mt-3">
          <iframe
            title="Aperçu de l’email"
            sandbox=""
            srcDoc={preview.html}
            referrerPolicy="no-referrer"
            className="h-[28rem] w-full rounded-md border border-slate-200 bg-white"
          />
        </TabsContent>
        <TabsContent value="text" className="mt-3">
          <pre className="max-h-[28rem] overflow-auto whitespace-pre-wrap rounded-md border border-slate-200 bg-slate-50 p-3 text-sm">
            {preview.text || '(aucune version texte)'}
          </pre>
        </TabsContent>
      </Tabs>
      <p className="text-xs text-slate-500">Les variables sont remplacées par des valeurs d’exemple.</p>
    </div>
  );
}
