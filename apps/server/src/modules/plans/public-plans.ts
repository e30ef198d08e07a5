/**
 * The public plans answer is cached on each instance (plans.routes.ts). Writers of the plans table
 * (back office, backup restore) invalidate this topic through RealtimeHub.invalidate, which reaches
 * every instance; the time limit bounds staleness should an invalidation be lost.
 */
export const PUBLIC_PLANS_TOPIC = 'public-plans';
export const PUBLIC_PLANS_TTL_MS = 60_000;
