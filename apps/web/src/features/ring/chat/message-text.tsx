import { Copy } from 'lucide-react';
import { useMemo, useState, type MouseEvent } from 'react';
import { cn } from '@/lib/utils';
import { useChat } from './chat-provider';
import { collapseSegments, externalHost, linkify, messageTextAccess } from './message-text-policy';

/**
 * A decrypted message's text: links (http, https, www.) clickable, opened in a new tab without
 * referrer — after a one-line confirmation naming the domain when they leave SecureRing; nothing is
 * ever fetched for a preview. Past 1,500 characters the start shows with « Afficher plus ». At the
 * Ring's strict protection level the text cannot be selected and « Copier » copies it instead.
 */
export function MessageText({ text, own }: { text: string; own: boolean }) {
  const level = useChat().info.ring.screenProtection.level;
  const access = messageTextAccess(level);
  const segments = useMemo(() => linkify(text), [text]);
  const collapsed = useMemo(() => collapseSegments(segments), [segments]);
  const [expanded, setExpanded] = useState(false);
  const [leaving, setLeaving] = useState<{ href: string; host: string } | null>(null);
  const [copied, setCopied] = useState<boolean | null>(null);
  const shown = expanded || !collapsed ? segments : collapsed;

  const handleLink = (event: MouseEvent<HTMLAnchorElement>, href: string) => {
    const host = externalHost(href, window.location.origin);
    if (host === null) return;
    event.preventDefault();
    setLeaving({ href, host });
  };

  const action = cn(
    'rounded px-1 font-medium underline underline-offset-2',
    own ? 'text-inherit' : 'text-primary',
  );
  return (
    <>
      <span className={access.selectable ? 'select-text' : 'select-none'} data-testid="message-text">
        {shown.map((segment, i) =>
          segment.kind === 'text' ? (
            segment.text
          ) : (
            <a
              key={i}
              href={segment.href}
              target="_blank"
              rel="noopener noreferrer"
              className="underline underline-offset-2"
              onClick={(event) => handleLink(event, segment.href)}
            >
              {segment.text}
            </a>
          ),
        )}
      </span>
      {collapsed ? (
        <button type="button" className={cn('mt-1 block', action)} onClick={() => setExpanded((v) => !v)}>
          {expanded ? 'Afficher moins' : 'Afficher plus'}
        </button>
      ) : null}
      {leaving ? (
        <span
          role="alert"
          className="mt-1 flex flex-wrap items-center gap-x-2 text-xs"
          data-testid="link-warning"
        >
          <span>
            Ce lien mène à <strong>{leaving.host}</strong> —
          </span>
          <button
            type="button"
            className={action}
            onClick={() => {
              window.open(leaving.href, '_blank', 'noopener,noreferrer');
              setLeaving(null);
            }}
          >
            Ouvrir
          </button>
          <button type="button" className={action} onClick={() => setLeaving(null)}>
            Annuler
          </button>
        </span>
      ) : null}
      {access.copyAction ? (
        <button
          type="button"
          className={cn('mt-1 flex items-center gap-1 text-xs', action)}
          onClick={() =>
            void navigator.clipboard.writeText(text).then(
              () => setCopied(true),
              () => setCopied(false),
            )
          }
        >
          <Copy className="size-3" aria-hidden />
          {copied === true ? 'Copié' : copied === false ? 'Copie impossible' : 'Copier'}
        </button>
      ) : null}
    </>
  );
}
