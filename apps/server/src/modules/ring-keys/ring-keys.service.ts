import {
  E2EE_MESSAGES,
  type TGetMemberKeyResponse,
  type TKeyStateResponse,
  type TMemberKeyRecord,
  type TMemberPublicKeysView,
  type TPendingShare,
  type ZRotateEpochRequest,
  type ZSaveMemberKeyRequest,
  type ZShareEpochKeysRequest,
} from '@securering/contract';
import { fingerprint, parseEpochKeyShare, validateRecordShape, type EpochKeyShare } from '@securering/e2ee';
import type { z } from 'zod';
import type { AppContext } from '../../app-context';
import { isUniqueViolation } from '../../db/database';
import { AppError, badRequest } from '../../lib/app-error';
import { newId } from '../../lib/ids';
import type { RingMembership } from '../rings/ring.guard';
import type { RingRow } from '../rings/ring.repository';
import {
  checkRotation,
  checkShares,
  decideKeySave,
  firstReadableEpoch,
  isRotationDue,
  neededEpochs,
  pickKeyHolders,
  type KeyRuleError,
} from './ring-keys.policy';
import { LackingSharesByRevision, lackingForCaller } from './lacking-shares-by-revision';
import { RingKeysRepository, type MemberKeyRow } from './ring-keys.repository';

type SaveInput = z.output<typeof ZSaveMemberKeyRequest>;
type RotateInput = z.output<typeof ZRotateEpochRequest>;
type ShareInput = z.output<typeof ZShareEpochKeysRequest>;

/** Online key holders nudged for one member who lacks keys. */
export const NUDGED_HOLDERS = 2;

/**
 * Levels of epochs already read, by Ring, epoch number and the epoch's creation time: an epoch's
 * row is never updated once written (an epoch created again, after a restore, has another creation
 * time), so every send of an epoch reads it once instead of once per message (issue 30). Bounded.
 */
const epochLevels = new Map<string, RingRow['encryption_level'] | undefined>();
const EPOCH_LEVELS_MAX = 10_000;

function ruleError(error: KeyRuleError, extra: Record<string, unknown> = {}): AppError {
  return new AppError(error.status, error.error, error.code ? { code: error.code, ...extra } : {});
}

/** Strict shape check of every uploaded share (exact fields and sizes for its level). */
function parseShares(shares: readonly unknown[]): EpochKeyShare[] {
  try {
    return shares.map((share) => parseEpochKeyShare(share));
  } catch {
    throw badRequest(E2EE_MESSAGES.shareInvalid);
  }
}

/** A stored record as served: a PBKDF2 record without a recovery copy reads as before issue 27. */
const toRecord = (row: MemberKeyRow): TMemberKeyRecord => ({
  ...(row.kdf === 'argon2id' ? { kdf: row.kdf, kdf_mem_kib: row.kdf_mem_kib } : {}),
  kdf_salt_b64: row.kdf_salt_b64,
  kdf_iters: row.kdf_iters,
  wrapped_dek: row.wrapped_dek,
  iv_b64: row.iv_b64,
  hmac_hex: row.hmac_hex,
  ...(row.recovery_json
    ? { recovery: JSON.parse(row.recovery_json) as NonNullable<TMemberKeyRecord['recovery']> }
    : {}),
});

/** The stored columns of an uploaded record (shape already checked by validateRecordShape). */
const recordColumns = (key: TMemberKeyRecord) => ({
  kdf: key.kdf ?? ('pbkdf2-sha256' as const),
  kdf_salt_b64: key.kdf_salt_b64,
  kdf_iters: key.kdf_iters,
  kdf_mem_kib: key.kdf === 'argon2id' ? (key.kdf_mem_kib ?? null) : null,
  wrapped_dek: key.wrapped_dek,
  iv_b64: key.iv_b64,
  hmac_hex: key.hmac_hex,
  recovery_json: key.recovery ? JSON.stringify(key.recovery) : null,
});

/** Each app's Ring-wide lists of lacking shares, shared by every RingKeysService of the app. */
const lackingSharesByApp = new WeakMap<AppContext, LackingSharesByRevision>();
function lackingSharesOf(ctx: AppContext): LackingSharesByRevision {
  let lists = lackingSharesByApp.get(ctx);
  if (!lists) {
    const keys = new RingKeysRepository(ctx.db);
    lists = new LackingSharesByRevision((ringId) => keys.ringWideLackingShares(ringId));
    lackingSharesByApp.set(ctx, lists);
  }
  return lists;
}

/**
 * The Ring key layer (issue 10): each member's sealed key record and public keys, the Ring's key
 * epochs, and the epoch keys wrapped to each member. The server stores opaque key material and
 * enforces who may read and write what; it never sees a passphrase, a private key or a Ring key,
 * and never logs a record or a share.
 */
export class RingKeysService {
  private readonly keys: RingKeysRepository;

  constructor(private readonly ctx: AppContext) {
    this.keys = new RingKeysRepository(ctx.db);
  }

  /** GET get-member-key.php: the caller's own record, never anyone else's. */
  async getMemberKey(caller: RingMembership): Promise<TGetMemberKeyResponse> {
    const row = await this.keys.findMemberKey(caller.member.id);
    if (!row || row.key_version === 0) return { success: true, key: null, publicKeys: null, keyVersion: 0 };
    return {
      success: true,
      key: toRecord(row),
      publicKeys: { x25519: row.public_x25519, ed25519: row.public_ed25519 },
      keyVersion: row.key_version,
    };
  }

  /**
   * POST save-member-key.php: the first publish stores the record and public keys (key version 1);
   * the same public keys with a new record replace the record (an upgrade); new public keys need
   * `reset` and start a new key version, dropping the member's shares. Others are told after the
   * commit; the member's own missing keys are asked of online holders.
   */
  async saveMemberKey(
    caller: RingMembership,
    input: SaveInput,
  ): Promise<{ keyVersion: number; fingerprint: string }> {
    const { ctx } = this;
    const { member, ring } = caller;
    const problem = validateRecordShape(input.key);
    if (problem) throw badRequest(problem);
    let print: string;
    try {
      print = await fingerprint(input.publicKeys);
    } catch {
      throw badRequest(E2EE_MESSAGES.publicKeysInvalid);
    }
    // Two attempts: a concurrent save of the same member may win the first.
    for (let attempt = 0; attempt < 2; attempt++) {
      const existing = await this.keys.findMemberKey(member.id);
      const decided = decideKeySave(existing, input.publicKeys, input.reset ?? false);
      if (!decided.ok) throw ruleError(decided);
      const nowIso = ctx.clock.now().toISOString();
      const record = {
        ...recordColumns(input.key),
        public_x25519: input.publicKeys.x25519,
        public_ed25519: input.publicKeys.ed25519,
        fingerprint: print,
        updated_at: nowIso,
      };
      const { kind } = decided.decision;
      const version = kind === 'upgrade' ? existing!.key_version : (existing?.key_version ?? 0) + 1;
      let saved: boolean;
      try {
        saved = await ctx.db.transaction().execute(async (trx) => {
          if (!existing) {
            await this.keys.insertMemberKey(
              { id: newId(), member_id: member.id, created_at: nowIso, ...record, key_version: version },
              trx,
            );
            await this.keys.raiseKeyRevision(ring.id, trx);
            return true;
          }
          const updated = await this.keys.updateMemberKey(
            member.id,
            existing.key_version,
            { ...record, key_version: version },
            trx,
          );
          if (updated && kind === 'reset') await this.keys.deleteSharesOfRecipient(member.id, trx);
          if (updated && kind !== 'upgrade') await this.keys.raiseKeyRevision(ring.id, trx);
          return updated;
        });
      } catch (error) {
        if (isUniqueViolation(error)) continue;
        throw error;
      }
      if (!saved) continue;
      if (kind !== 'upgrade') {
        ctx.realtime.emitToRing(ring.id, 'keys_changed', {
          ringId: ring.id,
          reason: 'member_keys',
          memberId: member.id,
        });
        await ctx.systemLog.info(
          'security',
          kind === 'reset' ? 'Clés E2EE réinitialisées' : 'Clés E2EE publiées',
          {
            userId: member.id,
            details: { ring_id: ring.id, key_version: version, fingerprint: print },
          },
        );
        await this.nudgeHolders(ring.id, member.id);
      }
      return { keyVersion: version, fingerprint: print };
    }
    throw new AppError(409, E2EE_MESSAGES.membersChanged, { code: 'members_changed' });
  }

  /** Level of the Ring's current epoch (undefined before epoch 1). */
  private async currentEpochLevel(ring: RingRow): Promise<RingRow['encryption_level'] | undefined> {
    if (ring.current_epoch === 0) return undefined;
    const key = `${ring.id}:${ring.current_epoch}:${ring.epoch_created_at ?? ''}`;
    if (epochLevels.has(key)) return epochLevels.get(key);
    const level = (await this.keys.findEpoch(ring.id, ring.current_epoch))?.level;
    if (level === undefined) return undefined;
    if (epochLevels.size >= EPOCH_LEVELS_MAX) epochLevels.clear();
    epochLevels.set(key, level);
    return level;
  }

  /** The Ring's key state as rings/info.php shows it. */
  async e2eeSummary(ring: RingRow): Promise<{ currentEpoch: number; rotationDue: boolean }> {
    return {
      currentEpoch: ring.current_epoch,
      rotationDue: isRotationDue(ring, await this.currentEpochLevel(ring), this.ctx.clock.now()),
    };
  }

  /** Published public keys of the Ring's members, as rings/info.php lists them. */
  async publicKeysView(ringId: string): Promise<Map<string, TMemberPublicKeysView>> {
    const rows = await this.keys.publicKeysOfRing(ringId);
    return new Map(
      [...rows].map(([memberId, row]) => [
        memberId,
        {
          publicKeys: { x25519: row.public_x25519, ed25519: row.public_ed25519 },
          fingerprint: row.fingerprint,
          keyVersion: row.key_version,
        },
      ]),
    );
  }

  /** The Ring's key revision now (join_ring's `keyRevision`). */
  keyRevision(ringId: string): Promise<number | undefined> {
    return this.keys.keyRevision(ringId);
  }

  /**
   * GET keys/state.php: the caller's own shares of the epochs it may read, the epoch state, and
   * the members who lack keys the caller holds and may receive them.
   */
  async state(caller: RingMembership): Promise<TKeyStateResponse> {
    const { member, ring } = caller;
    const own = await this.keys.findMemberKey(member.id);
    const keyVersion = own?.key_version ?? 0;
    const firstReadable = firstReadableEpoch(member);
    const shares =
      keyVersion > 0 ? await this.keys.findSharesOf(ring.id, member.id, keyVersion, firstReadable) : [];
    // The members who lack epochs the caller holds and may read them (mayReadEpoch's rule, in SQL):
    // the Ring-wide list of this key revision, read once for all its members (after a rotation
    // they all read their state at once), or the caller's own part when too long to keep.
    const heldEpochs = shares.map((s) => s.epoch);
    const ringWide =
      heldEpochs.length > 0 ? await lackingSharesOf(this.ctx).get(ring.id, ring.key_revision) : [];
    const lacking = ringWide
      ? lackingForCaller(ringWide, member.id, new Set(heldEpochs))
      : await this.keys.lackingShares(ring.id, member.id, heldEpochs);
    const pending: TPendingShare[] = [];
    for (const row of lacking) {
      const last = pending.at(-1);
      if (last?.memberId === row.id) last.epochs.push(row.epoch);
      else
        pending.push({
          memberId: row.id,
          keyVersion: row.key_version,
          publicKeys: { x25519: row.public_x25519, ed25519: row.public_ed25519 },
          epochs: [row.epoch],
        });
    }
    // Only asked when the caller lacks the current epoch (one more query, for waiting members only).
    const lacksCurrent = ring.current_epoch > 0 && !shares.some((s) => s.epoch === ring.current_epoch);
    const currentEpochOrphaned =
      lacksCurrent &&
      member.admitted_seq !== null &&
      !(await this.keys.epochHasHolder(ring.id, ring.current_epoch));
    return {
      success: true,
      ringId: ring.id,
      currentEpochOrphaned,
      // Read with the caller's access, before anything above: a change meanwhile shows as a newer
      // revision at the next join, so the page reads again.
      keyRevision: ring.key_revision,
      currentEpoch: ring.current_epoch,
      level: ring.encryption_level,
      rotationDue: isRotationDue(ring, await this.currentEpochLevel(ring), this.ctx.clock.now()),
      shareHistory: ring.share_history === 1,
      firstReadableEpoch: firstReadable,
      shares: shares.map((row) => ({
        epoch: row.epoch,
        senderMemberId: row.sender_member_id ?? '',
        share: JSON.parse(row.share) as EpochKeyShare,
      })),
      pending,
      logHeadSeq: ring.log_head_seq,
    };
  }

  /**
   * POST keys/rotate.php: creates epoch current + 1 at the membership log's head, with a share for
   * every member the log admitted whose published keys are the log's (the caller among them, at
   * the level the owner signed in the log). Later epochs need the current one's key — unless no
   * such member holds it any more (it left, reset its keys, or a rotation withheld it): then any of
   * them may start a recovery epoch, so no Ring stays without a usable key (issue 24, M2). The
   * epoch number is a compare-and-set: of two concurrent rotations one wins, the other gets 409
   * `epoch_conflict`.
   */
  async rotate(caller: RingMembership, input: RotateInput): Promise<{ epoch: number }> {
    const { ctx } = this;
    const { member, ring } = caller;
    const own = await this.keys.findMemberKey(member.id);
    if (!own || own.key_version === 0) throw badRequest(E2EE_MESSAGES.noKeysPublished);
    if (ring.log_head_seq < 0 || member.admitted_seq === null || member.log_deactivated === 1)
      throw badRequest(E2EE_MESSAGES.notAdmitted);
    if (input.level !== ring.log_level) throw badRequest(E2EE_MESSAGES.levelMismatch);
    const conflict = (currentEpoch: number) =>
      new AppError(409, E2EE_MESSAGES.epochConflict, { code: 'epoch_conflict', currentEpoch });
    if (input.epoch !== ring.current_epoch + 1) throw conflict(ring.current_epoch);
    if (ring.current_epoch > 0) {
      const held = await this.keys.heldEpochs(ring.id, member.id, own.key_version);
      if (!held.has(ring.current_epoch) && (await this.keys.epochHasHolder(ring.id, ring.current_epoch)))
        throw new AppError(403, E2EE_MESSAGES.notKeyHolder);
    }
    const shares = parseShares(input.shares);
    const nowIso = ctx.clock.now().toISOString();

    await ctx.db.transaction().execute(async (trx) => {
      if (!(await this.keys.advanceEpoch(ring.id, ring.current_epoch, nowIso, trx)))
        throw conflict((await this.keys.currentEpoch(ring.id, trx)) ?? ring.current_epoch);
      // Read after the compare-and-set: the member set the new key must reach, as of now.
      const members = await this.keys.activeKeyedMembers(ring.id, trx);
      const checked = checkRotation(
        {
          ringId: ring.id,
          callerId: member.id,
          epoch: input.epoch,
          level: input.level,
          shares,
          withheld: input.withheld,
          keyVersions: input.keyVersions,
          logHead: { seq: ring.log_head_seq, hash: ring.log_head_hash },
        },
        members,
      );
      if (!checked.ok) throw ruleError(checked);
      await this.keys.insertEpoch(
        {
          ring_id: ring.id,
          epoch: input.epoch,
          level: input.level,
          created_by_member_id: member.id,
          created_at: nowIso,
          log_seq: ring.log_head_seq,
        },
        trx,
      );
      await this.keys.upsertShares(
        shares.map((share) => ({
          id: newId(),
          ring_id: ring.id,
          epoch: input.epoch,
          recipient_member_id: share.recipientMemberId,
          recipient_key_version: input.keyVersions[share.recipientMemberId]!,
          sender_member_id: member.id,
          share: JSON.stringify(share),
          created_at: nowIso,
        })),
        trx,
      );
    });
    ctx.realtime.emitToRing(ring.id, 'keys_changed', {
      ringId: ring.id,
      reason: 'rotated',
      epoch: input.epoch,
    });
    await ctx.systemLog.info('security', 'Nouvelle clé du Ring (époque)', {
      userId: member.id,
      details: { ring_id: ring.id, epoch: input.epoch, level: input.level, recipients: shares.length },
    });
    return { epoch: input.epoch };
  }

  /**
   * POST keys/share.php: wraps epochs the caller holds for members who may read them and lack
   * them. Shares already held are kept (counted out); each recipient is told after the commit.
   */
  async share(caller: RingMembership, input: ShareInput): Promise<{ stored: number }> {
    const { ctx } = this;
    const { member, ring } = caller;
    const own = await this.keys.findMemberKey(member.id);
    if (!own || own.key_version === 0) throw badRequest(E2EE_MESSAGES.noKeysPublished);
    const shares = parseShares(input.shares);
    const [epochs, held, members] = await Promise.all([
      this.keys.findEpochs(ring.id),
      this.keys.heldEpochs(ring.id, member.id, own.key_version),
      this.keys.activeKeyedMembers(ring.id),
    ]);
    const checked = checkShares(
      { ringId: ring.id, callerId: member.id, shares, keyVersions: input.keyVersions },
      {
        epochs: new Map(epochs.map((e) => [e.epoch, { level: e.level, logSeq: e.log_seq }])),
        logHeadSeq: ring.log_head_seq,
        held,
        members: new Map(members.map((m) => [m.id, m])),
      },
    );
    if (!checked.ok) throw ruleError(checked);
    const nowIso = ctx.clock.now().toISOString();
    const stored = await this.keys.upsertShares(
      checked.accepted.map(({ share, keyVersion }) => ({
        id: newId(),
        ring_id: ring.id,
        epoch: share.epoch,
        recipient_member_id: share.recipientMemberId,
        recipient_key_version: keyVersion,
        sender_member_id: member.id,
        share: JSON.stringify(share),
        created_at: nowIso,
      })),
    );
    if (stored > 0) {
      await this.keys.raiseKeyRevision(ring.id);
      const recipients = new Set(checked.accepted.map((a) => a.share.recipientMemberId));
      for (const recipient of recipients)
        ctx.realtime.emitToMember(recipient, 'keys_changed', { ringId: ring.id, reason: 'shared' });
    }
    return { stored };
  }

  /**
   * Asks up to two online members who hold the epochs `memberId` lacks to share them
   * (`keys_changed` reason `needed`, to those members only). Returns how many were asked; 0 when
   * the member has no keys, lacks nothing, or no holder is online.
   */
  async nudgeHolders(ringId: string, memberId: string): Promise<number> {
    const { ctx } = this;
    const target = await this.keys.findKeyNeeds(ringId, memberId);
    if (!target) return 0;
    const held = new Set(target.epochs.filter((e) => e.held).map((e) => e.epoch));
    const needed = neededEpochs(
      target.epochs.map((e) => e.epoch),
      held,
      firstReadableEpoch(target),
    );
    if (needed.length === 0) return 0;
    const online = await ctx.realtime.onlineMemberIds(ringId);
    online.delete(memberId);
    if (online.size === 0) return 0;
    const holdings = await this.keys.validHoldings(ringId, needed, [...online]);
    const holders = pickKeyHolders(needed, holdings, online, memberId, NUDGED_HOLDERS);
    for (const holder of holders)
      ctx.realtime.emitToMember(holder, 'keys_changed', { ringId, reason: 'needed', memberId });
    return holders.length;
  }
}
