/**
 * What a member deactivated and then reactivated can read (issue 28), and why: its reactivation
 * starts a new key epoch that reaches it (no one needs to post), and the server shares no epoch
 * before it (`first_readable_epoch`).
 */
export function ReadableAfterReactivation() {
  return (
    <span className="mt-2 block" data-testid="reactivation-reading">
      Dès votre réactivation dans le journal, une nouvelle clé du Ring vous est remise automatiquement, sans
      que personne n’ait à écrire, et vous lisez tous les messages envoyés à partir de ce moment. Les messages
      antérieurs (ceux de votre suspension comme ceux d’avant) ne vous sont pas remis&#8239;: votre accès
      repart d’une nouvelle clé, et les clés des messages précédents ne vous sont pas transmises.
    </span>
  );
}
