import { Loader2, RotateCw, X } from 'lucide-react';
import { useSyncExternalStore } from 'react';
import { Button } from '@/components/ui/button';
import { ProgressBar } from '@/components/ui/progress-bar';
import { FILES_TEXT, uploadStore, type UploadJob } from './uploads';

const STATUS_TEXT: Record<UploadJob['status'], string> = {
  encrypting: 'Chiffrement…',
  uploading: 'Envoi…',
  interrupted: FILES_TEXT.interrupted,
  done: 'Envoyé',
};

/** Uploads in progress with their percentage (spec 2 §2), and Reprendre / Annuler. */
export function UploadList() {
  const jobs = useSyncExternalStore(uploadStore.subscribe, uploadStore.getSnapshot);
  if (jobs.length === 0) return null;
  return (
    <ul aria-label="Envois en cours" className="space-y-2">
      {jobs.map((job) => (
        <li
          key={job.id}
          aria-label={job.name}
          className="rounded-lg border border-slate-200 bg-white px-3 py-2 text-sm"
          data-upload-status={job.status}
        >
          <div className="flex items-center gap-2">
            {job.status === 'encrypting' || job.status === 'uploading' ? (
              <Loader2 className="size-4 shrink-0 animate-spin text-primary" aria-hidden />
            ) : null}
            <span className="min-w-0 flex-1 truncate font-medium">{job.name}</span>
            <span className="shrink-0 text-slate-500">{STATUS_TEXT[job.status]}</span>
            <span className="w-14 shrink-0 whitespace-nowrap text-right font-semibold tabular-nums">
              {`${job.percent}\u202f%`}
            </span>
            {job.status === 'interrupted' ? (
              <Button size="sm" variant="outline" onClick={() => uploadStore.resume(job.id)}>
                <RotateCw aria-hidden /> Reprendre
              </Button>
            ) : null}
            {job.status !== 'done' ? (
              <Button
                size="icon"
                variant="ghost"
                className="size-8"
                aria-label={`Annuler l’envoi de ${job.name}`}
                onClick={() => uploadStore.cancel(job.id)}
              >
                <X aria-hidden />
              </Button>
            ) : null}
          </div>
          <ProgressBar
            label={`Envoi de ${job.name}`}
            percent={job.percent}
            className="mt-2 h-1.5 bg-slate-100"
            barClassName={job.status === 'interrupted' ? 'bg-amber-400' : 'bg-primary'}
          />
        </li>
      ))}
    </ul>
  );
}
