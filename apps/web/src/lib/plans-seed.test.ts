import { QueryClient } from '@tanstack/react-query';
import { describe, expect, it } from 'vitest';
import { getPlansQueryOptions, seedPlansFromPage } from './plans';

const pageWith = (text: string | null) =>
  ({
    getElementById: (id: string) =>
      id === 'securering-plans' && text !== null ? { textContent: text } : null,
  }) as unknown as Document;

describe('plans written into the home page', () => {
  it('fills the plans query, so the grid shows without a request', () => {
    const client = new QueryClient();
    const plans = [{ id: 'p1', name: 'Starter', price: 9.9, features: ['Chat'] }];
    seedPlansFromPage(client, pageWith(JSON.stringify(plans)));
    expect(client.getQueryData(getPlansQueryOptions().queryKey)).toEqual(plans);
  });

  it('leaves the query alone without a block or with something else in it', () => {
    for (const text of [null, '', '{', '{}', '[{"name":"x"}]', '[{"id":"p1","features":"Chat"}]']) {
      const client = new QueryClient();
      seedPlansFromPage(client, pageWith(text));
      expect(client.getQueryData(getPlansQueryOptions().queryKey), String(text)).toBeUndefined();
    }
  });
});
