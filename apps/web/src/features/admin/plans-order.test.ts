import { describe, expect, it } from 'vitest';
import { movedIds } from './plans-api';

describe('movedIds (▲ / ▼ on a plan card)', () => {
  it('swaps a plan with its neighbour, and changes nothing past either end', () => {
    expect(movedIds(['a', 'b', 'c'], 2, -1)).toEqual(['a', 'c', 'b']);
    expect(movedIds(['a', 'b', 'c'], 0, 1)).toEqual(['b', 'a', 'c']);
    expect(movedIds(['a', 'b', 'c'], 0, -1)).toEqual(['a', 'b', 'c']);
    expect(movedIds(['a', 'b', 'c'], 2, 1)).toEqual(['a', 'b', 'c']);
  });
});
