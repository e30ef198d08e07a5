import { PhoneCall } from 'lucide-react';
import { Button } from '@/components/ui/button';
import type { OngoingCall } from './call-popups';
import { callTitle } from './call-policy';

/**
 * The room's reminder of a call going on in its popup (issue 28: « Retour » in the call window
 * comes back here with the call still running): « Appel vocal avec … en cours » and « Revenir à
 * l'appel », which brings the popup to the front. A lazy chunk: shown only during a call.
 */
export default function OngoingCallBar({ calls }: { calls: readonly OngoingCall[] }) {
  return (
    <div
      role="region"
      aria-label="Appel en cours"
      className="fixed inset-x-3 top-2 z-40 mx-auto flex max-w-md flex-col gap-2"
    >
      {calls.map((call) => (
        <div
          key={call.params.callId}
          className="flex items-center gap-3 rounded-xl bg-emerald-700 px-3 py-2 text-sm text-white shadow-lg"
        >
          <PhoneCall className="size-4 shrink-0 animate-pulse" aria-hidden />
          <p className="min-w-0 flex-1 truncate" data-testid="ongoing-call">
            {callTitle(call.params.audioOnly, call.params.peerName)} en cours
          </p>
          <Button
            size="sm"
            variant="secondary"
            className="h-7 shrink-0 px-2 text-xs"
            onClick={() => call.focus()}
          >
            Revenir à l’appel
          </Button>
        </div>
      ))}
    </div>
  );
}
