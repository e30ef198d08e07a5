import { z } from 'zod';
import {
  ADMIN_MODULES,
  ADMIN_ROLES,
  PERMISSION_TYPES,
  type AdminModule,
  type PermissionType,
} from '../constants';
import { successOf } from '../common';
import { ACCOUNT_MESSAGES, EMAIL_MAX_LENGTH, isEmailAddress } from '../customers/validation';
import { ZAdminPublic } from './login';

/** What each permission type lets an admin do, in French, for the permissions dialog. */
export const PERMISSION_DESCRIPTIONS: Record<PermissionType, string> = {
  view: 'Consulter les données du module',
  create: 'Créer de nouveaux éléments',
  edit: 'Modifier les éléments existants',
  delete: 'Supprimer des éléments',
};

export const ZPermissionEntry = z.object({
  module_name: z.string(),
  module_label: z.string(),
  permissions: z.array(
    z.object({
      permission_type: z.string(),
      permission_label: z.string(),
      description: z.string(),
      granted: z.boolean(),
    }),
  ),
});
export type TPermissionEntry = z.infer<typeof ZPermissionEntry>;

/** GET /api/admin/permissions.php?admin_id= */
export const ZAdminPermissionsQuery = z.object({
  admin_id: z.string().trim().min(1, 'Administrateur requis').max(64),
});
export const ZAdminPermissionsResponse = successOf({
  permissions: z.array(ZPermissionEntry),
  admin_id: z.string(),
});

const moduleName = z.enum(ADMIN_MODULES.map((m) => m.name) as [AdminModule, ...AdminModule[]], {
  message: 'Module inconnu',
});
const permissionType = z.enum(PERMISSION_TYPES.map((p) => p.type) as [PermissionType, ...PermissionType[]], {
  message: 'Type de permission inconnu',
});

/** PUT /api/admin/permissions.php */
export const ZSaveAdminPermissionsRequest = z.object({
  admin_id: z.string().trim().min(1, 'Administrateur requis').max(64),
  permissions: z
    .array(z.object({ module_name: moduleName, permission_type: permissionType, granted: z.boolean() }))
    .max(ADMIN_MODULES.length * PERMISSION_TYPES.length),
});
export type TSaveAdminPermissionsRequest = z.input<typeof ZSaveAdminPermissionsRequest>;

/** The full module × type grid for one admin, granted or not. */
export function permissionGrid(
  granted: (module: AdminModule, type: PermissionType) => boolean,
): TPermissionEntry[] {
  return ADMIN_MODULES.map((m) => ({
    module_name: m.name,
    module_label: m.label,
    permissions: PERMISSION_TYPES.map((p) => ({
      permission_type: p.type,
      permission_label: p.label,
      description: PERMISSION_DESCRIPTIONS[p.type],
      granted: granted(m.name, p.type),
    })),
  }));
}

/** GET /api/admin/users.php */
export const ZAdminsListResponse = successOf({ admins: z.array(ZAdminPublic) });

const ZAdminFields = {
  username: z
    .string()
    .trim()
    .min(3, 'Nom d’utilisateur : 3 caractères minimum')
    .max(50, 'Nom d’utilisateur : 50 caractères maximum')
    .regex(/^[A-Za-z0-9._-]+$/, 'Nom d’utilisateur : lettres, chiffres, point, tiret ou souligné'),
  email: z
    .string()
    .trim()
    .toLowerCase()
    .max(EMAIL_MAX_LENGTH, { message: ACCOUNT_MESSAGES.emailInvalid, abort: true })
    .refine(isEmailAddress, ACCOUNT_MESSAGES.emailInvalid),
  role: z.enum(ADMIN_ROLES, { message: 'Rôle invalide' }),
};

/** POST /api/admin/users.php */
export const ZCreateAdminRequest = z.object({
  ...ZAdminFields,
  password: z.string().min(8, 'Mot de passe : 8 caractères minimum').max(200),
  is_active: z.boolean().optional(),
});
export type TCreateAdminRequest = z.input<typeof ZCreateAdminRequest>;

/** PUT /api/admin/users.php — a blank password leaves it unchanged. */
export const ZUpdateAdminRequest = z.object({
  id: z.string().trim().min(1).max(64),
  ...ZAdminFields,
  password: z
    .string()
    .max(200)
    .optional()
    .nullable()
    .transform((p) => (p ? p : undefined))
    .refine((p) => p === undefined || p.length >= 8, 'Mot de passe : 8 caractères minimum'),
  is_active: z.boolean().optional(),
});
export type TUpdateAdminRequest = z.input<typeof ZUpdateAdminRequest>;

/** DELETE /api/admin/users.php */
export const ZDeleteAdminRequest = z.object({ id: z.string().trim().min(1).max(64) });

export const ADMIN_ROLE_LABELS = { admin: 'Administrateur', super_admin: 'Super Administrateur' } as const;
