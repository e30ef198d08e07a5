import { randomBytes } from 'node:crypto';
import {
  RING_MESSAGES,
  type TRingCustomerView,
  type TRingSettingsUpdated,
  type TRingUser,
  type ZInviteRingUserRequest,
  type ZUpdateRingRequest,
} from '@securering/contract';
import type { z } from 'zod';
import type { AppContext } from '../../app-context';
import { badRequest, conflict, forbidden, notFound } from '../../lib/app-error';
import { isUniqueViolation } from '../../db/database';
import { newId } from '../../lib/ids';
import { newInviteCode } from '../../lib/tokens';
import type { CustomerRow } from '../customers/customer.repository';
import { getEntitlements, withinLimit, type Entitlements } from '../subscriptions/entitlements';
import { endMemberAccess } from './end-access';
import { applyRingSettings, invitationExpiry, toRingCustomerView, toRingUser } from './ring.policy';
import { RingRepository, type RingMemberRow, type RingRow } from './ring.repository';
import { recordRingEvent } from '../customer-space/record-ring-event';

type UpdateInput = z.output<typeof ZUpdateRingRequest>;
type InviteInput = z.output<typeof ZInviteRingUserRequest>;

/** The highest level the plan allows among basic < standard < high < military, preferring standard. */
function defaultEncryption(allowed: Entitlements['encryptionLevels']): RingRow['encryption_level'] {
  if (allowed.includes('standard')) return 'standard';
  return allowed[0] ?? 'basic';
}

/**
 * What a customer does with its own Rings: create them within the plan, tune their settings,
 * invite and remove users. Every call checks ownership first; another customer's Ring reads as
 * missing.
 */
export class CustomerRingsService {
  private readonly rings: RingRepository;

  constructor(private readonly ctx: AppContext) {
    this.rings = new RingRepository(ctx.db);
  }

  private async owned(customer: CustomerRow, ringId: string): Promise<RingRow> {
    const ring = await this.rings.findRingById(ringId);
    if (!ring || ring.customer_id !== customer.id) throw notFound(RING_MESSAGES.ringNotFound);
    return ring;
  }

  private async entitlements(customer: CustomerRow): Promise<Entitlements> {
    const entitlements = await getEntitlements(this.ctx, customer.id);
    if (!entitlements) throw forbidden(RING_MESSAGES.subscriptionRequired);
    return entitlements;
  }

  async view(ring: RingRow): Promise<TRingCustomerView> {
    const [used, members] = await Promise.all([
      this.rings.storageUsed(ring.id),
      this.rings.findMembers(ring.id),
    ]);
    return toRingCustomerView(ring, used, members.length);
  }

  async list(customer: CustomerRow): Promise<TRingCustomerView[]> {
    const rings = await this.rings.findRingsByCustomer(customer.id);
    return Promise.all(rings.map((ring) => this.view(ring)));
  }

  async detail(customer: CustomerRow, ringId: string): Promise<TRingCustomerView> {
    return this.view(await this.owned(customer, ringId));
  }

  async create(customer: CustomerRow, name: string): Promise<string> {
    const { ctx } = this;
    const entitlements = await this.entitlements(customer);
    const owned = await this.rings.findRingsByCustomer(customer.id);
    if (!withinLimit(entitlements.maxRings, owned.length)) throw forbidden(RING_MESSAGES.ringLimit);
    const nowIso = ctx.clock.now().toISOString();
    const ring: RingRow = {
      id: newId(),
      customer_id: customer.id,
      name,
      plan_slug: entitlements.plan.slug,
      encryption_level: defaultEncryption(entitlements.encryptionLevels),
      ephemeral_messages: 0,
      auto_destroy_delay: 300,
      allow_voice: entitlements.voice ? 1 : 0,
      allow_video: entitlements.video ? 1 : 0,
      voice_admin_only: 0,
      max_file_size_mb: 10,
      screen_protection_level: 'standard',
      screen_devtools_protection: 1,
      screen_visibility_protection: 1,
      screen_experimental_features: 0,
      screen_recording_detection: 0,
      storage_quota_bytes: entitlements.storageBytes,
      kdf_salt_b64: randomBytes(16).toString('base64'),
      is_active: 1,
      created_at: nowIso,
      updated_at: nowIso,
      current_epoch: 0,
      epoch_created_at: null,
      epoch_message_count: 0,
      rotation_due: 0,
      share_history: 0,
      key_revision: 0,
      log_head_seq: -1,
      log_head_hash: '',
      log_level: null,
    };
    const ownerName =
      `${customer.first_name} ${customer.last_name}`.trim().slice(0, 40) ||
      customer.email.split('@')[0]!.slice(0, 40);
    await ctx.db.transaction().execute(async (trx) => {
      await this.rings.insertRing(ring, trx);
      // The customer is the Ring's owner member: it logs in to the Ring with its account password.
      await this.rings.insertMember(
        {
          id: newId(),
          ring_id: ring.id,
          customer_id: customer.id,
          username: ownerName,
          username_key: ownerName.toLowerCase(),
          email: customer.email,
          password_hash: null,
          role: 'owner',
          status: 'active',
          invite_code: newInviteCode(),
          invite_message: '',
          is_used: 1,
          used_at: nowIso,
          last_seen_at: null,
          created_at: nowIso,
          updated_at: nowIso,
          first_readable_epoch: 0,
          admitted_seq: null,
          log_deactivated: 0,
          log_x25519: null,
          log_ed25519: null,
          refused_at: null,
        },
        trx,
      );
    });
    await ctx.systemLog.info('client_dashboard', 'Ring créé', {
      userId: customer.id,
      details: { ring_id: ring.id, name },
    });
    return ring.id;
  }

  async update(customer: CustomerRow, input: UpdateInput): Promise<TRingCustomerView> {
    const { ctx } = this;
    const ring = await this.owned(customer, input.ring_id);
    const entitlements = await this.entitlements(customer);
    const { ring_id: _ringId, ...settings } = input;
    const applied = applyRingSettings(ring, settings, entitlements);
    if (!applied.ok) throw badRequest(applied.error);
    const { changes } = applied;

    const nowIso = ctx.clock.now().toISOString();
    await this.rings.updateRing(ring.id, { ...changes, updated_at: nowIso });
    const updated = (await this.rings.findRingById(ring.id))!;
    const event: TRingSettingsUpdated = {
      ringId: ring.id,
      updated: {
        screen_protection_level: updated.screen_protection_level,
        ephemeral_messages: updated.ephemeral_messages === 1,
        encryption_level: updated.encryption_level,
        auto_destroy_delay: updated.auto_destroy_delay,
        allow_voice: updated.allow_voice === 1,
        allow_video: updated.allow_video === 1,
        voice_admin_only: updated.voice_admin_only === 1,
        max_file_size: updated.max_file_size_mb,
        screen_devtools_protection: updated.screen_devtools_protection === 1,
        screen_visibility_protection: updated.screen_visibility_protection === 1,
        screen_experimental_features: updated.screen_experimental_features === 1,
        screen_recording_detection: updated.screen_recording_detection === 1,
        name: updated.name,
        share_history: updated.share_history === 1,
      },
    };
    ctx.realtime.emitToRing(ring.id, 'ring_settings_updated', event);
    // Only what really changed is named (the form sends every setting on each save).
    const changed = Object.keys(changes).filter(
      (key) => changes[key as keyof typeof changes] !== ring[key as keyof typeof ring],
    );
    if (changed.length > 0)
      await recordRingEvent(ctx, { ringId: ring.id, kind: 'settings_changed', fields: changed });
    await ctx.systemLog.info('client_dashboard', 'Paramètres du Ring modifiés', {
      userId: customer.id,
      details: { ring_id: ring.id, fields: Object.keys(changes) },
    });
    return this.view(updated);
  }

  async users(customer: CustomerRow, ringId: string): Promise<TRingUser[]> {
    const ring = await this.owned(customer, ringId);
    const [members, online] = await Promise.all([
      this.rings.findMembers(ring.id),
      this.ctx.realtime.onlineMemberIds(ring.id),
    ]);
    return members.map((member) => toRingUser(member, online.has(member.id)));
  }

  async invite(
    customer: CustomerRow,
    input: InviteInput,
  ): Promise<{ user: TRingUser; message: string; inviteUrl: string }> {
    const { ctx } = this;
    const ring = await this.owned(customer, input.ring_id);
    const entitlements = await this.entitlements(customer);
    const seats = await this.rings.countSeats(customer.id);
    if (entitlements.maxUsers > 0 && seats >= entitlements.maxUsers)
      throw forbidden(RING_MESSAGES.userLimit(entitlements.maxUsers));
    const nowIso = ctx.clock.now().toISOString();
    const member: RingMemberRow = {
      id: newId(),
      ring_id: ring.id,
      customer_id: null,
      username: input.username,
      username_key: input.username.toLowerCase(),
      email: input.email,
      password_hash: null,
      role: 'member',
      status: 'invited',
      invite_code: newInviteCode(),
      invite_message: input.message,
      is_used: 0,
      used_at: null,
      last_seen_at: null,
      created_at: nowIso,
      updated_at: nowIso,
      // Set when the invitation is accepted: the epoch current then.
      first_readable_epoch: 0,
      admitted_seq: null,
      log_deactivated: 0,
      log_x25519: null,
      log_ed25519: null,
      refused_at: null,
      invite_expires_at: invitationExpiry(ctx.clock.now().getTime(), ctx.config.invitationTtlMs),
    };
    try {
      await this.rings.insertMember(member);
    } catch (error) {
      if (isUniqueViolation(error)) throw conflict(RING_MESSAGES.usernameTaken);
      throw error;
    }
    const inviteUrl = await this.sendInvitation(customer, ring, member);
    await recordRingEvent(ctx, { ringId: ring.id, kind: 'invitation_created', member });
    await ctx.systemLog.info('client_dashboard', 'Invitation créée', {
      userId: customer.id,
      details: { ring_id: ring.id, member_id: member.id },
    });
    return {
      user: toRingUser(member),
      message: member.email ? RING_MESSAGES.invitationSent : RING_MESSAGES.invitationCreated,
      inviteUrl,
    };
  }

  /** The invitation's link, mailed to the invitee when the invitation has an email. */
  private async sendInvitation(customer: CustomerRow, ring: RingRow, member: RingMemberRow): Promise<string> {
    const inviteUrl = `${this.ctx.config.publicUrl}/ring-access?invite=${member.invite_code}`;
    if (member.email) {
      await this.ctx.mail.sendTemplate('ring_invitation', member.email, {
        username: member.username,
        ring_name: ring.name,
        inviter_name: `${customer.first_name} ${customer.last_name}`.trim(),
        invite_code: member.invite_code,
        invite_url: inviteUrl,
        message: member.invite_message,
      });
    }
    return inviteUrl;
  }

  /**
   * « Renvoyer » (issue 27): a pending invitation of the customer's Ring, expired or not, is valid
   * INVITATION_TTL_DAYS again from now with the same code, and its email goes out again.
   */
  async resendInvitation(
    customer: CustomerRow,
    memberId: string,
  ): Promise<{ user: TRingUser; message: string; inviteUrl: string }> {
    const { ctx } = this;
    const member = await this.rings.findMemberById(memberId);
    if (!member) throw notFound(RING_MESSAGES.userNotFound);
    const ring = await this.owned(customer, member.ring_id).catch(() => {
      throw notFound(RING_MESSAGES.userNotFound);
    });
    if (member.is_used === 1 || member.status !== 'invited') throw conflict(RING_MESSAGES.cannotResendUsed);
    const now = ctx.clock.now();
    const expiresAt = invitationExpiry(now.getTime(), ctx.config.invitationTtlMs);
    if (!(await this.rings.renewInvitation(member.id, expiresAt, now.toISOString())))
      throw conflict(RING_MESSAGES.cannotResendUsed);
    const renewed = (await this.rings.findMemberById(member.id))!;
    const inviteUrl = await this.sendInvitation(customer, ring, renewed);
    await ctx.systemLog.info('client_dashboard', 'Invitation renvoyée', {
      userId: customer.id,
      details: { ring_id: ring.id, member_id: member.id },
    });
    return {
      user: toRingUser(renewed),
      message: renewed.email ? RING_MESSAGES.invitationResent : RING_MESSAGES.invitationRenewed,
      inviteUrl,
    };
  }

  /**
   * "Désactiver": an accepted member (never the owner) becomes inactive, its sessions, stream
   * tokens and sockets end on every instance, login is refused, and the Ring's next key epoch is
   * due, so what is sent from now on is encrypted for the remaining members only. "Réactiver"
   * brings it back within the plan's user limit; it reads from the next epoch on.
   */
  async setUserStatus(
    customer: CustomerRow,
    memberId: string,
    status: 'active' | 'inactive',
  ): Promise<{ user: TRingUser; message: string }> {
    const { ctx } = this;
    const member = await this.rings.findMemberById(memberId);
    if (!member) throw notFound(RING_MESSAGES.userNotFound);
    const ring = await this.owned(customer, member.ring_id).catch(() => {
      throw notFound(RING_MESSAGES.userNotFound);
    });
    if (member.role === 'owner') throw forbidden(RING_MESSAGES.cannotDeactivateOwner);
    if (member.is_used !== 1 || member.status === 'invited')
      throw conflict(RING_MESSAGES.cannotDeactivateInvitation);
    if (status === 'active' && member.refused_at !== null)
      throw conflict(RING_MESSAGES.cannotReactivateRefused);
    const nowIso = ctx.clock.now().toISOString();

    if (status === 'inactive') {
      if (member.status === 'active' && (await this.rings.deactivateMember(member.id, ring.id, nowIso))) {
        // Its open pages say why before their sockets close (the emit is queued ahead of the close).
        ctx.realtime.emitToMember(member.id, 'access_suspended', { ringId: ring.id });
        await endMemberAccess(ctx, member.id);
        ctx.realtime.emitToRing(ring.id, 'member_suspended', {
          ringId: ring.id,
          userId: member.id,
          username: member.username,
          at: nowIso,
        });
        ctx.realtime.emitToRing(ring.id, 'keys_changed', { ringId: ring.id, reason: 'rotation_due' });
        ctx.realtime.emitToRing(ring.id, 'presence_update', {
          ringId: ring.id,
          userId: member.id,
          status: 'offline',
          lastSeen: member.last_seen_at,
        });
        await recordRingEvent(ctx, { ringId: ring.id, kind: 'member_deactivated', member });
        await ctx.systemLog.info('client_dashboard', 'Utilisateur désactivé', {
          userId: customer.id,
          details: { ring_id: ring.id, member_id: member.id },
        });
      }
      const updated = (await this.rings.findMemberById(member.id))!;
      return { user: toRingUser(updated), message: RING_MESSAGES.userDeactivated };
    }

    if (member.status === 'inactive') {
      const entitlements = await this.entitlements(customer);
      const seats = await this.rings.countSeats(customer.id);
      if (entitlements.maxUsers > 0 && seats >= entitlements.maxUsers)
        throw forbidden(RING_MESSAGES.userLimit(entitlements.maxUsers));
      if (await this.rings.reactivateMember(member.id, ring.id, nowIso)) {
        ctx.realtime.emitToRing(ring.id, 'keys_changed', { ringId: ring.id, reason: 'rotation_due' });
        ctx.realtime.emitToRing(ring.id, 'member_suspended', {
          ringId: ring.id,
          userId: member.id,
          username: member.username,
          at: nowIso,
          back: true,
        });
        await recordRingEvent(ctx, { ringId: ring.id, kind: 'member_reactivated', member });
        await ctx.systemLog.info('client_dashboard', 'Utilisateur réactivé', {
          userId: customer.id,
          details: { ring_id: ring.id, member_id: member.id },
        });
      }
    }
    const updated = (await this.rings.findMemberById(member.id))!;
    return { user: toRingUser(updated), message: RING_MESSAGES.userReactivated };
  }

  async removeUser(customer: CustomerRow, memberId: string): Promise<void> {
    const member = await this.rings.findMemberById(memberId);
    if (!member) throw notFound(RING_MESSAGES.userNotFound);
    await this.owned(customer, member.ring_id).catch(() => {
      throw notFound(RING_MESSAGES.userNotFound);
    });
    if (member.role === 'owner') throw forbidden(RING_MESSAGES.cannotRemoveOwner);
    if (member.is_used === 1) throw conflict(RING_MESSAGES.cannotRemoveUsed);
    if (!(await this.rings.deleteUnusedMember(member.id))) throw conflict(RING_MESSAGES.cannotRemoveUsed);
    await recordRingEvent(this.ctx, { ringId: member.ring_id, kind: 'invitation_removed', member });
    await this.ctx.systemLog.info('client_dashboard', 'Invitation supprimée', {
      userId: customer.id,
      details: { ring_id: member.ring_id, member_id: member.id },
    });
  }
}
