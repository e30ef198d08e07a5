import { describe, expect, it } from 'vitest';
import { NBSP } from '../text/typography';
import { YEARLY_OFFER_LABEL, describeBilling, videoOptionPriceLabel } from './billing-label';

/** Test texts are written with plain spaces; the labels use U+00A0 before €. */
const plain = (text: string) => text.replaceAll(NBSP, ' ');

describe('describeBilling', () => {
  it('says a yearly plan bought with the paid video option is billed 10 months of both', () => {
    const billing = describeBilling({ price: 29.9, videoOption: 9.9, cycle: 'yearly', videoChosen: true });
    expect(plain(billing.label)).toBe('398,00 € / an · option vidéo incluse (+9,90 € / mois)');
    expect(billing.offer).toBe('2 mois offerts');
  });

  it('bills a monthly plan without the option at the plan price and says the option is not taken', () => {
    const billing = describeBilling({ price: 29.9, videoOption: 9.9, cycle: 'monthly', videoChosen: false });
    expect(plain(billing.label)).toBe('29,90 € / mois · sans option vidéo');
    expect(billing.offer).toBeNull();
  });

  it('adds the option to the monthly amount when it was bought', () => {
    const billing = describeBilling({ price: 9.9, videoOption: 4.9, cycle: 'monthly', videoChosen: true });
    expect(plain(billing.amount)).toBe('14,80 € / mois');
  });

  it('says video comes with the plan when the option costs nothing, whatever was chosen', () => {
    for (const videoChosen of [true, false]) {
      const billing = describeBilling({ price: 99, videoOption: 0, cycle: 'yearly', videoChosen });
      expect(plain(billing.label)).toBe('990,00 € / an · vidéo comprise dans le plan');
    }
  });
});

describe('yearly offer and video option labels', () => {
  it('labels the yearly saving as two free months, not a percentage', () => {
    expect(YEARLY_OFFER_LABEL).toBe('2 mois offerts');
  });

  it('writes the option price in the one money format', () => {
    expect(plain(videoOptionPriceLabel(4.9))).toBe('+4,90 € / mois');
    expect(plain(videoOptionPriceLabel(49, 'an'))).toBe('+49,00 € / an');
  });
});
