import { E2E_ADMIN } from './server';

/** Signs in the seeded admin through the public API contract and returns its token. */
export async function adminLogin(baseUrl: string): Promise<string> {
  return (await adminSession(baseUrl)).token;
}

/** Signs in the seeded admin through the public API: its token and the admin the console keeps. */
export async function adminSession(baseUrl: string): Promise<{ token: string; admin: unknown }> {
  const res = await fetch(`${baseUrl}/api/admin/auth/login.php`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(E2E_ADMIN),
  });
  const body = (await res.json()) as { success: boolean; token: string; admin: unknown };
  if (!body.success) throw new Error('admin login failed');
  return { token: body.token, admin: body.admin };
}

export async function saveSettings(
  baseUrl: string,
  token: string,
  category: string,
  settings: Record<string, string>,
) {
  const res = await fetch(`${baseUrl}/api/admin/settings.php`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
    body: JSON.stringify({ category, settings }),
  });
  if (!res.ok) throw new Error(`saveSettings ${category}: ${res.status} ${await res.text()}`);
}

/** One JSON call of the public API (the body parsed, whatever the status). */
export async function apiJson<T = Record<string, unknown>>(
  baseUrl: string,
  method: string,
  route: string,
  body?: unknown,
  token?: string,
): Promise<T> {
  const res = await fetch(`${baseUrl}${route}`, {
    method,
    headers: {
      ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}),
      ...(token ? { Authorization: `Bearer ${token}` } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return (await res.json()) as T;
}

/** A Ring session as login.php and accept-invite.php answer it. */
export interface RingLogin {
  token: string;
  user: { id: string; username: string };
  ring: { id: string; name: string };
}

/** The customer invites `username` to its Ring and the invitation is accepted: its Ring session. */
export async function invitedMember(
  baseUrl: string,
  customerToken: string,
  ringId: string,
  username: string,
  password: string,
): Promise<RingLogin> {
  const invited = await apiJson<{ data: { inviteCode: string } }>(
    baseUrl,
    'POST',
    '/api/customer/ring-users.php',
    { ring_id: ringId, username },
    customerToken,
  );
  return apiJson<RingLogin>(baseUrl, 'POST', '/api/rings/accept-invite.php', {
    invite_code: invited.data.inviteCode,
    username,
    email: '',
    password,
  });
}
