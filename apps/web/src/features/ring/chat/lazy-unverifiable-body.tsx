import { lazy, Suspense } from 'react';

// Rare (a message that does not verify): its label and the key-change check load when first needed.
const Body = lazy(() => import('./unverifiable-body').then((m) => ({ default: m.UnverifiableBody })));

/** « Message non vérifiable », or pending confirmation of the sender's new key (issue 28). */
export function LazyUnverifiableBody(props: { senderId: string; senderName: string }) {
  return (
    <Suspense fallback={<span className="italic opacity-70">Déchiffrement…</span>}>
      <Body {...props} />
    </Suspense>
  );
}
