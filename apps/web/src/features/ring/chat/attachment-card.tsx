import { AlertTriangle, Download } from 'lucide-react';
import { useMemo, useState } from 'react';
import { Button } from '@/components/ui/button';
import { useToast } from '@/components/ui/toast';
import { formatFileSize } from '@/lib/bytes';
import { downloadFailureToast, downloadWithKey } from '../files/downloads';
import { FileIcon } from '../files/file-icon';
import { fileKindOf } from '../files/files-policy';
import { type Attachment, attachmentKey, parseAttachment } from './attachment-message';

/**
 * An attachment in a conversation (issue 29): name, size, « Télécharger » and, for an image, the
 * preview the sender put in the (encrypted) message. The download uses the key and the content
 * binding the message carries: bytes the server swapped or cut do not decrypt and are refused.
 * Loaded with the first attachment shown.
 */
export default function AttachmentCard({ text }: { text: string }) {
  const attachment = useMemo(() => parseAttachment(text), [text]);
  if (!attachment)
    return (
      <span className="inline-flex items-center gap-1 italic" data-testid="attachment-invalid">
        <AlertTriangle className="size-3.5" aria-hidden /> Pièce jointe illisible
      </span>
    );
  return <Card attachment={attachment} />;
}

function Card({ attachment }: { attachment: Attachment }) {
  const notify = useToast();
  const [downloading, setDownloading] = useState(false);
  const preview = previewUrl(attachment);
  const size = formatFileSize(attachment.size);

  const handleDownload = async () => {
    setDownloading(true);
    try {
      await downloadWithKey(attachment.fileId, attachmentKey(attachment), attachment.name, {
        plainSize: attachment.size,
        content: attachment.content,
      });
    } catch (error) {
      notify(downloadFailureToast(error));
    } finally {
      setDownloading(false);
    }
  };

  return (
    <div
      data-testid="attachment-card"
      className="w-72 max-w-full overflow-hidden rounded-xl border border-slate-200 bg-white text-left text-slate-900 shadow-sm"
    >
      {preview && attachment.thumb ? (
        <img
          src={preview}
          alt={`Aperçu de ${attachment.name}`}
          width={attachment.thumb.width}
          height={attachment.thumb.height}
          className="block h-auto max-h-64 w-full bg-slate-100 object-contain"
          data-testid="attachment-preview"
        />
      ) : null}
      <div className="flex items-center gap-2 p-2">
        <FileIcon kind={fileKindOf(attachment.name)} />
        <div className="min-w-0 flex-1">
          <p className="line-clamp-2 text-sm font-medium [overflow-wrap:anywhere]" title={attachment.name}>
            {attachment.name}
          </p>
          <p className="text-xs text-slate-500">{size}</p>
        </div>
        <Button
          size="sm"
          variant="outline"
          className="shrink-0"
          disabled={downloading}
          aria-label={`Télécharger ${attachment.name}`}
          onClick={() => void handleDownload()}
        >
          <Download aria-hidden />
          {/* On a phone the icon alone (its accessible name says it). */}
          <span className="hidden sm:inline">{downloading ? 'Téléchargement…' : 'Télécharger'}</span>
        </Button>
      </div>
    </div>
  );
}

/**
 * The thumbnail the message carries as a data: URL (the page's CSP allows data: images): it never
 * leaves the page, and nothing needs revoking.
 */
function previewUrl(attachment: Attachment): string | null {
  const thumb = attachment.thumb;
  return thumb ? `data:${thumb.type};base64,${thumb.data}` : null;
}
