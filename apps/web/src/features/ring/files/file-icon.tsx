import { File, FileArchive, FileImage, FileMusic, FileText, FileVideoCamera } from 'lucide-react';
import { cn } from '@/lib/utils';
import type { FileKind } from './files-policy';

const ICONS: Record<FileKind, { icon: typeof File; color: string }> = {
  image: { icon: FileImage, color: 'text-emerald-600' },
  video: { icon: FileVideoCamera, color: 'text-violet-600' },
  audio: { icon: FileMusic, color: 'text-pink-600' },
  archive: { icon: FileArchive, color: 'text-amber-600' },
  document: { icon: FileText, color: 'text-blue-600' },
  other: { icon: File, color: 'text-slate-500' },
};

/** The icon of a file family (spec 2 §2: images, video, audio, archives, documents). */
export function FileIcon({ kind, className }: { kind: FileKind; className?: string }) {
  const { icon: Icon, color } = ICONS[kind];
  return <Icon className={cn('size-5 shrink-0', color, className)} aria-hidden data-file-kind={kind} />;
}
