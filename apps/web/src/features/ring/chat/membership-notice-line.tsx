import { UserCheck, UserX } from 'lucide-react';
import type { MembershipNotice } from './membership-notices';

/** The timeline line of a membership notice. */
export function MembershipNoticeLine({ notice }: { notice: MembershipNotice }) {
  const Icon = notice.back ? UserCheck : UserX;
  return (
    <div className="flex justify-center">
      <p
        role="note"
        data-testid="membership-notice"
        className="inline-flex items-center gap-1 rounded-full bg-slate-100 px-3 py-1 text-xs text-slate-700"
      >
        <Icon className="size-3.5" aria-hidden />
        {notice.back
          ? `${notice.username} a été réactivé dans le Ring`
          : `${notice.username} a été retiré du Ring`}
      </p>
    </div>
  );
}
