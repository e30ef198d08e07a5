import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** What the metrics read at scrape time from the parts of the instance that hold the state. */
export interface MetricsSources {
  /** Sockets connected to this instance. */
  connectedSockets(): number;
  /** Distinct Rings with at least one socket joined on this instance. */
  joinedRings(): number;
  /** PostgreSQL pool use (SQLite has none). */
  databasePool(): { total: number; idle: number; waiting: number } | undefined;
}

const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const QUERY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5];

/** Observations waiting in a BufferedObserver before they are folded into their histogram. */
export const OBSERVATIONS_FOLDED_AT = 1024;

/**
 * How often the event-loop lag histogram (`nodejs_eventloop_lag_*`) samples the loop, in ms.
 * prom-client's default, 10 ms, is a timer that wakes the main thread 100 times a second even when
 * nothing else happens: each wake-up is a sleep and a context switch (costly on a virtual machine)
 * and runs on caches the next message then finds cold. Under chat load (issue 30, a 30-member Ring
 * at 20 messages/s) the main thread switched 8 times per message against 1.7 for plain socket.io.
 * At 100 ms a scrape every 15 s still reads 150 samples, and a stall longer than that is caught by
 * the samples it delays.
 */
export const EVENT_LOOP_LAG_RESOLUTION_MS = 100;

/**
 * Observations of one histogram series that happen in a hot path (every database query, every
 * message pushed), written to a buffer and folded into the histogram together (issue 30): when the
 * histogram is scraped, or as soon as OBSERVATIONS_FOLDED_AT are waiting (so an instance nobody
 * scrapes holds no more than that). Each observation then costs an array write where it happens; the
 * histogram's own observe runs in one loop, as the delivery counts are added at scrape time.
 */
export class BufferedObserver {
  private readonly pending: number[] = [];

  constructor(
    private readonly observeNow: (value: number) => void,
    private readonly foldAt = OBSERVATIONS_FOLDED_AT,
  ) {}

  observe(value: number): void {
    this.pending.push(value);
    if (this.pending.length >= this.foldAt) this.fold();
  }

  /** Adds every waiting observation to the histogram. */
  fold(): void {
    for (const value of this.pending) this.observeNow(value);
    this.pending.length = 0;
  }
}

/**
 * The instance's Prometheus metrics (`GET /metrics`, issue 30), one registry per app so that several
 * apps in one process (tests) never share or collide. Counters are incremented where the work
 * happens; gauges read their sources when scraped. Nothing here names a Ring, a member or a
 * message: labels are routes, statuses, event and job names only.
 */
export class OperatorMetrics {
  readonly registry = new Registry();
  private sources: MetricsSources | undefined;

  readonly httpRequests = new Counter({
    name: 'securering_http_requests_total',
    help: 'HTTP requests answered, by route pattern, method and status code.',
    labelNames: ['route', 'method', 'status'] as const,
    registers: [this.registry],
  });
  readonly httpDuration = new Histogram({
    name: 'securering_http_request_duration_seconds',
    help: 'Time to answer an HTTP request, by route pattern and method.',
    labelNames: ['route', 'method'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  /** Deliveries counted since the last scrape, by event: a map update per broadcast, not a counter call. */
  private readonly pendingDeliveries = new Map<string, number>();
  /** Observed through `messagePushDelay` (buffered). */
  private readonly messagePushDelayHistogram = new Histogram({
    name: 'securering_message_push_delay_seconds',
    help: 'From a message send reaching the server to its push to socket.io (checks, storage and commit included), on the instance that stored it.',
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
    collect: () => this.messagePushDelay.fold(),
  });
  readonly messagePushDelay = new BufferedObserver((seconds) =>
    this.messagePushDelayHistogram.observe(seconds),
  );
  /** Observed through `dbQueries` (buffered). */
  private readonly dbQueryDuration = new Histogram({
    name: 'securering_db_query_duration_seconds',
    help: 'Database query time, by outcome.',
    labelNames: ['outcome'] as const,
    buckets: QUERY_BUCKETS,
    registers: [this.registry],
    collect: () => {
      this.dbQueries.ok.fold();
      this.dbQueries.error.fold();
    },
  });
  /** Database query times in seconds, by outcome. */
  readonly dbQueries = {
    ok: new BufferedObserver((seconds) => this.dbQueryDuration.observe({ outcome: 'ok' }, seconds)),
    error: new BufferedObserver((seconds) => this.dbQueryDuration.observe({ outcome: 'error' }, seconds)),
  };
  readonly redisAdapterErrors = new Counter({
    name: 'securering_redis_adapter_errors_total',
    help: 'Redis commands of the socket.io adapter that failed (publish, subscribe).',
    registers: [this.registry],
  });
  readonly jobRuns = new Counter({
    name: 'securering_job_runs_total',
    help: 'Scheduled job runs, by job and outcome.',
    labelNames: ['job', 'outcome'] as const,
    registers: [this.registry],
  });
  readonly uploadsInProgress = new Gauge({
    name: 'securering_uploads_in_progress',
    help: 'File upload requests (tus) being received by this instance.',
    registers: [this.registry],
  });
  readonly mails = new Counter({
    name: 'securering_mails_total',
    help: 'Emails handled by the outbox, by outcome (sent, logged without SMTP, retry, failed).',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({
      register: this.registry,
      prefix: 'securering_',
      eventLoopMonitoringPrecision: EVENT_LOOP_LAG_RESOLUTION_MS,
    });
    const sources = () => this.sources;
    const pendingDeliveries = this.pendingDeliveries;
    new Counter({
      name: 'securering_socket_deliveries_total',
      help: 'Events written to sockets of this instance (one per recipient socket), by event name.',
      labelNames: ['event'] as const,
      registers: [this.registry],
      collect() {
        for (const [event, count] of pendingDeliveries) this.inc({ event }, count);
        pendingDeliveries.clear();
      },
    });
    new Gauge({
      name: 'securering_connected_sockets',
      help: 'Sockets connected to this instance.',
      registers: [this.registry],
      collect() {
        this.set(sources()?.connectedSockets() ?? 0);
      },
    });
    new Gauge({
      name: 'securering_joined_rings',
      help: 'Rings with at least one socket joined on this instance.',
      registers: [this.registry],
      collect() {
        this.set(sources()?.joinedRings() ?? 0);
      },
    });
    new Gauge({
      name: 'securering_db_pool_connections',
      help: 'PostgreSQL pool connections of this instance, by state (absent on SQLite).',
      labelNames: ['state'] as const,
      registers: [this.registry],
      collect() {
        const pool = sources()?.databasePool();
        if (!pool) return;
        this.set({ state: 'total' }, pool.total);
        this.set({ state: 'idle' }, pool.idle);
        this.set({ state: 'waiting' }, pool.waiting);
      },
    });
  }

  /**
   * One event written to `recipients` sockets of this instance: once per broadcast (the adapter
   * counts its local recipients, realtime/broadcast-delivery.ts) or per emit to a single socket.
   */
  countDeliveries(event: string, recipients: number): void {
    this.pendingDeliveries.set(event, (this.pendingDeliveries.get(event) ?? 0) + recipients);
  }

  /** Where the scrape-time gauges read from (the realtime server and the database, once built). */
  readFrom(sources: MetricsSources): void {
    this.sources = sources;
  }

  /** Prometheus text exposition of every series. */
  async exposition(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
