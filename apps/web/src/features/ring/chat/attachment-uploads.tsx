import { AlertTriangle, Paperclip, X } from 'lucide-react';
import { useSyncExternalStore } from 'react';
import { Button } from '@/components/ui/button';
import { ProgressBar } from '@/components/ui/progress-bar';
import { formatFileSize } from '@/lib/bytes';
import { attachmentUploads, type AttachmentUpload } from './attachment-send';

const STATUS_TEXT: Record<Exclude<AttachmentUpload['status'], 'failed'>, string> = {
  preparing: 'Chiffrement…',
  uploading: 'Envoi chiffré',
  sending: 'Envoi du message…',
};

/**
 * The attachments of a conversation on their way (issue 29): one card per file with its progress,
 * or the file space's French error (file too large, storage full) and « Fermer ». Loaded with the
 * first attachment.
 */
export default function AttachmentUploads({
  conversationId,
  note,
}: {
  conversationId: string;
  note?: string;
}) {
  const all = useSyncExternalStore(attachmentUploads.subscribe, attachmentUploads.getSnapshot);
  const items = all.filter((item) => item.conversationId === conversationId);
  if (items.length === 0) return null;
  return (
    <div className="border-t border-slate-100 px-3 pt-2 sm:px-4">
      {note ? <p className="mb-2 text-xs text-amber-800">{note}</p> : null}
      <ul aria-label="Pièces jointes en cours d’envoi" className="space-y-2">
        {items.map((item) => (
          <li
            key={item.id}
            data-testid="attachment-upload"
            data-status={item.status}
            className="flex items-center gap-2 rounded-lg border border-slate-200 bg-slate-50 px-3 py-2 text-sm"
          >
            {item.status === 'failed' ? (
              <AlertTriangle className="size-4 shrink-0 text-red-700" aria-hidden />
            ) : (
              <Paperclip className="size-4 shrink-0 text-slate-500" aria-hidden />
            )}
            <div className="min-w-0 flex-1">
              <p className="truncate font-medium text-slate-800" title={item.name}>
                {item.name} <span className="font-normal text-slate-500">· {formatFileSize(item.size)}</span>
              </p>
              {item.status === 'failed' ? (
                <p role="alert" className="text-xs text-red-700">
                  {item.error}
                </p>
              ) : (
                <div className="mt-1 flex items-center gap-2">
                  <ProgressBar
                    label={`Envoi de ${item.name}`}
                    percent={item.percent}
                    className="h-1.5 flex-1 bg-slate-200"
                    barClassName="bg-primary transition-[width]"
                  />
                  <span className="shrink-0 text-xs text-slate-500">
                    {STATUS_TEXT[item.status]} {item.status === 'uploading' ? `${item.percent}\u202f%` : ''}
                  </span>
                </div>
              )}
            </div>
            {item.status === 'failed' ? (
              <Button
                variant="ghost"
                size="sm"
                className="h-7 px-2"
                aria-label="Fermer"
                onClick={() => attachmentUploads.remove(item.id)}
              >
                <X aria-hidden />
              </Button>
            ) : null}
          </li>
        ))}
      </ul>
    </div>
  );
}
