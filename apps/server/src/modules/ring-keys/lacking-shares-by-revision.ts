import type { KeyedMember } from './ring-keys.repository';

export type LackingShare = KeyedMember & { epoch: number };

/** How many Rings' lists an instance keeps (the most recently asked). */
export const LACKING_SHARES_RINGS_KEPT = 64;
/** A Ring-wide list longer than this is not kept: each caller's own query answers instead. */
export const LACKING_SHARES_ROWS_KEPT = 1000;

/**
 * Who lacks which epoch key in a Ring (the Ring-wide list: every active admitted member with
 * published keys and every epoch it may read and holds no valid share of), kept by Ring and key
 * revision and shared by every key-state read of that revision (issue 30).
 *
 * After a rotation every member's page reads its key state at once (`keys_changed`): with a list
 * per caller, a 300-member Ring ran 300 times the same join of members, keys, epochs and shares
 * (about 7 ms of PostgreSQL each, planned anew each time), while its messages waited behind them.
 *
 * Keyed by the revision of the Ring row the request read: the revision is raised with every change
 * the list depends on (epochs, shares, members' keys, admissions, deactivations, the level and the
 * history setting: migration 20261128-001), in the change's transaction or, for shares given
 * (`share.php`), right after it commits — never before — so a list is never older than the
 * revision it is kept under. A list read after a newer change landed is fresher than its key,
 * never staler. `read` resolves undefined for a list too long to keep (the caller then asks for
 * its own part).
 */
export class LackingSharesByRevision {
  private readonly lists = new Map<string, { revision: number; rows: Promise<LackingShare[] | undefined> }>();

  constructor(
    private readonly read: (ringId: string) => Promise<LackingShare[] | undefined>,
    private readonly ringsKept = LACKING_SHARES_RINGS_KEPT,
  ) {}

  /** The Ring-wide list at `revision` (read once, then shared), or undefined when too long to keep. */
  get(ringId: string, revision: number): Promise<LackingShare[] | undefined> {
    const kept = this.lists.get(ringId);
    if (kept && kept.revision === revision) {
      // Most recently asked last: the first entries are the ones forgotten.
      this.lists.delete(ringId);
      this.lists.set(ringId, kept);
      return kept.rows;
    }
    const rows = this.read(ringId);
    // A read that fails is not kept: the next caller reads again.
    rows.catch(() => {
      if (this.lists.get(ringId)?.rows === rows) this.lists.delete(ringId);
    });
    // An older revision's request does not replace a newer list.
    if (!kept || kept.revision < revision) {
      this.lists.delete(ringId);
      this.lists.set(ringId, { revision, rows });
      if (this.lists.size > this.ringsKept) this.lists.delete(this.lists.keys().next().value!);
    }
    return rows;
  }
}

/**
 * A caller's part of the Ring-wide list: the other members lacking epochs the caller holds (it
 * can wrap only those), in the list's order (member id, then epoch).
 */
export function lackingForCaller(
  ringWide: readonly LackingShare[],
  callerId: string,
  heldEpochs: ReadonlySet<number>,
): LackingShare[] {
  return ringWide.filter((row) => row.id !== callerId && heldEpochs.has(row.epoch));
}
