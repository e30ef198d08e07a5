import { centsToEuros, type TAdminStats } from '@securering/contract';
import type { AppContext } from '../../app-context';
import { DAY_MS, HOUR_MS } from '../../lib/clock';
import { storagePaths } from '../../lib/storage-paths';
import { smtpSettingsFrom } from '../../providers/mail/mail-transport';
import { fillDays, lastUtcDays, windowOf } from '../../lib/utc-days';
import { AdminStatsRepository } from './admin-stats.repository';
import { CachedValue, directorySize, newestFileTime } from './disk-usage';

const STORAGE_CACHE_MS = 60_000;
const REVENUE_MONTHS = 12;
const NEW_CUSTOMER_DAYS = 30;
const RECENT_ACTIVITY = 10;
/** Failed sign-ins of every audience are logged as auth warnings starting with this. */
const FAILED_LOGIN_PREFIX = 'Échec de connexion';

const monthKey = (ms: number) => new Date(ms).toISOString().slice(0, 7);

/** The UTC calendar windows the figures use, from one instant. */
export function statsWindows(now: Date) {
  const y = now.getUTCFullYear();
  const m = now.getUTCMonth();
  const months = Array.from({ length: REVENUE_MONTHS }, (_, i) =>
    Date.UTC(y, m - (REVENUE_MONTHS - 1 - i), 1),
  );
  const days = lastUtcDays(now, NEW_CUSTOMER_DAYS);
  return {
    nowIso: now.toISOString(),
    monthStartIso: new Date(Date.UTC(y, m, 1)).toISOString(),
    months: months.map(monthKey),
    firstMonthIso: new Date(months[0]!).toISOString(),
    days,
    firstDayIso: windowOf(days).fromIso,
    last24hIso: new Date(now.getTime() - 24 * HOUR_MS).toISOString(),
    last30dIso: new Date(now.getTime() - 30 * DAY_MS).toISOString(),
  };
}

/** Real figures for the console cards and the dashboard tab (spec 3 §2.2, §2.3). */
export class AdminStatsService {
  private readonly repo: AdminStatsRepository;
  /**
   * DATA_DIR's size, plus the Ring files when they live in object storage (S3) rather than under
   * DATA_DIR. Walking DATA_DIR can be slow on a big installation: once a minute is enough.
   */
  private readonly storage: CachedValue<number>;

  constructor(private readonly ctx: AppContext) {
    this.repo = new AdminStatsRepository(ctx.db);
    this.storage = new CachedValue(STORAGE_CACHE_MS, async () => {
      const [local, remote] = await Promise.all([
        directorySize(ctx.config.dataDir),
        ctx.storage.insideDataDir ? 0 : this.repo.ringFileBytes(),
      ]);
      return local + remote;
    });
  }

  async stats(): Promise<TAdminStats> {
    const w = statsWindows(this.ctx.clock.now());
    const [
      totalCustomers,
      active,
      month,
      total,
      activeRings,
      messagesLastMonth,
      errors24h,
      failedLogins24h,
      revenueRows,
      customerRows,
      recentActivity,
      storageUsed,
      lastBackup,
      smtp,
      disk,
    ] = await Promise.all([
      this.repo.countCustomers(),
      this.repo.countActiveSubscriptions(w.nowIso),
      this.repo.completedPayments(w.monthStartIso),
      this.repo.completedPayments(),
      this.repo.countActiveRings(w.nowIso),
      this.repo.countMessagesSince(w.last30dIso),
      this.repo.countLogsSince(w.last24hIso, { levels: ['error', 'critical'] }),
      this.repo.countLogsSince(w.last24hIso, {
        levels: ['warning'],
        category: 'auth',
        messagePrefix: FAILED_LOGIN_PREFIX,
      }),
      this.repo.revenueByMonth(w.firstMonthIso),
      this.repo.newCustomersByDay(w.firstDayIso),
      this.repo.recentActivity(RECENT_ACTIVITY),
      this.storage.get(),
      newestFileTime(storagePaths.backups(this.ctx.config), '.zip'),
      this.ctx.settings.getCategory('smtp'),
      this.ctx.disk.status().catch((error: unknown) => {
        this.ctx.logger.warn({ err: error }, 'free disk space unreadable');
        return null;
      }),
    ]);

    const revenue = new Map(revenueRows.map((r) => [r.month, r.cents]));
    const conversion =
      totalCustomers > 0 ? Math.min(100, Math.round((active.customers / totalCustomers) * 1000) / 10) : 0;

    return {
      totalCustomers,
      activeSubscriptions: active.subscriptions,
      conversionRate: conversion,
      monthlyRevenue: centsToEuros(month.cents),
      totalRevenue: centsToEuros(total.cents),
      transactionsThisMonth: month.count,
      activeRings,
      messagesLastMonth,
      storageUsed,
      disk,
      uptime: Math.floor(process.uptime()),
      responseTime: this.ctx.metrics.percentiles(),
      errors24h,
      failedLogins24h,
      lastBackupAt: lastBackup ? lastBackup.toISOString() : null,
      https: this.ctx.config.publicUrl.startsWith('https://'),
      paymentTestMode: this.ctx.config.paymentTestMode,
      smtpConfigured: smtpSettingsFrom(smtp) !== undefined,
      revenueByMonth: w.months.map((key) => ({ month: key, amount: centsToEuros(revenue.get(key) ?? 0) })),
      newCustomersByDay: fillDays(w.days, customerRows),
      recentActivity,
    };
  }
}
