import { MAX_JOIN_CATCH_UP, type TJoinCatchUp, type TJoinMissed } from '@securering/contract';

/** A feature holding conversations that a join_ring can catch up (the chat's feeds). */
export interface JoinCatchUpSource {
  /** The conversations held now, each with the highest sequence number held. */
  held(): TJoinCatchUp[];
  /**
   * join_ring was answered: `asked` names the conversations asked (of every source), `missed` the
   * answers among them. A conversation held but not answered catches up another way.
   */
  joined(asked: ReadonlySet<string>, missed: ReadonlyMap<string, TJoinMissed>): void;
}

/**
 * Between the room's socket and the features that catch up at each join: gathers what they hold
 * for join_ring's `catchUp` (at most MAX_JOIN_CATCH_UP conversations, in the order the sources
 * registered), hands them the answer, and tells whether the socket is joined now (pushes that skip
 * sequence numbers before the answer arrives wait for it rather than fetch what it brings).
 */
export class JoinCatchUpHub {
  private readonly sources = new Set<JoinCatchUpSource>();
  private joinedNow = false;

  register(source: JoinCatchUpSource): () => void {
    this.sources.add(source);
    return () => this.sources.delete(source);
  }

  /** True between a join_ring answer and the next drop of the connection. */
  get isJoined(): boolean {
    return this.joinedNow;
  }

  /** What the next join_ring asks. */
  request(): TJoinCatchUp[] {
    const items: TJoinCatchUp[] = [];
    const seen = new Set<string>();
    for (const source of this.sources)
      for (const item of source.held()) {
        if (items.length >= MAX_JOIN_CATCH_UP) return items;
        if (seen.has(item.conversationId)) continue;
        seen.add(item.conversationId);
        items.push(item);
      }
    return items;
  }

  /** The connection dropped (or is being made): the socket is not joined. */
  left(): void {
    this.joinedNow = false;
  }

  /** join_ring answered `missed` for `asked`. */
  answered(missed: readonly TJoinMissed[], asked: readonly TJoinCatchUp[]): void {
    this.joinedNow = true;
    const askedIds = new Set(asked.map((item) => item.conversationId));
    const byId = new Map(
      missed.filter((m) => askedIds.has(m.conversationId)).map((m) => [m.conversationId, m]),
    );
    for (const source of [...this.sources]) source.joined(askedIds, byId);
  }
}
