import {
  MEMBERSHIP_LOG_MESSAGES,
  type TMembershipLink,
  type TMembershipLogResponse,
} from '@securering/contract';
import {
  isE2eeError,
  parseMembershipLink,
  verifyMembershipLog,
  type MembershipLink,
  type MembershipState,
} from '@securering/e2ee';
import type { AppContext } from '../../app-context';
import { AppError, badRequest } from '../../lib/app-error';
import { RingKeysService } from '../ring-keys/ring-keys.service';
import { endMemberAccess } from '../rings/end-access';
import type { RingMembership } from '../rings/ring.guard';
import { checkLinkAgainstRing, linkTarget } from './membership-log.policy';
import { MembershipLogRepository } from './membership-log.repository';

/** Verified log states kept in memory, by Ring (the most recently used). */
const CACHED_STATES = 256;

/** Links that change who reads new messages: a new epoch becomes due (admission starts one). */
const READERS_CHANGES = new Set<MembershipLink['type']>(['admit', 'deactivate', 'reactivate', 'key_change']);

/**
 * The signed membership log of a Ring (issue 24). The server stores and serves links; before
 * storing one it verifies it with the browsers' own verifier (signature, chain, who may make it)
 * and checks it agrees with the Ring as it knows it, then applies it: admission (the member may
 * receive Ring keys from the next epoch on, or earlier ones when the admitting member shares the
 * history), refusal and deactivation (the member's access ends now), roles, key changes, level.
 */
export class MembershipLogService {
  private readonly repo: MembershipLogRepository;
  private readonly states = new Map<string, MembershipState>();

  constructor(private readonly ctx: AppContext) {
    this.repo = new MembershipLogRepository(ctx.db);
  }

  /** GET keys/log.php: the links after `after` (every member of the Ring may read the log). */
  async links(caller: RingMembership, after: number): Promise<TMembershipLogResponse> {
    const rows = await this.repo.linksAfter(caller.ring.id, after);
    return {
      success: true,
      links: rows.map((row) => JSON.parse(row.link) as TMembershipLink),
      headSeq: rows.at(-1)?.seq ?? caller.ring.log_head_seq,
    };
  }

  /** The verified state at the Ring's head `head` (from memory, else the whole chain verified). */
  private async stateAt(
    ringId: string,
    head: { seq: number; hash: string },
  ): Promise<MembershipState | undefined> {
    if (head.seq < 0) return undefined;
    const cached = this.states.get(ringId);
    if (cached && cached.head.seq === head.seq && cached.head.hash === head.hash) return cached;
    const rows = await this.repo.linksAfter(ringId, -1);
    const state = await verifyMembershipLog(
      rows.map((row) => JSON.parse(row.link) as unknown),
      { ringId },
    );
    this.remember(ringId, state);
    return state;
  }

  private remember(ringId: string, state: MembershipState): void {
    this.states.delete(ringId);
    this.states.set(ringId, state);
    if (this.states.size > CACHED_STATES) this.states.delete(this.states.keys().next().value as string);
  }

  /** POST keys/log.php: appends one link signed by the caller after the current head. */
  async append(caller: RingMembership, input: unknown): Promise<{ seq: number; hash: string }> {
    const { ctx } = this;
    const { ring, member } = caller;
    let link: MembershipLink;
    try {
      link = parseMembershipLink(input);
    } catch {
      throw badRequest(MEMBERSHIP_LOG_MESSAGES.invalidLink);
    }
    if (link.seq !== ring.log_head_seq + 1) throw headMoved(ring.log_head_seq);
    const before = await this.stateAt(ring.id, { seq: ring.log_head_seq, hash: ring.log_head_hash });
    let after: MembershipState;
    try {
      after = await verifyMembershipLog([link], { ringId: ring.id, ...(before ? { from: before } : {}) });
    } catch (error) {
      if (isE2eeError(error)) throw badRequest(MEMBERSHIP_LOG_MESSAGES.invalidLink);
      throw error;
    }
    const targetId = linkTarget(link);
    const [callerView, target] = await Promise.all([
      this.repo.findMember(ring.id, member.id),
      targetId ? this.repo.findMember(ring.id, targetId) : Promise.resolve(undefined),
    ]);
    if (!callerView) throw badRequest(MEMBERSHIP_LOG_MESSAGES.invalidLink);
    const refusal = checkLinkAgainstRing(link, ring, callerView, target);
    if (refusal) throw badRequest(refusal);

    // The verifier hashed the link already: it is the new head.
    const { hash } = after.head;
    const nowIso = ctx.clock.now().toISOString();
    await ctx.db.transaction().execute(async (trx) => {
      const currentEpoch = await this.repo.advanceHead(
        ring.id,
        { seq: link.seq, hash },
        {
          readersChanged: READERS_CHANGES.has(link.type),
          ...(link.type === 'genesis' || link.type === 'level' ? { level: link.body.level } : {}),
        },
        nowIso,
        trx,
      );
      if (currentEpoch === undefined) throw headMoved(ring.log_head_seq);
      await this.repo.insertLink(
        {
          ring_id: ring.id,
          seq: link.seq,
          hash,
          type: link.type,
          author_member_id: link.author,
          link: JSON.stringify(link),
          created_at: nowIso,
        },
        trx,
      );
      const update = (memberId: string, changes: Parameters<MembershipLogRepository['updateMember']>[2]) =>
        this.repo.updateMember(ring.id, memberId, changes, trx);
      switch (link.type) {
        case 'genesis':
          await update(link.author, {
            admitted_seq: 0,
            log_x25519: link.body.member.keys.x25519,
            log_ed25519: link.body.member.keys.ed25519,
            updated_at: nowIso,
          });
          break;
        case 'admit': {
          // Admission starts a new epoch: the newcomer reads from it on, unless the admitting
          // member shares the history. A member of a Ring from before its log, who already holds
          // keys of earlier epochs, keeps reading what it could (it holds those keys itself).
          const legacyReader = target ? await this.repo.holdsAnyShare(target.id, trx) : false;
          await update(link.body.member.id, {
            admitted_seq: link.seq,
            log_x25519: link.body.member.keys.x25519,
            log_ed25519: link.body.member.keys.ed25519,
            role: link.body.role,
            first_readable_epoch: link.body.shareHistory
              ? 0
              : legacyReader
                ? target!.first_readable_epoch
                : currentEpoch + 1,
            updated_at: nowIso,
          });
          break;
        }
        case 'refuse':
          await update(link.body.memberId, { status: 'inactive', refused_at: nowIso, updated_at: nowIso });
          break;
        case 'deactivate':
          await update(link.body.memberId, { status: 'inactive', log_deactivated: 1, updated_at: nowIso });
          break;
        case 'reactivate':
          // The customer space reactivated the account first (see the policy); the member reads
          // again from the next epoch on.
          await update(link.body.memberId, {
            status: 'active',
            log_deactivated: 0,
            first_readable_epoch: currentEpoch + 1,
            updated_at: nowIso,
          });
          break;
        case 'role':
          await update(link.body.memberId, { role: link.body.role, updated_at: nowIso });
          break;
        case 'key_change':
          await update(link.body.memberId, {
            log_x25519: link.body.keys.x25519,
            log_ed25519: link.body.keys.ed25519,
            updated_at: nowIso,
          });
          break;
        case 'level':
        case 'reading':
          break;
      }
    });
    this.remember(ring.id, after);

    if ((link.type === 'refuse' || link.type === 'deactivate') && targetId)
      await endMemberAccess(ctx, targetId);
    // Admitted (the owner at the genesis) or reactivated: its open sockets receive the room's messages now.
    if ((link.type === 'genesis' || link.type === 'admit' || link.type === 'reactivate') && targetId)
      ctx.realtime.addRingReader(ring.id, targetId);
    // A member who may now receive keys (admitted with the history, a key change confirmed): the
    // online holders are asked to share what it may read.
    if ((link.type === 'admit' || link.type === 'key_change') && targetId)
      await new RingKeysService(ctx).nudgeHolders(ring.id, targetId);
    ctx.realtime.emitToRing(ring.id, 'keys_changed', { ringId: ring.id, reason: 'membership' });
    await ctx.systemLog.info('security', LOG_LINES[link.type], {
      userId: member.id,
      details: { ring_id: ring.id, seq: link.seq, ...(targetId ? { member_id: targetId } : {}) },
    });
    return { seq: link.seq, hash };
  }

  /** Members who wait for admission (accepted, keys published, not admitted). */
  waitingMembers(ringId: string): Promise<Array<{ id: string; username: string }>> {
    return this.repo.waitingMembers(ringId);
  }
}

function headMoved(headSeq: number): AppError {
  return new AppError(409, MEMBERSHIP_LOG_MESSAGES.headMoved, { code: 'log_head_moved', headSeq });
}

const LOG_LINES: Record<MembershipLink['type'], string> = {
  genesis: 'Journal des membres du Ring créé',
  admit: 'Membre admis dans le Ring',
  refuse: 'Admission refusée',
  deactivate: 'Membre désactivé dans le Ring',
  reactivate: 'Membre réactivé dans le Ring',
  role: 'Rôle changé dans le Ring',
  key_change: 'Nouvelle clé d’un membre confirmée',
  level: 'Niveau de chiffrement signé',
  reading: 'Indicateurs de saisie et accusés de lecture signés',
};
