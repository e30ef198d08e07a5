import { RING_FILES_MESSAGES, encryptedFileSize } from '@securering/contract';
import { describe, expect, it } from 'vitest';
import {
  ROOT_LABEL,
  STREAM_DOWNLOAD_DEFAULT_BYTES,
  TUS_THRESHOLD_BYTES,
  UNREADABLE_NAME,
  breadcrumbOf,
  checkUploads,
  contentDispositionOf,
  extensionOf,
  fileKindOf,
  joinPath,
  nameProblem,
  parentOf,
  percentOf,
  renameDecision,
  segmentsOf,
  shownListing,
  streamThresholdOf,
  uploadRouteOf,
} from './files-policy';

const MIB = 1024 * 1024;

describe('folder paths of encrypted segments', () => {
  const A = 'QUFBQUFBQUFBQUFBQUFBQUFBQUFB';
  const B = 'QkJCQkJCQkJCQkJCQkJCQkJCQkJC';

  it('joins, splits and climbs paths, "" being the root', () => {
    expect(joinPath('', A)).toBe(A);
    expect(joinPath(A, B)).toBe(`${A}/${B}`);
    expect(parentOf(`${A}/${B}`)).toBe(A);
    expect(parentOf(A)).toBe('');
    expect(segmentsOf('')).toEqual([]);
    expect(segmentsOf(`${A}/${B}`)).toEqual([A, B]);
  });

  it('builds the breadcrumb from "🏠 Racine" with decrypted labels, "Nom illisible" when one fails', () => {
    const names: Record<string, string> = { [A]: 'Projets' };
    expect(breadcrumbOf('', (s) => names[s])).toEqual([{ path: '', label: ROOT_LABEL }]);
    expect(ROOT_LABEL).toBe('🏠 Racine');
    expect(breadcrumbOf(`${A}/${B}`, (s) => names[s])).toEqual([
      { path: '', label: '🏠 Racine' },
      { path: A, label: 'Projets' },
      { path: `${A}/${B}`, label: UNREADABLE_NAME },
    ]);
    expect(UNREADABLE_NAME).toBe('Nom illisible');
  });
});

describe('icons by extension (of the decrypted name)', () => {
  it('reads the extension in lower case, none for dotfiles and names without one', () => {
    expect(extensionOf('Rapport.Final.PDF')).toBe('pdf');
    expect(extensionOf('notes')).toBe('');
    expect(extensionOf('.bashrc')).toBe('');
    expect(extensionOf('archive.')).toBe('');
  });

  it('sorts files into images, video, audio, archives, documents and others', () => {
    expect(fileKindOf('photo.JPG')).toBe('image');
    expect(fileKindOf('plan.png')).toBe('image');
    expect(fileKindOf('film.mp4')).toBe('video');
    expect(fileKindOf('voix.mp3')).toBe('audio');
    expect(fileKindOf('lot.zip')).toBe('archive');
    expect(fileKindOf('sauvegarde.tar.gz')).toBe('archive');
    expect(fileKindOf('contrat.pdf')).toBe('document');
    expect(fileKindOf('notes.txt')).toBe('document');
    expect(fileKindOf('programme.exe')).toBe('other');
    expect(fileKindOf('sans-extension')).toBe('other');
  });
});

describe('rename rules (spec 2 §5)', () => {
  it('ignores an empty, blank or unchanged name, and trims the new one', () => {
    expect(renameDecision('a.txt', '')).toEqual({ rename: false });
    expect(renameDecision('a.txt', '   ')).toEqual({ rename: false });
    expect(renameDecision('a.txt', 'a.txt')).toEqual({ rename: false });
    expect(renameDecision('a.txt', '  a.txt ')).toEqual({ rename: false });
    expect(renameDecision('a.txt', ' b.txt ')).toEqual({ rename: true, name: 'b.txt' });
    // An unreadable name counts as "" : any name is a change.
    expect(renameDecision('', 'b.txt')).toEqual({ rename: true, name: 'b.txt' });
  });

  it('refuses names the encryption cannot carry', () => {
    expect(nameProblem('Compte rendu.pdf')).toBeUndefined();
    expect(nameProblem('é'.repeat(255))).toBeUndefined();
    for (const bad of ['', '.', '..', 'a/b', 'tab\there', 'x'.repeat(256)])
      expect(nameProblem(bad)).toBe(RING_FILES_MESSAGES.invalidName);
  });
});

describe('size and quota check before a file is read', () => {
  const budget = { remainingBytes: 10 * MIB, maxFileBytes: encryptedFileSize(5 * MIB), maxFileSizeMb: 5 };

  it('accepts what fits, counting the encrypted size', () => {
    expect(checkUploads([{ name: 'a.txt', size: 5 * MIB }], budget)).toEqual([
      { ok: true, storedBytes: encryptedFileSize(5 * MIB) },
    ]);
  });

  it('refuses a file over the Ring’s size limit by one byte, with the limit in Mo', () => {
    expect(checkUploads([{ name: 'a.bin', size: 5 * MIB + 1 }], budget)).toEqual([
      { ok: false, reason: 'Fichier trop volumineux\u202f: 5 Mo maximum dans ce Ring' },
    ]);
  });

  it('refuses what the space left cannot hold, once the earlier files of the batch are counted', () => {
    const files = [
      { name: 'un.bin', size: 4 * MIB },
      { name: 'deux.bin', size: 4 * MIB },
      { name: 'trois.bin', size: 4 * MIB },
      { name: 'petit.txt', size: 1024 },
    ];
    const checks = checkUploads(files, budget);
    expect(checks.map((c) => c.ok)).toEqual([true, true, false, true]);
    expect(checks[2]).toEqual({ ok: false, reason: RING_FILES_MESSAGES.quotaExceeded });
  });

  it('refuses at the exact boundary of the space left: the encrypted size counts, not the plain one', () => {
    const plain = 1000;
    const exact = { ...budget, remainingBytes: encryptedFileSize(plain) };
    expect(checkUploads([{ name: 'a', size: plain }], exact)[0]!.ok).toBe(true);
    expect(checkUploads([{ name: 'a', size: plain }], { ...exact, remainingBytes: plain + 27 })[0]!.ok).toBe(
      false,
    );
  });

  it('refuses an unusable name before reading', () => {
    expect(checkUploads([{ name: 'x'.repeat(300), size: 1 }], budget)[0]).toEqual({
      ok: false,
      reason: RING_FILES_MESSAGES.invalidName,
    });
  });
});

describe('transport choices', () => {
  it('sends large files through tus, others through upload.php', () => {
    expect(uploadRouteOf(TUS_THRESHOLD_BYTES)).toBe('multipart');
    expect(uploadRouteOf(TUS_THRESHOLD_BYTES + 1)).toBe('tus');
  });

  it('computes whole percentages within 0–100', () => {
    expect(percentOf(0, 10)).toBe(0);
    expect(percentOf(5, 10)).toBe(50);
    expect(percentOf(999, 1000)).toBe(99);
    expect(percentOf(20, 10)).toBe(100);
    expect(percentOf(1, 0)).toBe(0);
  });

  it('streams downloads above 100 Mo unless the test knob lowers the threshold', () => {
    expect(STREAM_DOWNLOAD_DEFAULT_BYTES).toBe(100 * MIB);
    expect(streamThresholdOf(null)).toBe(100 * MIB);
    expect(streamThresholdOf('1048576')).toBe(MIB);
    for (const junk of ['', '0', '-5', '1e6', 'abc', '12.5']) expect(streamThresholdOf(junk)).toBe(100 * MIB);
  });

  it('names streamed downloads with the decrypted name, safely quoted', () => {
    expect(contentDispositionOf('rapport.pdf')).toBe(
      `attachment; filename="rapport.pdf"; filename*=UTF-8''rapport.pdf`,
    );
    expect(contentDispositionOf('Été "2026"\r\n.txt')).toBe(
      `attachment; filename="_t_ _2026___.txt"; filename*=UTF-8''%C3%89t%C3%A9%20%222026%22%0D%0A.txt`,
    );
    expect(contentDispositionOf("l'an (1)*.txt")).toContain(`filename*=UTF-8''l%27an%20%281%29%2A.txt`);
  });
});

describe('shownListing', () => {
  const first = { files: ['a'] };
  const refetched = { files: ['a', 'b'] };
  const read = { data: first, page: 'page of first', folder: 'docs' };

  it('shows the verified listing when it is the current answer', () => {
    expect(shownListing(read, first, 'docs')).toBe(read);
  });

  it('keeps the previous verified listing of the same folder while a refetch is being verified', () => {
    expect(shownListing(read, refetched, 'docs')).toBe(read);
  });

  it('never shows the listing of another folder, nor anything without a current answer', () => {
    expect(shownListing(read, refetched, '')).toBeUndefined();
    expect(shownListing(read, undefined, 'docs')).toBeUndefined();
    expect(shownListing(null, first, 'docs')).toBeUndefined();
  });
});
