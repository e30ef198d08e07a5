import {
  KEY_API_PATHS,
  ZAppendMembershipLinkResponse,
  ZGetMemberKeyResponse,
  ZMembershipLogResponse,
  ZKeyStateResponse,
  ZRotateEpochResponse,
  ZSaveMemberKeyResponse,
  ZShareEpochKeysResponse,
  type TRingInfo,
} from '@securering/contract';
import type { QueryClient } from '@tanstack/react-query';
import { ApiError, apiRequest } from '@/lib/api-client';
import { getRingInfoQueryOptions } from '../api/ring-info';
import { KeyCallConflict, type KeyringApi, type RingMemberKeys } from './keyring';

/** 409 codes after which the keyring reads the state (and the log) again and retries. */
const RETRY_CODES = new Set(['epoch_conflict', 'members_changed', 'log_head_moved']);

function conflictOf(error: unknown): KeyCallConflict | null {
  if (!(error instanceof ApiError) || error.status !== 409) return null;
  const code = (error.body as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && RETRY_CODES.has(code) ? new KeyCallConflict(code) : null;
}

async function withConflicts<T>(call: Promise<T>): Promise<T> {
  try {
    return await call;
  } catch (error) {
    throw conflictOf(error) ?? error;
  }
}

/** The members of rings/info.php with their published keys. */
export function membersOf(info: TRingInfo): RingMemberKeys[] {
  return info.users.map((user) => ({
    id: user.id,
    username: user.username,
    keys: user.keys?.publicKeys ?? null,
    keyVersion: user.keys?.keyVersion ?? null,
  }));
}

/** The keyring's server calls, over the Ring session (a 401 ends the session as usual). */
export function createKeysApi(client: QueryClient): KeyringApi {
  return {
    getMemberKey: () =>
      apiRequest(KEY_API_PATHS.getMemberKey, {
        auth: 'ring',
        schema: ZGetMemberKeyResponse,
        cache: 'no-store',
      }),
    saveMemberKey: async (body) =>
      apiRequest(KEY_API_PATHS.saveMemberKey, {
        method: 'POST',
        auth: 'ring',
        body,
        schema: ZSaveMemberKeyResponse,
      }),
    getState: () =>
      apiRequest(KEY_API_PATHS.state, { auth: 'ring', schema: ZKeyStateResponse, cache: 'no-store' }),
    rotate: async (body) => {
      await withConflicts(
        apiRequest(KEY_API_PATHS.rotate, {
          method: 'POST',
          auth: 'ring',
          body,
          schema: ZRotateEpochResponse,
        }),
      );
    },
    share: async (body) => {
      await withConflicts(
        apiRequest(KEY_API_PATHS.share, {
          method: 'POST',
          auth: 'ring',
          body,
          schema: ZShareEpochKeysResponse,
        }),
      );
    },
    getLog: (after) =>
      apiRequest(`${KEY_API_PATHS.log}?after=${after}`, {
        auth: 'ring',
        schema: ZMembershipLogResponse,
        cache: 'no-store',
      }),
    appendLink: async (link) => {
      await withConflicts(
        apiRequest(KEY_API_PATHS.log, {
          method: 'POST',
          auth: 'ring',
          body: { link },
          schema: ZAppendMembershipLinkResponse,
        }),
      );
    },
    getMembers: async (fresh) => {
      const options = getRingInfoQueryOptions();
      const info = fresh
        ? await client.fetchQuery({ ...options, staleTime: 0 })
        : (client.getQueryData(options.queryKey) ?? (await client.fetchQuery(options)));
      return membersOf(info);
    },
  };
}
