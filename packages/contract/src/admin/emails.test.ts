import { describe, expect, it } from 'vitest';
import {
  EMAIL_TEMPLATE_TITLES,
  emailTemplateBadgeKind,
  emailTemplateTitle,
  escapeHtml,
  renderTemplate,
  sampleTemplateVariables,
  templatePlaceholders,
} from './emails';

describe('renderTemplate', () => {
  it('replaces known placeholders and blanks unknown ones', () => {
    expect(renderTemplate('Bonjour {{ first_name }}{{missing}} !', { first_name: 'Léa' }, 'text')).toBe(
      'Bonjour Léa !',
    );
  });

  it('blanks placeholders named like Object.prototype members', () => {
    for (const mode of ['text', 'html'] as const) {
      expect(renderTemplate('[{{constructor}}{{toString}}{{__proto__}}]', { first_name: 'Léa' }, mode)).toBe(
        '[]',
      );
    }
  });

  it('escapes values in HTML mode only', () => {
    const vars = { name: '<script>alert(1)</script>' };
    expect(renderTemplate('<p>{{name}}</p>', vars, 'html')).toBe(
      '<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>',
    );
    expect(renderTemplate('{{name}}', vars, 'text')).toBe('<script>alert(1)</script>');
  });

  it('blanks null and undefined values and prints numbers, as the server mails need', () => {
    const vars = { a: null, b: undefined, n: 42, z: 0, s: '' };
    for (const mode of ['html', 'text'] as const) {
      expect(renderTemplate('[{{a}}|{{b}}|{{n}}|{{z}}|{{s}}]', vars, mode)).toBe('[||42|0|]');
    }
  });

  it('leaves the template markup alone and keeps placeholders that do not match', () => {
    expect(renderTemplate('<b>{{x}}</b> {{ bad-name }} {x}', { x: 'a&b' }, 'html')).toBe(
      '<b>a&amp;b</b> {{ bad-name }} {x}',
    );
  });
});

describe('escapeHtml', () => {
  it('escapes the five HTML special characters', () => {
    expect(escapeHtml(`<a href="x">Tom & Jerry's</a>`)).toBe(
      '&lt;a href=&quot;x&quot;&gt;Tom &amp; Jerry&#39;s&lt;/a&gt;',
    );
  });
});

describe('templatePlaceholders', () => {
  it('lists placeholders once, in order', () => {
    expect(templatePlaceholders('{{a}} {{b}}', '{{a}} {{c}}')).toEqual(['a', 'b', 'c']);
  });
});

describe('sampleTemplateVariables', () => {
  it('shows an unknown name, even one named like an Object.prototype member, as [name]', () => {
    expect(sampleTemplateVariables(['first_name', 'constructor', 'custom'], 'SecureRing')).toMatchObject({
      constructor: '[constructor]',
      custom: '[custom]',
    });
  });
});

describe('template names and badges for people', () => {
  it('names every default template in French, and makes an unknown name readable', () => {
    for (const name of [
      'welcome_verification',
      'password_reset',
      'account_exists',
      'payment_confirmation',
      'payment_failed',
      'subscription_reminder',
      'contact_acknowledgement',
      'contact_notification',
      'ring_invitation',
    ])
      expect(EMAIL_TEMPLATE_TITLES[name], name).toBeTruthy();
    expect(emailTemplateTitle('ring_invitation')).toBe('Invitation à rejoindre un Ring');
    expect(emailTemplateTitle('newsletter_mensuelle')).toBe('Newsletter mensuelle');
  });

  it('shows no "Mot de passe" badge on a template that carries no password', () => {
    expect(emailTemplateBadgeKind('password_reset')).toBe('password_reset');
    expect(emailTemplateBadgeKind('ring_invitation')).toBeNull();
    expect(emailTemplateBadgeKind('contact_acknowledgement')).toBeNull();
    expect(emailTemplateBadgeKind('payment_failed')).toBe('payment');
    expect(emailTemplateBadgeKind('welcome_verification')).toBe('welcome');
  });
});
