import type { TRingUser } from '@securering/contract';

/**
 * "2 utilisateurs et vous (propriétaire)": the members the plan counts (accepted or invited, not
 * deactivated), then the owner, who is listed but not counted — as the "Utilisateurs" card counts.
 */
export function membersSummary(users: readonly TRingUser[]): string {
  const counted = users.filter((u) => u.role !== 'owner' && u.status !== 'inactive').length;
  const inactive = users.filter((u) => u.role !== 'owner' && u.status === 'inactive').length;
  const owner = users.some((u) => u.role === 'owner') ? ' et vous (propriétaire)' : '';
  const people = `${counted} utilisateur${counted > 1 ? 's' : ''}${owner}`;
  return inactive > 0 ? `${people}\u202f; ${inactive} désactivé${inactive > 1 ? 's' : ''}, non compté${inactive > 1 ? 's' : ''}` : people;
}
