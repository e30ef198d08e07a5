// Drives a Ring through the public API as browsers do, with the real end-to-end encryption of
// @securering/e2ee (passed in: the e2e tests import the TypeScript package, the benchmarks a bundle
// of it): a subscribed customer, its Ring, invited members who publish keys, an epoch shared with
// the senders, encrypted messages sent with their client message id, history read by sequence.
// Used by bench/fanout.mjs, bench/cluster.mjs, bench/rest-overhead.mjs and e2e/specs/cluster.e2e.ts.
import { randomUUID } from 'node:crypto';
import { io } from 'socket.io-client';

export const DRIVER_CUSTOMER_PASSWORD = 'Cluster-Customer-Pass-7';
export const DRIVER_MEMBER_PASSWORD = 'Cluster-Member-Pass-9';
const PASSPHRASE = 'une phrase de banc d’essai assez longue';

/**
 * One API call. Network errors and 5xx answers are retried (`retries` times, 200 ms apart) when
 * `retries` is given: a call through a load balancer that lost an instance is sent again.
 * Resolves with the status and the parsed body.
 */
export async function api(base, method, path, { token, body, retries = 0, timeoutMs = 15_000 } = {}) {
  for (let attempt = 0; ; attempt++) {
    try {
      const res = await fetch(`${base}${path}`, {
        method,
        headers: {
          ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}),
          ...(token ? { Authorization: `Bearer ${token}` } : {}),
        },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        signal: AbortSignal.timeout(timeoutMs),
      });
      const text = await res.text();
      let json;
      try {
        json = JSON.parse(text);
      } catch {
        json = { raw: text.slice(0, 200) };
      }
      if (res.status >= 500 && attempt < retries) throw new Error(`${res.status}`);
      return { status: res.status, json };
    } catch (error) {
      if (attempt >= retries) throw error;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

/** Like api() but throws unless the answer is 2xx. */
export async function apiOk(base, method, path, options = {}) {
  const { status, json } = await api(base, method, path, options);
  if (status < 200 || status > 299)
    throw new Error(`${method} ${path} → ${status} ${JSON.stringify(json).slice(0, 300)}`);
  return json;
}

/** Runs `work` on every item with at most `limit` at once; resolves with the results in order. */
export async function mapLimit(items, limit, work) {
  const results = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        results[i] = await work(items[i], i);
      }
    }),
  );
  return results;
}

/** A Ring member acting like its browser: session token, keys, encryption, sends, history. */
export class RingMember {
  constructor(base, e2ee, { memberId, ringId, token, username }) {
    this.base = base;
    this.e2ee = e2ee;
    this.memberId = memberId;
    this.ringId = ringId;
    this.token = token;
    this.username = username;
    this.epochKeys = new Map();
  }

  call(method, path, body, options = {}) {
    return api(this.base, method, path, { token: this.token, body, ...options });
  }

  /** First unlock: creates, seals and publishes identity keys. */
  async publishKeys() {
    const { e2ee } = this;
    this.identity = await e2ee.generateIdentity();
    const publicKeys = await e2ee.exportPublicIdentity(this.identity);
    this.publicKeys = publicKeys;
    const record = await e2ee.sealIdentity(this.identity, PASSPHRASE, {
      memberId: this.memberId,
      iterations: e2ee.LEGACY_KDF_ITERATIONS,
    });
    await apiOk(this.base, 'POST', '/api/rings/save-member-key.php', {
      token: this.token,
      body: { key: record, publicKeys },
    });
  }

  // ---- the signed membership log (issue 24) ----

  /** Reads the log's links after the head it verified, and verifies them. */
  async syncLog() {
    const after = this.log?.head.seq ?? -1;
    const json = await apiOk(this.base, 'GET', `/api/rings/keys/log.php?after=${after}`, {
      token: this.token,
    });
    if (json.links.length > 0)
      this.log = await this.e2ee.verifyMembershipLog(json.links, {
        ringId: this.ringId,
        ...(this.log ? { from: this.log } : {}),
      });
    return this.log;
  }

  signer() {
    return {
      memberId: this.memberId,
      signingKey: this.identity.signing.privateKey,
      ed25519: this.publicKeys.ed25519,
    };
  }

  /** The owner starts the Ring's log (genesis), after publishing its keys. */
  async startLog() {
    const info = await apiOk(this.base, 'GET', '/api/rings/info.php', { token: this.token });
    const link = await this.e2ee.createGenesis({
      ringId: this.ringId,
      owner: { id: this.memberId, username: info.user.username, keys: this.publicKeys },
      level: info.ring.encryptionLevel,
      signer: this.signer(),
    });
    await apiOk(this.base, 'POST', '/api/rings/keys/log.php', { token: this.token, body: { link } });
    await this.syncLog();
  }

  /** Admits members who published keys (as the owner does in the room after comparing numbers). */
  async admit(members) {
    for (const member of members) {
      const log = await this.syncLog();
      const link = await this.e2ee.createLink(
        log,
        {
          type: 'admit',
          body: {
            member: { id: member.memberId, username: member.username, keys: member.publicKeys },
            role: 'member',
            invitation: member.memberId,
            shareHistory: false,
            shareFiles: false,
          },
        },
        this.signer(),
      );
      await apiOk(this.base, 'POST', '/api/rings/keys/log.php', { token: this.token, body: { link } });
    }
    await this.syncLog();
  }

  /** Creates the next epoch at the log's head, for every member the log admitted (the first is epoch 1). */
  async rotate() {
    return (await this.prepareRotation()).send();
  }

  /**
   * The next epoch's key and its shares for every member the log admitted, made now and sent by
   * `send()` (resolves with the epoch): what the rotating member's own device computes before it
   * posts. A benchmark prepares it before its measuring window, so that the load generator's
   * wraps do not take the measured server's CPU (they share the machine's cores). `send()` fails
   * if the Ring moved meanwhile (another epoch, another log head): rotate again then.
   */
  async prepareRotation() {
    const { e2ee } = this;
    const log = await this.syncLog();
    const state = await apiOk(this.base, 'GET', '/api/rings/keys/state.php', { token: this.token });
    const info = await apiOk(this.base, 'GET', '/api/rings/info.php', { token: this.token });
    const epoch = state.currentEpoch + 1;
    const key = await e2ee.generateEpochKey({
      ringId: this.ringId,
      epoch,
      level: log.level,
      logSeq: log.head.seq,
    });
    const admitted = new Set(e2ee.activeLogMembers(log).map((m) => m.id));
    const recipients = info.users.filter((u) => u.keys && admitted.has(u.id));
    const shares = await Promise.all(
      recipients.map((u) =>
        e2ee.wrapEpochKeyFor(
          key,
          { memberId: u.id, x25519PublicB64: u.keys.publicKeys.x25519 },
          { memberId: this.memberId, signingPrivateKey: this.identity.signing.privateKey },
          log.head,
        ),
      ),
    );
    return {
      epoch,
      send: async () => {
        await apiOk(this.base, 'POST', '/api/rings/keys/rotate.php', {
          token: this.token,
          body: {
            epoch,
            level: log.level,
            shares,
            withheld: [],
            keyVersions: Object.fromEntries(recipients.map((u) => [u.id, u.keys.keyVersion])),
          },
        });
        this.epochKeys.set(epoch, key);
        return epoch;
      },
    };
  }

  /** Reads its shares and opens each (checking the sender's signature). */
  async loadKeys({ knownSenders = false } = {}) {
    const { e2ee } = this;
    const state = await apiOk(this.base, 'GET', '/api/rings/keys/state.php', { token: this.token });
    // `knownSenders`: the senders' keys read last time, as a browser checks a new epoch's share
    // against the log it holds (Keyring.sync reads the key state only); the member list is read
    // again for a sender it does not know.
    if (!knownSenders || state.shares.some(({ senderMemberId }) => !this.senderKeys?.has(senderMemberId))) {
      const info = await apiOk(this.base, 'GET', '/api/rings/info.php', { token: this.token });
      this.senderKeys = new Map(info.users.map((u) => [u.id, u.keys?.publicKeys.ed25519]));
    }
    const senders = this.senderKeys;
    for (const { share, senderMemberId } of state.shares) {
      const senderKey = senders.get(senderMemberId);
      if (!senderKey) continue;
      this.epochKeys.set(
        share.epoch,
        await e2ee.unwrapEpochKey(
          share,
          { memberId: this.memberId, agreementKeyPair: this.identity.agreement },
          senderKey,
          { ringId: this.ringId },
        ),
      );
    }
  }

  /** An envelope of `text` for the room under the newest epoch it holds. */
  encrypt(text, clientMessageId = randomUUID(), conversationId = 'room:general') {
    const epoch = Math.max(...this.epochKeys.keys());
    return this.e2ee.encryptMessage(
      {
        v: 1,
        ringId: this.ringId,
        conversationId,
        epoch,
        senderId: this.memberId,
        clientMessageId,
        sentAt: new Date().toISOString(),
      },
      text,
      this.epochKeys.get(epoch),
      this.identity.signing.privateKey,
    );
  }

  /** The body of send.php for an envelope. */
  static sendBody(content, conversationId = 'room:general') {
    return { content, clientEncrypted: true, conversation_id: conversationId, messageType: 'text' };
  }

  async mintStreamToken(options = {}) {
    const json = await apiOk(this.base, 'POST', '/api/rings/mint-stream-token.php', {
      token: this.token,
      ...options,
    });
    return json.stream_token;
  }

  /** Every room message after `since`, oldest first, page by page (what a client does on reconnect). */
  async history(since = 0, options = {}) {
    const messages = [];
    let cursor = since;
    for (;;) {
      const json = await apiOk(
        this.base,
        'GET',
        `/api/messages/get.php?conversation_id=room%3Ageneral&since=${cursor}&limit=100`,
        { token: this.token, ...options },
      );
      messages.push(...json.messages);
      if (json.messages.length > 0) cursor = json.messages[json.messages.length - 1].seq;
      if (!json.hasMore) return messages;
    }
  }
}

/**
 * A customer with a yearly Enterprise subscription (unlimited members), made by the back office,
 * its Ring, and the owner's Ring session. `admin`: { username, password } of the seeded admin.
 */
export async function subscribedRing(base, e2ee, { admin, ringName = 'Ring de charge', email }) {
  const adminToken = (await apiOk(base, 'POST', '/api/admin/auth/login.php', { body: admin })).token;
  const customerEmail = email ?? `charge-${randomUUID().slice(0, 8)}@example.com`;
  const created = await apiOk(base, 'POST', '/api/admin/customers.php', {
    token: adminToken,
    body: {
      first_name: 'Banc',
      last_name: 'Essai',
      email: customerEmail,
      password: DRIVER_CUSTOMER_PASSWORD,
      email_verified: true,
    },
  });
  const plans = await apiOk(base, 'GET', '/api/subscriptions/plans.php');
  const plan = plans.data.find((p) => p.slug === 'enterprise') ?? plans.data[plans.data.length - 1];
  const today = new Date().toISOString().slice(0, 10);
  const nextYear = new Date(Date.now() + 365 * 86_400_000).toISOString().slice(0, 10);
  await apiOk(base, 'POST', `/api/admin/customers/${created.data.id}/create-subscription`, {
    token: adminToken,
    body: { plan_id: plan.id, billing_cycle: 'yearly', starts_at: today, expires_at: nextYear },
  });
  const customerToken = (
    await apiOk(base, 'POST', '/api/auth/customer-login.php', {
      body: { email: customerEmail, password: DRIVER_CUSTOMER_PASSWORD },
    })
  ).token;
  const ring = await apiOk(base, 'POST', '/api/customer/rings.php', {
    token: customerToken,
    body: { name: ringName },
  });
  const ringId = ring.data.id;
  const login = await apiOk(base, 'POST', '/api/rings/login.php', {
    body: { email: customerEmail, password: DRIVER_CUSTOMER_PASSWORD, ring_id: ringId },
  });
  const owner = new RingMember(base, e2ee, {
    memberId: login.user.id,
    ringId,
    token: login.token,
    username: login.user.username,
  });
  return { adminToken, customerToken, ringId, owner, email: customerEmail };
}

/** `count` invited members who accepted their invitation (each a Ring session). */
export async function inviteMembers(
  base,
  e2ee,
  { customerToken, ringId, count, prefix = 'membre', concurrency = 4 },
) {
  const names = Array.from({ length: count }, (_, i) => `${prefix}${String(i + 1).padStart(3, '0')}`);
  return mapLimit(names, concurrency, async (username) => {
    const invited = await apiOk(base, 'POST', '/api/customer/ring-users.php', {
      token: customerToken,
      body: { ring_id: ringId, username },
    });
    const accepted = await apiOk(base, 'POST', '/api/rings/accept-invite.php', {
      body: { invite_code: invited.data.inviteCode, username, password: DRIVER_MEMBER_PASSWORD },
    });
    return new RingMember(base, e2ee, {
      memberId: accepted.user.id,
      ringId,
      token: accepted.token,
      username,
    });
  });
}

/**
 * A Ring of `members` invited members plus the owner, who starts the membership log and admits
 * them all (each publishes keys first); the owner and the first `senders` members open the key of
 * epoch 1. Resolves { ringId, owner, members, senders }.
 */
export async function ringWithSenders(base, e2ee, { admin, members, senders = 1, concurrency = 4 }) {
  const { customerToken, ringId, owner } = await subscribedRing(base, e2ee, { admin });
  const invited = await inviteMembers(base, e2ee, { customerToken, ringId, count: members, concurrency });
  const keyed = invited.slice(0, Math.max(0, senders - 1));
  await owner.publishKeys();
  await owner.startLog();
  // Every member publishes keys and is admitted (only admitted members are served the Ring's
  // messages); the senders then open the epoch's key.
  await mapLimit(invited, concurrency, (member) => member.publishKeys());
  await owner.admit(invited);
  await owner.rotate();
  for (const member of keyed) await member.loadKeys();
  return { ringId, customerToken, owner, members: invited, senders: [owner, ...keyed] };
}

/**
 * A Ring page's realtime connection, opened and kept as the web client does it
 * (apps/web/src/lib/realtime.ts, connectToRing), for tests and benchmarks that stand for browsers:
 * websocket first, socket.io's own reconnection off and attempts spaced by the contract's
 * reconnectDelayMs (reset once joined), a stream token for every attempt — the spare one taken
 * over the socket while connected (`renew_stream_token`, on spareTokenRenewalDelayMs's schedule)
 * while usable, else minted over HTTP (asked again every 1.5 s on failure, given up on a 401 — the
 * page would end its session) —, join_ring sent after each connection and again every second
 * until answered (with what `hooks.joinRequest()` returns: the conversations held, whose missed
 * messages come in its answer, and whether to bring the conversation list and the key revision),
 * and one report to the server log per outage (refused connection, token
 * unavailable). `contract` is @securering/contract (tests import it; benchmarks load it with
 * scripts/lib/workspace-bundle.mjs), so both follow the same RING_CONNECTION. `hooks` observe it:
 * onRetry (a reconnection starts), onAttempt (the connection opened, a stream token is being
 * taken), onToken (with `spare`: whether it was the spare), onSpare (a spare token received),
 * onJoined (with the answer and what was asked), onSessionEnded (401).
 */
export function connectRingClient(contract, base, member, hooks = {}) {
  const {
    RING_CONNECTION: policy,
    isSpareTokenUsable,
    reconnectDelayMs,
    spareTokenRenewalDelayMs,
  } = contract;
  const report = (message, error) =>
    fetch(`${base}/api/utils/log.php`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${member.token}` },
      body: JSON.stringify({
        level: 'warning',
        category: 'realtime',
        message,
        details: { error },
        user_id: null,
      }),
    }).catch(() => undefined);
  let closed = false;
  let spare;
  const mint = async () => {
    for (let failures = 0; ; failures++) {
      const res = await fetch(`${base}/api/rings/mint-stream-token.php`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${member.token}` },
        signal: AbortSignal.timeout(60_000),
      }).catch((error) => ({ ok: false, status: 0, error }));
      if (res.ok) return (await res.json()).stream_token;
      if (res.status === 401) throw new Error('401');
      if (failures === 0)
        void report('Jeton de flux indisponible, nouvel essai', res.error?.message ?? `${res.status}`);
      if (closed) throw new Error('closed');
      await new Promise((resolve) => setTimeout(resolve, policy.tokenRetryMs));
    }
  };
  const socket = io(base, {
    path: '/socket.io',
    transports: ['websocket', 'polling'],
    reconnection: false,
    timeout: policy.connectTimeoutMs,
    auth: (callback) => {
      hooks.onAttempt?.();
      const held = spare;
      spare = undefined;
      if (held && isSpareTokenUsable(held.expiresAt, Date.now())) {
        hooks.onToken?.({ spare: true });
        callback({ token: held.token });
        return;
      }
      mint().then(
        (token) => {
          hooks.onToken?.({ spare: false });
          callback({ token });
        },
        (error) => {
          if (error.message === '401') {
            closed = true;
            hooks.onSessionEnded?.();
          }
          callback({});
        },
      );
    },
  });
  let joinTimer;
  let retryTimer;
  let renewTimer;
  const scheduleRenewal = () => {
    clearTimeout(renewTimer);
    renewTimer = setTimeout(renew, spareTokenRenewalDelayMs(spare?.expiresAt, Date.now()));
  };
  const renew = () => {
    if (closed || !socket.connected) return;
    socket
      .timeout(policy.connectTimeoutMs)
      .emit('renew_stream_token', { ringId: member.ringId }, (error, result) => {
        if (!error && result.ok) {
          spare = { token: result.stream_token, expiresAt: Date.now() + result.expires_in * 1000 };
          hooks.onSpare?.();
        }
        if (!closed && socket.connected) scheduleRenewal();
      });
  };
  let attempts = 0;
  let refusalReported = false;
  const join = () => {
    clearTimeout(joinTimer);
    const { catchUp = [], ...also } = hooks.joinRequest?.() ?? {};
    const asked = {
      ...(catchUp.length > 0 ? { catchUp: catchUp.slice(0, contract.MAX_JOIN_CATCH_UP) } : {}),
      ...also,
    };
    socket
      .timeout(policy.joinRetryMs)
      .emit('join_ring', { ringId: member.ringId, ...asked }, (error, result) => {
        if (!error && result?.ok) {
          attempts = 0;
          refusalReported = false;
          scheduleRenewal();
          hooks.onJoined?.(result, asked);
          return;
        }
        if (socket.connected) joinTimer = setTimeout(join, policy.joinRetryMs);
      });
  };
  const reconnectLater = () => {
    clearTimeout(retryTimer);
    if (closed) return;
    const delay = reconnectDelayMs(attempts);
    attempts += 1;
    retryTimer = setTimeout(() => {
      if (closed || socket.connected) return;
      hooks.onRetry?.();
      socket.connect();
    }, delay);
  };
  socket.on('connect', join);
  socket.on('disconnect', () => {
    clearTimeout(joinTimer);
    clearTimeout(renewTimer);
    reconnectLater();
  });
  socket.on('connect_error', (error) => {
    if (!refusalReported) void report('Connexion temps réel refusée', error.message);
    refusalReported = true;
    reconnectLater();
  });
  const close = socket.close.bind(socket);
  socket.close = () => {
    closed = true;
    spare = undefined;
    clearTimeout(joinTimer);
    clearTimeout(retryTimer);
    clearTimeout(renewTimer);
    return close();
  };
  return socket;
}
