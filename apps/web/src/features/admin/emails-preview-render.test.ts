import { describe, expect, it } from 'vitest';
import { renderEmailPreview } from './emails-preview-render';

describe('email template preview', () => {
  it('fills variables and placeholders with French sample values', () => {
    const preview = renderEmailPreview(
      {
        subject: 'Bienvenue sur {{site_name}}',
        body_html: '<p>Bonjour {{first_name}}, <a href="{{verification_url}}">activer</a> {{inconnue}}</p>',
        body_text: 'Bonjour {{first_name}}',
        variables: ['first_name', 'verification_url', 'site_name'],
      },
      'MonSite',
    );
    expect(preview.subject).toBe('Bienvenue sur MonSite');
    expect(preview.html).toContain('Bonjour Camille');
    expect(preview.html).toContain('href="https://www.example.com/verification"');
    expect(preview.html).toContain('[inconnue]');
    expect(preview.text).toBe('Bonjour Camille');
  });

  it('escapes sample values in HTML but leaves the template markup to the sandboxed frame', () => {
    const preview = renderEmailPreview(
      {
        subject: '{{site_name}}',
        body_html: '<script>alert(1)</script><b>{{site_name}}</b>',
        body_text: '',
        variables: [],
      },
      '<i>x</i>',
    );
    expect(preview.html).toBe('<script>alert(1)</script><b>&lt;i&gt;x&lt;/i&gt;</b>');
    expect(preview.subject).toBe('<i>x</i>');
  });
});
