import { describe, expect, it } from 'vitest';
import { BufferedObserver, OBSERVATIONS_FOLDED_AT, OperatorMetrics } from './operator-metrics';

/** The value of one series of the exposition, or undefined when absent. */
function seriesValue(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('BufferedObserver', () => {
  it('folds its observations in order when asked, and by itself once the threshold is reached', () => {
    const folded: number[] = [];
    const observer = new BufferedObserver((value) => folded.push(value), 3);
    observer.observe(1);
    observer.observe(2);
    expect(folded).toEqual([]);
    observer.observe(3);
    expect(folded).toEqual([1, 2, 3]);
    observer.observe(4);
    observer.fold();
    observer.fold();
    expect(folded).toEqual([1, 2, 3, 4]);
  });
});

describe('OperatorMetrics (buffered histograms)', () => {
  it('a scrape shows every query and push observed before it, none twice', async () => {
    const metrics = new OperatorMetrics();
    metrics.dbQueries.ok.observe(0.0002);
    metrics.dbQueries.ok.observe(0.003);
    metrics.dbQueries.error.observe(0.02);
    metrics.messagePushDelay.observe(0.004);
    let text = (await metrics.exposition()).body;
    expect(seriesValue(text, 'securering_db_query_duration_seconds_count{outcome="ok"}')).toBe(2);
    expect(seriesValue(text, 'securering_db_query_duration_seconds_bucket{le="0.0005",outcome="ok"}')).toBe(1);
    expect(seriesValue(text, 'securering_db_query_duration_seconds_count{outcome="error"}')).toBe(1);
    expect(seriesValue(text, 'securering_message_push_delay_seconds_count')).toBe(1);
    metrics.dbQueries.ok.observe(0.001);
    text = (await metrics.exposition()).body;
    expect(seriesValue(text, 'securering_db_query_duration_seconds_count{outcome="ok"}')).toBe(3);
    expect(seriesValue(text, 'securering_message_push_delay_seconds_count')).toBe(1);
  });

  it('holds at most OBSERVATIONS_FOLDED_AT observations between scrapes', () => {
    const folded: number[] = [];
    const observer = new BufferedObserver((value) => folded.push(value));
    for (let i = 0; i < OBSERVATIONS_FOLDED_AT * 2 + 5; i++) observer.observe(i);
    expect(folded).toHaveLength(OBSERVATIONS_FOLDED_AT * 2);
    expect(folded.at(-1)).toBe(OBSERVATIONS_FOLDED_AT * 2 - 1);
  });
});
