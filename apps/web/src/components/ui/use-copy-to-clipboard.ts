import { useToast } from './toast';

type CopyToast = Omit<Parameters<ReturnType<typeof useToast>>[0], 'variant'>;

/**
 * Copies a text to the clipboard and says so: `copied` as a success toast, `failed` as an error
 * toast when the clipboard refuses (or is not available).
 */
export function useCopyToClipboard(copied: CopyToast, failed: CopyToast) {
  const notify = useToast();
  return async (text: string) => {
    try {
      await navigator.clipboard.writeText(text);
      notify({ ...copied, variant: 'success' });
    } catch {
      notify({ ...failed, variant: 'error' });
    }
  };
}
