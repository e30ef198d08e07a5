import { QueryClient } from '@tanstack/react-query';
import { describe, expect, it } from 'vitest';
import { lazySchema } from './lazy-schema';
import { getSettingsQueryOptions, parseBootstrapSettings, seedSettingsFromPage } from './site-settings';

/** A page holding (or not) the server's settings block. */
const pageWith = (text: string | null) =>
  ({
    getElementById: (id: string) =>
      id === 'securering-settings' && text !== null ? { textContent: text } : null,
  }) as unknown as Document;

describe('settings written into the page', () => {
  it('seeds each category in the query cache, so the first render needs no call', () => {
    const client = new QueryClient();
    seedSettingsFromPage(
      client,
      pageWith(
        '{"general":{"site_name":"Anneau","primary_color":"#112233"},"maintenance":{"maintenance_mode":"0"}}',
      ),
    );
    expect(client.getQueryData(getSettingsQueryOptions('general').queryKey)).toEqual({
      site_name: 'Anneau',
      primary_color: '#112233',
    });
    expect(client.getQueryData(getSettingsQueryOptions('maintenance').queryKey)).toEqual({
      maintenance_mode: '0',
    });
    // Stamped now: fresh for the query's staleTime, so no request goes out on mount.
    const updatedAt = client.getQueryState(getSettingsQueryOptions('general').queryKey)?.dataUpdatedAt ?? 0;
    expect(Date.now() - updatedAt).toBeLessThan(5000);
  });

  it('ignores a missing block and anything that is not categories of strings', () => {
    for (const text of [
      null,
      '',
      'not json',
      '[]',
      '{"general":"x"}',
      '{"general":{"site_name":1}}',
      'null',
    ]) {
      const client = new QueryClient();
      seedSettingsFromPage(client, pageWith(text));
      expect(client.getQueryCache().getAll(), String(text)).toHaveLength(0);
    }
    expect(parseBootstrapSettings('{"general":{"a":"b"}}')).toEqual({ general: { a: 'b' } });
  });
});

describe('lazySchema', () => {
  it('loads the contract schema on demand and validates with it', async () => {
    const schema = await lazySchema('ZGetSettingsResponse')();
    expect(
      schema.safeParse({ success: true, data: { general: { site_name: { setting_value: 'x' } } } }).success,
    ).toBe(true);
    expect(schema.safeParse({ success: true, data: 'x' }).success).toBe(false);
  });
});
