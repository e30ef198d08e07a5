import { z } from 'zod';
import { ADMIN_ROLES } from '../constants';
import { successOf } from '../common';
import { MESSAGES } from '../errors';

export const ZAdminLoginRequest = z.object({
  username: z.string().trim().min(1, MESSAGES.adminLoginRequired).max(100),
  password: z.string().min(1, MESSAGES.adminLoginRequired).max(200),
});
export type TAdminLoginRequest = z.infer<typeof ZAdminLoginRequest>;

export const ZAdminPublic = z.object({
  id: z.string(),
  username: z.string(),
  email: z.string(),
  role: z.enum(ADMIN_ROLES),
  is_active: z.boolean(),
  last_login: z.string().nullable(),
});
export type TAdminPublic = z.infer<typeof ZAdminPublic>;

export const ZAdminLoginResponse = successOf({ token: z.string(), admin: ZAdminPublic });
export type TAdminLoginResponse = z.infer<typeof ZAdminLoginResponse>;
