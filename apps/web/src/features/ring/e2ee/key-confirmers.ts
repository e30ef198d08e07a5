/**
 * Who must confirm a member's new keys, in words: the names the membership log gives the owner and
 * the Ring admins (« Claire Fontaine ou Marc »), or the roles when the log names none yet.
 */
export function whoMayConfirm(confirmers: ReadonlyArray<{ username: string }>): string {
  const names = [...new Set(confirmers.map((c) => c.username.trim()).filter(Boolean))];
  if (names.length === 0) return 'le propriétaire ou un admin du Ring';
  if (names.length === 1) return names[0]!;
  return `${names.slice(0, -1).join(', ')} ou ${names.at(-1)!}`;
}

/** The composer's note while this member's new keys wait for confirmation. */
export function keyPendingNote(confirmers: ReadonlyArray<{ username: string }>): string {
  return `Envoi impossible pour l’instant\u202f: vos nouvelles clés attendent la confirmation de ${whoMayConfirm(confirmers)}.`;
}
