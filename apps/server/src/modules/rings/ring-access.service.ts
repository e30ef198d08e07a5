import {
  MEMBER_ACCESS_MESSAGES,
  RING_CLOSE_GRACE_SEC,
  RING_LAST_TAB_REASON,
  RING_MESSAGES,
  type TInviteInfo,
  type TRingInfo,
  type TRingLoginResponse,
  type TRingLoginSelection,
  type TRingSessionUser,
  type ZAcceptInviteRequest,
  type ZRingLoginRequest,
} from '@securering/contract';
import type { z } from 'zod';
import type { AppContext } from '../../app-context';
import { isUniqueViolation } from '../../db/database';
import { AppError, badRequest, conflict, notFound, unauthorized } from '../../lib/app-error';
import { loginAccount } from '../../lib/login-throttle';
import { hashPassword, verifyAgainstDummy, verifyPassword } from '../../lib/passwords';
import { CallRepository } from '../calls/calls.repository';
import type { CustomerRow } from '../customers/customer.repository';
import { RingKeysService } from '../ring-keys/ring-keys.service';
import type { RequestMeta } from '../sessions/session.service';
import { isRingServiceable, type RingMembership } from './ring.guard';
import { notifyOwnerOfAcceptedInvitation } from './notify-owner';
import { isInvitationOpen, toScreenProtection } from './ring.policy';
import { RingRepository, type RingMemberRow, type RingRow } from './ring.repository';
import { recordRingEvent } from '../customer-space/record-ring-event';

type AcceptInput = z.output<typeof ZAcceptInviteRequest>;
type LoginInput = z.output<typeof ZRingLoginRequest>;

const GIB = 1024 ** 3;

export function toSessionUser(member: RingMemberRow): TRingSessionUser {
  return {
    id: member.id,
    username: member.username,
    email: member.email,
    role: member.role,
    inviteCode: member.invite_code,
  };
}

/** "0,12 Go / 50,00 Go", as the room's files tab shows storage. */
export function storageText(used: number, allocated: number): string {
  const go = (bytes: number) => `${(bytes / GIB).toFixed(2).replace('.', ',')} Go`;
  return `${go(used)} utilisés sur ${go(allocated)}`;
}

/**
 * The way into a Ring: accepting an invitation, logging in by email (with a choice when the email
 * belongs to several Rings) or by invite code, and what the room reads about its Ring.
 */
export class RingAccessService {
  private readonly rings: RingRepository;

  constructor(private readonly ctx: AppContext) {
    this.rings = new RingRepository(ctx.db);
  }

  private async open(
    member: RingMemberRow,
    ring: RingRow,
    meta: RequestMeta,
    via: 'ring_login' | 'customer_space' = 'ring_login',
  ): Promise<TRingLoginResponse> {
    const issued = await this.ctx.sessions.issue('ring', member.id, meta);
    await this.rings.touchMember(member.id, this.ctx.clock.now().toISOString());
    await this.ctx.systemLog.info('auth', 'Connexion à un Ring', {
      userId: member.id,
      ip: meta.ip,
      userAgent: meta.userAgent,
      details: via === 'ring_login' ? { ring_id: ring.id } : { ring_id: ring.id, via },
    });
    return {
      success: true,
      token: issued.token,
      user: toSessionUser(member),
      ring: { id: ring.id, name: ring.name, plan: ring.plan_slug },
    };
  }

  /**
   * "Accéder à mon Ring" from the customer space: the signed-in customer enters one of its own Rings
   * as its owner member, without a second password. Another customer's Ring reads as missing; a
   * suspended Ring (inactive, or no current subscription) is refused as it is on a Ring login.
   */
  async openForOwner(customer: CustomerRow, ringId: string, meta: RequestMeta): Promise<TRingLoginResponse> {
    const ring = await this.rings.findRingById(ringId);
    const owner =
      ring && ring.customer_id === customer.id
        ? await this.rings.findOwnerMember(ring.id, customer.id)
        : undefined;
    if (!ring || !owner) throw notFound(RING_MESSAGES.ringNotFound);
    if (owner.status !== 'active' || !(await isRingServiceable(this.ctx, ring)))
      throw new AppError(403, RING_MESSAGES.ringSuspended);
    return this.open(owner, ring, meta, 'customer_space');
  }

  /**
   * What the owner entered for an unused invitation (to prefill the acceptance form). Unknown, used
   * and withdrawn codes all get the same refusal.
   */
  async inviteInfo(code: string): Promise<TInviteInfo> {
    const member = await this.rings.findMemberByInviteCode(code);
    const ring =
      member && member.is_used === 0 && member.status === 'invited'
        ? await this.rings.findRingById(member.ring_id)
        : undefined;
    if (!member || !ring) throw notFound(RING_MESSAGES.invalidInvite);
    if (!isInvitationOpen(member, this.ctx.clock.now().toISOString()))
      throw new AppError(410, RING_MESSAGES.invitationExpired);
    return { username: member.username, email: member.email, ring_name: ring.name };
  }

  async acceptInvite(input: AcceptInput, meta: RequestMeta): Promise<TRingLoginResponse> {
    const { ctx } = this;
    const member = await this.rings.findMemberByInviteCode(input.invite_code);
    if (!member || member.is_used === 1 || member.status !== 'invited') {
      await verifyAgainstDummy(input.password);
      throw badRequest(RING_MESSAGES.invalidInvite);
    }
    const nowIso = ctx.clock.now().toISOString();
    if (!isInvitationOpen(member, nowIso)) {
      await verifyAgainstDummy(input.password);
      throw new AppError(410, RING_MESSAGES.invitationExpired);
    }
    const ring = await this.rings.findRingById(member.ring_id);
    if (!ring) throw badRequest(RING_MESSAGES.invalidInvite);
    if (!(await isRingServiceable(ctx, ring))) throw new AppError(403, RING_MESSAGES.ringSuspended);
    const changes = {
      username: input.username,
      username_key: input.username.toLowerCase(),
      email: input.email ?? member.email,
      password_hash: await hashPassword(input.password),
      used_at: nowIso,
      updated_at: nowIso,
      invite_expires_at: null,
    };
    let claimed: boolean;
    try {
      claimed = await this.rings.claimInvitation(member.id, changes);
    } catch (error) {
      if (isUniqueViolation(error)) throw conflict(RING_MESSAGES.usernameTaken);
      throw error;
    }
    // Lost to another acceptance, or expired between the read and the claim.
    if (!claimed) throw badRequest(RING_MESSAGES.invalidInvite);
    const joined = (await this.rings.findMemberById(member.id))!;
    await notifyOwnerOfAcceptedInvitation(ctx, ring, joined);
    await recordRingEvent(ctx, { ringId: ring.id, kind: 'invitation_accepted', member: joined });
    await ctx.systemLog.info('auth', 'Invitation acceptée', {
      userId: member.id,
      ip: meta.ip,
      details: { ring_id: ring.id },
    });
    return this.open(joined, ring, meta);
  }

  async login(input: LoginInput, meta: RequestMeta): Promise<TRingLoginResponse | TRingLoginSelection> {
    const { ctx } = this;
    const account = input.email ?? input.invite_code ?? '';
    const byCode = input.invite_code ? await this.rings.findMemberByInviteCode(input.invite_code) : undefined;
    // One budget per person (shared with the customer login), reserved before any password check.
    const budget = input.invite_code
      ? await this.budgetOfInviteCode(input.invite_code, byCode)
      : loginAccount.email(input.email ?? '');
    await ctx.loginThrottle.reserve(budget);
    const found = input.invite_code
      ? await this.byInviteCode(byCode, input.password)
      : await this.byEmail(input.email ?? '', input.password, input.ring_id);
    // A deactivated member learns why only once its password matched (guessers learn nothing).
    const matches = found.filter((m) => m.member.status === 'active');
    if (matches.length === 0 && found.length > 0) {
      await ctx.loginThrottle.clear(budget);
      await ctx.systemLog.warning('auth', 'Connexion refusée : membre désactivé', {
        userId: found[0]!.member.id,
        ip: meta.ip,
        details: { ring_id: found[0]!.ring.id },
      });
      throw new AppError(403, MEMBER_ACCESS_MESSAGES.accessSuspended);
    }
    if (matches.length === 0) {
      await ctx.systemLog.warning('auth', 'Échec de connexion à un Ring', {
        ip: meta.ip,
        details: { account },
      });
      throw unauthorized(RING_MESSAGES.invalidCredentials);
    }
    await ctx.loginThrottle.clear(budget);
    if (matches.length > 1) {
      return {
        success: false,
        needsSelection: true,
        rings: matches.map((m) => ({ id: m.ring.id, name: m.ring.name, role: m.member.role })),
        message: 'Sélectionnez votre Ring',
      };
    }
    const { member, ring } = matches[0]!;
    if (!(await isRingServiceable(ctx, ring))) throw new AppError(403, RING_MESSAGES.ringSuspended);
    return this.open(member, ring, meta);
  }

  /**
   * The person an invite code signs in: the owner's customer email, the member's email, or the
   * member itself when it has none (an unknown code has a budget of its own).
   */
  private async budgetOfInviteCode(code: string, member: RingMemberRow | undefined): Promise<string> {
    if (!member) return loginAccount.inviteCode(code);
    const email =
      member.role === 'owner' && member.customer_id
        ? ((await this.rings.findCustomerEmail(member.customer_id)) ?? member.email)
        : member.email;
    return email ? loginAccount.email(email) : loginAccount.member(member.id);
  }

  private async byInviteCode(member: RingMemberRow | undefined, password: string): Promise<RingMembership[]> {
    if (!member || !(member.status === 'active' || (member.status === 'inactive' && member.is_used === 1))) {
      await verifyAgainstDummy(password);
      return [];
    }
    const hash =
      member.role === 'owner' && member.customer_id
        ? await this.rings.findOwnerPasswordHash(member.customer_id)
        : member.password_hash;
    const ring = await this.rings.findRingById(member.ring_id);
    if (!hash || !ring || !(await verifyPassword(hash, password))) return [];
    return [{ member, ring }];
  }

  /**
   * Memberships of the email whose password matches, deactivated ones included (the caller tells
   * them apart); Rings where it does not match are never revealed.
   */
  private async byEmail(
    email: string,
    password: string,
    ringId: string | undefined,
  ): Promise<RingMembership[]> {
    const candidates = (await this.rings.findLoginCandidatesByEmail(email)).filter(
      (c) => !ringId || c.ring_id === ringId,
    );
    if (candidates.length === 0) {
      await verifyAgainstDummy(password);
      return [];
    }
    const matches: RingMembership[] = [];
    for (const candidate of candidates) {
      const hash = candidate.role === 'owner' ? candidate.owner_password_hash : candidate.password_hash;
      if (!hash || !(await verifyPassword(hash, password))) continue;
      const ring = await this.rings.findRingById(candidate.ring_id);
      const { ring_name: _name, owner_password_hash: _hash, ...member } = candidate;
      if (ring) matches.push({ member, ring });
    }
    return matches;
  }

  /**
   * Explicit logout ends the session; the page-unload signal of old clients only marks the member
   * offline; the browser's last Ring tab closing ends it after a grace a reload cancels.
   */
  async logout(
    membership: RingMembership & { session: { id: string } },
    token: string,
    reason: string | undefined,
  ): Promise<void> {
    const nowIso = this.ctx.clock.now().toISOString();
    await this.rings.touchMember(membership.member.id, nowIso);
    if (reason === 'unload') return;
    if (reason === RING_LAST_TAB_REASON) {
      await this.ctx.sessions.closeSoon(membership.session.id, RING_CLOSE_GRACE_SEC * 1000);
      return;
    }
    await this.ctx.sessions.revoke(token);
  }

  async info(membership: RingMembership): Promise<TRingInfo> {
    const { ring, member } = membership;
    const [members, used, online, inCall] = await Promise.all([
      this.rings.findMembers(ring.id),
      this.rings.storageUsed(ring.id),
      this.ctx.realtime.onlineMemberIds(ring.id),
      new CallRepository(this.ctx.db).findInCallMemberIds(ring.id),
    ]);
    const keys = new RingKeysService(this.ctx);
    const [publicKeys, e2ee] = await Promise.all([keys.publicKeysView(ring.id), keys.e2eeSummary(ring)]);
    const statusOf = (id: string) =>
      !online.has(id) ? ('offline' as const) : inCall.has(id) ? ('in_call' as const) : ('online' as const);
    const users = members
      .filter((m) => m.status === 'active')
      .map((m) => ({
        id: m.id,
        username: m.username,
        role: m.role,
        status: statusOf(m.id),
        isOnline: online.has(m.id),
        lastSeen: m.last_seen_at,
        isCurrentUser: m.id === member.id,
        keys: publicKeys.get(m.id) ?? null,
        // When the member accepted its invitation (the owner's membership: when the Ring was made).
        joinedAt: m.used_at,
      }))
      .sort((a, b) => Number(b.isOnline) - Number(a.isOnline) || a.username.localeCompare(b.username, 'fr'));
    return {
      success: true,
      ring: {
        id: ring.id,
        name: ring.name,
        plan: ring.plan_slug,
        encryptionLevel: ring.encryption_level,
        ephemeral: ring.ephemeral_messages === 1,
        autoDestroyDelay: ring.auto_destroy_delay,
        voiceAdminOnly: ring.voice_admin_only === 1,
        maxFileSize: ring.max_file_size_mb,
        screenProtection: toScreenProtection(ring),
        capabilities: { voice: ring.allow_voice === 1, video: ring.allow_video === 1 },
        storage: storageText(used, ring.storage_quota_bytes),
        storageBytes: {
          allocated: ring.storage_quota_bytes,
          used,
          remaining: Math.max(0, ring.storage_quota_bytes - used),
        },
        kdfSalt: ring.kdf_salt_b64,
        e2ee,
      },
      user: toSessionUser(member),
      users,
    };
  }
}
