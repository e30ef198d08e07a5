import {
  MESSAGES,
  ZGetSettingsQuery,
  ZSaveSettingsRequest,
  isSettingsCategory,
  type SettingsCategory,
  type TGetSettingsResponse,
  type TSaveSettingsResponse,
  type TSettingsData,
} from '@securering/contract';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../../app-context';
import { badRequest, forbidden, parseInput } from '../../lib/app-error';
import { adminCaller, optionalSessionToken, requestMeta } from '../../plugins/auth';
import { requireAdmin } from '../admins/admin.guard';
import { adminGrants, adminMay } from '../admins/admin.policy';
import { SETTINGS_CATEGORY_MODULE } from './settings.policy';
import { publicSettingsOf } from './settings.service';

export async function settingsRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const { settings } = ctx;

  const readCategory = (request: FastifyRequest) => parseInput(ZGetSettingsQuery, request.query).category;

  // Public site texts, colours, maintenance flag, realtime tuning and provider flags.
  app.get('/api/settings.php', async (request): Promise<TGetSettingsResponse> => {
    return { success: true, data: await settings.read('public', readCategory(request)) };
  });

  // Public without a token (the old clients read it anonymously); with an admin token (bearer, or cookie with its CSRF header) it also
  // returns the admin keys of the categories that admin may view, secrets as a marker.
  app.get('/api/admin/settings.php', async (request): Promise<TGetSettingsResponse> => {
    const category = readCategory(request);
    if (!optionalSessionToken(request, 'admin'))
      return { success: true, data: await settings.read('public', category) };
    await requireAdmin(ctx)(request);
    const { admin } = adminCaller(request);
    const full = await settings.read('admin', category);
    const publicData = publicSettingsOf(full);
    // One read of the admin's rights serves every category.
    const may = await adminGrants(ctx.admins, admin);
    const data: TSettingsData = {};
    for (const cat of Object.keys(full)) {
      const module = SETTINGS_CATEGORY_MODULE[cat as SettingsCategory];
      const value = (await may(module, 'view')) ? full[cat] : publicData[cat];
      if (value) data[cat] = value;
    }
    return { success: true, data };
  });

  app.post(
    '/api/admin/settings.php',
    { preHandler: requireAdmin(ctx) },
    async (request): Promise<TSaveSettingsResponse> => {
      const input = parseInput(ZSaveSettingsRequest, request.body);
      const { admin } = adminCaller(request);
      let category = input.category;
      const values: Record<string, unknown> = input.settings;
      // The old console saved the maintenance switch under "general"; it lives in its own category.
      if (category === 'general' && Object.keys(values).length === 1 && 'maintenance_mode' in values) {
        category = 'maintenance';
      }
      if (!isSettingsCategory(category)) throw badRequest(MESSAGES.unknownSettingsCategory);
      const module = SETTINGS_CATEGORY_MODULE[category];
      if (!(await adminMay(ctx.admins, admin, module, 'edit'))) throw forbidden(MESSAGES.noEditRight);
      if (Object.keys(values).length === 0) throw badRequest('Aucun paramètre à enregistrer');
      const changed = await settings.save(category, values);
      const meta = requestMeta(request);
      await ctx.systemLog.adminAction(admin, meta, `Paramètres « ${category} » modifiés`, {
        category,
        keys: changed,
      });
      if (category === 'maintenance' && changed.includes('maintenance_mode')) {
        const on = await settings.isFlagOn('maintenance', 'maintenance_mode');
        return { success: true, message: on ? 'Mode maintenance activé' : 'Mode maintenance désactivé' };
      }
      return { success: true, message: 'Paramètres enregistrés' };
    },
  );
}
