import { HardDrive } from 'lucide-react';
import { formatStorage } from '@/lib/bytes';
import { ProgressBar } from '@/components/ui/progress-bar';

/** Used over allocated, capped at 100 %. */
export function usagePercent(used: number, allocated: number): number {
  if (!Number.isFinite(used) || !Number.isFinite(allocated) || allocated <= 0) return 0;
  return Math.min(100, (used / allocated) * 100);
}

export interface StorageBytes {
  allocated: number;
  used: number;
  remaining: number;
}

/** The summary line: "1,20 Go utilisés sur 5,00 Go", "26,3 Mo utilisés sur 5,00 Go" (or dashes while unknown). */
export function storageSummary(bytes: StorageBytes): string {
  return `${formatStorage(bytes.used)} utilisés sur ${formatStorage(bytes.allocated)}`;
}

/** The file space's storage (spec 2 §2): allocated, used, remaining (Go, or Mo under 1 Go: issue 28) and a progress bar. */
export function StoragePanel({ bytes }: { bytes: StorageBytes }) {
  const percent = usagePercent(bytes.used, bytes.allocated);
  return (
    <section
      aria-label="Espace de stockage"
      className="space-y-3 rounded-xl border border-slate-200 bg-white p-4"
    >
      <h2 className="flex items-center gap-2 font-semibold">
        <HardDrive className="size-4 text-primary" aria-hidden /> Espace de stockage
      </h2>
      <p className="text-sm text-slate-600">{storageSummary(bytes)}</p>
      <dl className="grid grid-cols-3 gap-2 text-sm">
        <div>
          <dt className="text-slate-500">Alloué</dt>
          <dd className="font-medium">{formatStorage(bytes.allocated)}</dd>
        </div>
        <div>
          <dt className="text-slate-500">Utilisé</dt>
          <dd className="font-medium">{formatStorage(bytes.used)}</dd>
        </div>
        <div>
          <dt className="text-slate-500">Restant</dt>
          <dd className="font-medium">{formatStorage(bytes.remaining)}</dd>
        </div>
      </dl>
      <ProgressBar
        label="Espace utilisé"
        percent={percent}
        className="h-2 bg-slate-100"
        barClassName="rounded-full bg-primary"
      />
    </section>
  );
}
