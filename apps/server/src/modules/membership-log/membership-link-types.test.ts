import { ZMembershipLink } from '@securering/contract';
import { MEMBERSHIP_LINK_TYPES } from '@securering/e2ee';
import { describe, expect, it } from 'vitest';

/**
 * The link types are listed twice: in the contract's schema (what the server accepts) and in the
 * e2ee verifier (what browsers accept). Neither package can import the other (the contract has no
 * DOM types for e2ee's WebCrypto code; e2ee stays free of zod), so this pins them together.
 */
describe('membership link types', () => {
  it('are the same in the contract and in the e2ee verifier', () => {
    expect(ZMembershipLink.shape.type.options).toEqual([...MEMBERSHIP_LINK_TYPES]);
  });
});
