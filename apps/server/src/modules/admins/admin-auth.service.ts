import { MESSAGES, type TAdminLoginRequest, type TAdminLoginResponse } from '@securering/contract';
import type { AppContext } from '../../app-context';
import { AppError, unauthorized } from '../../lib/app-error';
import { loginAccount } from '../../lib/login-throttle';
import { verifyAgainstDummy, verifyPassword } from '../../lib/passwords';
import type { RequestMeta } from '../sessions/session.service';
import { toAdminPublic } from './admin.policy';

export class AdminAuthService {
  constructor(private readonly ctx: AppContext) {}

  async login(input: TAdminLoginRequest, meta: RequestMeta): Promise<TAdminLoginResponse> {
    const { loginThrottle, admins, sessions, systemLog, clock } = this.ctx;
    const account = loginAccount.admin(input.username);
    await loginThrottle.reserve(account);
    const admin = await admins.findByUsername(input.username);
    const valid = admin
      ? await verifyPassword(admin.password_hash, input.password)
      : await verifyAgainstDummy(input.password);
    if (!admin || !valid) {
      await systemLog.warning('auth', 'Échec de connexion administrateur', {
        details: { username: input.username },
        ip: meta.ip,
        userAgent: meta.userAgent,
      });
      throw unauthorized(MESSAGES.adminInvalidCredentials);
    }
    if (admin.is_active !== 1) throw new AppError(403, MESSAGES.accountDisabled);
    await loginThrottle.clear(account);
    const issued = await sessions.issue('admin', admin.id, meta);
    const now = clock.now().toISOString();
    await admins.update(admin.id, { last_login: now });
    await systemLog.info('auth', 'Connexion administrateur', {
      userId: admin.id,
      ip: meta.ip,
      userAgent: meta.userAgent,
    });
    return { success: true, token: issued.token, admin: toAdminPublic({ ...admin, last_login: now }) };
  }
}
