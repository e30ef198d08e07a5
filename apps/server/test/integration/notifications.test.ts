import {
  DEFAULT_NOTIFICATION_SETTINGS,
  MESSAGE_SOUNDS,
  MESSAGES,
  RINGTONES,
  ZNotificationSettingsResponse,
} from '@securering/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock';
import { newId } from '../../src/lib/ids';
import { buildTestApp, type TestApp } from '../build-test-app';
import {
  adminToken,
  bearer,
  buildAdmin,
  buildCustomer,
  buildRing,
  buildRingMember,
  customerToken,
  ringToken,
} from '../factories';

const GET_URL = '/api/notifications/get-settings.php';
const SAVE_URL = '/api/notifications/save-settings.php';

describe('notification settings and sounds', () => {
  let t: TestApp;
  const clock = new ManualClock('2026-11-22T09:00:00.000Z');

  beforeAll(async () => {
    t = await buildTestApp({ clock });
  });
  afterAll(() => t.close());

  const getSettings = (headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'GET', url: GET_URL, headers });
  const saveSettings = (headers: Record<string, string>, payload: unknown) =>
    t.app.inject({ method: 'PUT', url: SAVE_URL, headers, payload: payload as object });
  const settingsOf = async (headers: Record<string, string>) => {
    const res = await getSettings(headers);
    expect(res.statusCode).toBe(200);
    return ZNotificationSettingsResponse.parse(res.json()).settings;
  };

  const newCustomerHeaders = async () => {
    const customer = await buildCustomer(t.ctx);
    return { customer, headers: bearer(await customerToken(t.ctx, customer.id)) };
  };

  /** A member of a Ring whose owner has a current subscription (buildRing gives one), so the Ring serves it. */
  const newMemberHeaders = async (ownerId?: string) => {
    const owner = ownerId ?? (await buildCustomer(t.ctx)).id;
    const ring = await buildRing(t.ctx, owner);
    const member = await buildRingMember(t.ctx, ring.id);
    return { ring, member, headers: bearer(await ringToken(t.ctx, member.id)) };
  };

  const rowsOf = (ownerType: 'customer' | 'member', ownerId: string) =>
    t.ctx.db
      .selectFrom('notification_settings')
      .selectAll()
      .where('owner_type', '=', ownerType)
      .where('owner_id', '=', ownerId)
      .execute();

  describe('reading and saving', () => {
    it('answers the defaults to a new customer and to a new Ring member, storing nothing', async () => {
      const { customer, headers } = await newCustomerHeaders();
      const res = await getSettings(headers);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ success: true, settings: DEFAULT_NOTIFICATION_SETTINGS });
      expect(await rowsOf('customer', customer.id)).toHaveLength(0);

      const member = await newMemberHeaders();
      expect(await settingsOf(member.headers)).toEqual(DEFAULT_NOTIFICATION_SETTINGS);
    });

    it('merges a partial save into the stored settings and reads it back', async () => {
      const { customer, headers } = await newCustomerHeaders();
      const muteUntil = clock.now().getTime() + 30 * 60_000;
      const first = await saveSettings(headers, {
        settings: { callVolume: 0.44, ringtone: 'urgent', muteUntil },
      });
      expect(first.statusCode).toBe(200);
      const expected = { ...DEFAULT_NOTIFICATION_SETTINGS, callVolume: 0.4, ringtone: 'urgent', muteUntil };
      expect(first.json()).toEqual({
        success: true,
        settings: expected,
        message: 'Préférences de notification enregistrées',
      });
      expect(await settingsOf(headers)).toEqual(expected);

      const second = await saveSettings(headers, {
        settings: { messageSound: false, messageNotificationSound: 'ephemeral', muteUntil: null },
      });
      expect(second.statusCode).toBe(200);
      expect(await settingsOf(headers)).toEqual({
        ...expected,
        messageSound: false,
        messageNotificationSound: 'ephemeral',
        muteUntil: null,
      });
      const rows = await rowsOf('customer', customer.id);
      expect(rows).toHaveLength(1);
      expect(rows[0]!.updated_at).toBe(clock.now().toISOString());
    });

    it('keeps settings per owner: a customer, its own member account and another member', async () => {
      const { customer, headers: customerHeaders } = await newCustomerHeaders();
      const own = await newMemberHeaders(customer.id);
      const other = await newMemberHeaders();

      await saveSettings(own.headers, { settings: { callSound: false, messageVolume: 1 } });
      await saveSettings(customerHeaders, { settings: { muteAll: true } });

      expect(await settingsOf(own.headers)).toEqual({
        ...DEFAULT_NOTIFICATION_SETTINGS,
        callSound: false,
        messageVolume: 1,
      });
      expect(await settingsOf(customerHeaders)).toEqual({ ...DEFAULT_NOTIFICATION_SETTINGS, muteAll: true });
      expect(await settingsOf(other.headers)).toEqual(DEFAULT_NOTIFICATION_SETTINGS);
      expect(await rowsOf('member', own.member.id)).toHaveLength(1);
      expect(await rowsOf('customer', customer.id)).toHaveLength(1);
    });

    it.each([
      [{ settings: { callVolume: 1.5 } }, 'Volume entre 0 et 1'],
      [{ settings: { messageVolume: -0.1 } }, 'Volume entre 0 et 1'],
      [{ settings: { callVolume: 'fort' } }, 'Volume invalide'],
      [{ settings: { ringtone: 'jazz' } }, MESSAGES.invalidRequest],
      [{ settings: { messageNotificationSound: 'gong' } }, MESSAGES.invalidRequest],
      [{ settings: { muteAll: 'oui' } }, MESSAGES.invalidRequest],
      [{ settings: { muteUntil: -5 } }, MESSAGES.invalidRequest],
      [{ settings: { callSound: false, callVolume: 2 } }, 'Volume entre 0 et 1'],
      [{}, MESSAGES.invalidRequest],
    ])('refuses %j with "%s" and changes nothing', async (payload, message) => {
      const { customer, headers } = await newCustomerHeaders();
      await saveSettings(headers, { settings: { callVolume: 0.2 } });
      const before = await rowsOf('customer', customer.id);

      const res = await saveSettings(headers, payload);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ success: false, error: message });
      expect(await rowsOf('customer', customer.id)).toEqual(before);
      expect(await settingsOf(headers)).toEqual({ ...DEFAULT_NOTIFICATION_SETTINGS, callVolume: 0.2 });
    });

    it('falls back to the defaults for whatever is unreadable in storage', async () => {
      const { customer, headers } = await newCustomerHeaders();
      const store = (settings: string) =>
        t.ctx.db
          .insertInto('notification_settings')
          .values({
            id: newId(),
            owner_type: 'customer',
            owner_id: customer.id,
            settings,
            updated_at: clock.now().toISOString(),
          })
          .onConflict((oc) => oc.columns(['owner_type', 'owner_id']).doUpdateSet({ settings }))
          .execute();

      await store('{not json');
      expect(await settingsOf(headers)).toEqual(DEFAULT_NOTIFICATION_SETTINGS);
      await store('[1,2]');
      expect(await settingsOf(headers)).toEqual(DEFAULT_NOTIFICATION_SETTINGS);
      await store(JSON.stringify({ ringtone: 'jazz', callVolume: 7, muteAll: true, extra: 1 }));
      expect(await settingsOf(headers)).toEqual({ ...DEFAULT_NOTIFICATION_SETTINGS, muteAll: true });

      // Saving on top of a damaged row stores a clean, complete object.
      await saveSettings(headers, { settings: { callDesktop: false } });
      const [row] = await rowsOf('customer', customer.id);
      expect(JSON.parse(row!.settings)).toEqual({
        ...DEFAULT_NOTIFICATION_SETTINGS,
        muteAll: true,
        callDesktop: false,
      });
    });
  });

  describe('one record per person (issue 25)', () => {
    /** The customer's owner member of a new Ring of theirs, with its Ring session. */
    const ownerMemberHeaders = async (customerId: string) => {
      const ring = await buildRing(t.ctx, customerId);
      const member = await buildRingMember(t.ctx, ring.id, { role: 'owner', customer_id: customerId });
      return { ring, member, headers: bearer(await ringToken(t.ctx, member.id)) };
    };

    it('the customer space and the owner’s room read and write the same settings, in every Ring it owns', async () => {
      const { customer, headers: customerHeaders } = await newCustomerHeaders();
      const first = await ownerMemberHeaders(customer.id);
      const second = await ownerMemberHeaders(customer.id);

      // Chosen in the customer space « Notifications d'appel »: the room reads them.
      await saveSettings(customerHeaders, {
        settings: { ringtone: 'urgent', callVolume: 0.2, callVibration: false, callDesktop: false },
      });
      const chosen = {
        ...DEFAULT_NOTIFICATION_SETTINGS,
        ringtone: 'urgent',
        callVolume: 0.2,
        callVibration: false,
        callDesktop: false,
      };
      expect(await settingsOf(first.headers)).toEqual(chosen);
      expect(await settingsOf(second.headers)).toEqual(chosen);

      // Changed in the room: the customer space reads it.
      await saveSettings(first.headers, { settings: { ringtone: 'modern', messageSound: false } });
      const changed = { ...chosen, ringtone: 'modern', messageSound: false };
      expect(await settingsOf(customerHeaders)).toEqual(changed);
      expect(await settingsOf(second.headers)).toEqual(changed);
      expect(await rowsOf('customer', customer.id)).toHaveLength(1);
      expect(await rowsOf('member', first.member.id)).toHaveLength(0);
    });

    it('another member of the owner’s Ring keeps settings of its own', async () => {
      const { customer, headers: customerHeaders } = await newCustomerHeaders();
      const owner = await ownerMemberHeaders(customer.id);
      const member = await buildRingMember(t.ctx, owner.ring.id);
      const memberHeaders = bearer(await ringToken(t.ctx, member.id));

      await saveSettings(memberHeaders, { settings: { ringtone: 'classic' } });
      await saveSettings(owner.headers, { settings: { ringtone: 'discrete' } });
      expect((await settingsOf(memberHeaders)).ringtone).toBe('classic');
      expect((await settingsOf(customerHeaders)).ringtone).toBe('discrete');
    });
  });

  describe('access', () => {
    const both = (headers: Record<string, string>) => [
      getSettings(headers),
      saveSettings(headers, { settings: { muteAll: true } }),
    ];

    it('answers 401 "Non authentifié" without a token', async () => {
      for (const res of await Promise.all(both({}))) {
        expect(res.statusCode).toBe(401);
        expect(res.json()).toEqual({ success: false, error: MESSAGES.notAuthenticated });
      }
    });

    it('answers 401 "Session expirée" to forged, admin, stream and revoked tokens', async () => {
      const admin = await buildAdmin(t.ctx);
      const { member } = await newMemberHeaders();
      const revoked = await newCustomerHeaders();
      await t.ctx.sessions.revokeAllFor('customer', revoked.customer.id);
      const tokens = [
        'forged-token-forged-token-forged-token',
        await adminToken(t.ctx, admin.id),
        (await t.ctx.sessions.issue('stream', member.id)).token,
      ];
      for (const headers of [...tokens.map(bearer), revoked.headers]) {
        for (const res of await Promise.all(both(headers))) {
          expect(res.statusCode).toBe(401);
          expect(res.json()).toEqual({ success: false, error: MESSAGES.sessionExpired });
        }
      }
      // An admin id never gets a settings row, not even through a customer or member slot.
      expect(await rowsOf('customer', admin.id)).toHaveLength(0);
      expect(await rowsOf('member', admin.id)).toHaveLength(0);
    });

    it('refuses a disabled customer and a removed member', async () => {
      const { customer, headers } = await newCustomerHeaders();
      await t.ctx.db.updateTable('customers').set({ is_active: 0 }).where('id', '=', customer.id).execute();
      const { member, headers: memberHeaders } = await newMemberHeaders();
      await t.ctx.db
        .updateTable('ring_members')
        .set({ status: 'inactive' })
        .where('id', '=', member.id)
        .execute();
      for (const h of [headers, memberHeaders]) {
        const res = await getSettings(h);
        expect(res.statusCode).toBe(401);
        expect(res.json()).toEqual({ success: false, error: MESSAGES.sessionExpired });
      }
    });
  });

  describe('sounds', () => {
    const expectWav = (res: Awaited<ReturnType<TestApp['app']['inject']>>) => {
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('audio/wav');
      expect(res.headers['cache-control']).toBe('public, max-age=86400');
      const body = res.rawPayload;
      expect(body.toString('ascii', 0, 4)).toBe('RIFF');
      expect(body.toString('ascii', 8, 16)).toBe('WAVEfmt ');
      expect(body.readUInt32LE(24)).toBe(22050);
      expect(body.toString('ascii', 36, 40)).toBe('data');
      expect(body.readUInt32LE(40)).toBe(body.length - 44);
      return body;
    };

    it('serves a distinct message sound per type, without authentication', async () => {
      const bodies = [];
      for (const type of MESSAGE_SOUNDS) {
        const res = await t.app.inject({ method: 'GET', url: `/api/notifications/sound.php?type=${type}` });
        bodies.push(expectWav(res).toString('base64'));
      }
      expect(new Set(bodies).size).toBe(MESSAGE_SOUNDS.length);
      // Served again from memory, byte for byte.
      const again = await t.app.inject({ method: 'GET', url: '/api/notifications/sound.php?type=subtle' });
      expect(expectWav(again).toString('base64')).toBe(bodies[0]);
    });

    it('serves a distinct ringtone per tone and call type, voice by default', async () => {
      const bodies = new Set<string>();
      for (const tone of RINGTONES) {
        for (const call of ['voice', 'video']) {
          const res = await t.app.inject({
            method: 'GET',
            url: `/api/notifications/ringtone.php?tone=${tone}&call=${call}`,
          });
          const body = expectWav(res);
          expect(body.readUInt32LE(40) / 2 / 22050).toBeCloseTo(2, 1);
          bodies.add(body.toString('base64'));
        }
      }
      expect(bodies.size).toBe(RINGTONES.length * 2);
      const implicit = await t.app.inject({
        method: 'GET',
        url: '/api/notifications/ringtone.php?tone=modern',
      });
      const voice = await t.app.inject({
        method: 'GET',
        url: '/api/notifications/ringtone.php?tone=modern&call=voice',
      });
      expect(expectWav(implicit).equals(voice.rawPayload)).toBe(true);
    });

    it.each([
      ['/api/notifications/sound.php?type=gong', 'Type de son inconnu'],
      ['/api/notifications/sound.php', 'Type de son inconnu'],
      ['/api/notifications/sound.php?type=subtle&type=dm', 'Type de son inconnu'],
      ['/api/notifications/ringtone.php?tone=jazz&call=voice', 'Sonnerie inconnue'],
      ['/api/notifications/ringtone.php?call=video', 'Sonnerie inconnue'],
      ['/api/notifications/ringtone.php?tone=classic&call=fax', "Type d'appel inconnu"],
    ])('answers %s with 400 "%s"', async (url, message) => {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ success: false, error: message });
    });
  });
});
