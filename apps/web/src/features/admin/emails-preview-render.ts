import { renderTemplate, sampleTemplateVariables, templatePlaceholders } from '@securering/contract';

export interface PreviewSource {
  subject: string;
  body_html: string;
  body_text: string;
  variables: readonly string[];
}

/** Renders a template with sample values for its variables and for every placeholder it uses. */
export function renderEmailPreview(source: PreviewSource, siteName: string) {
  const names = [
    ...new Set([
      ...source.variables,
      ...templatePlaceholders(source.subject, source.body_html, source.body_text),
    ]),
  ];
  const values = sampleTemplateVariables(names, siteName);
  return {
    subject: renderTemplate(source.subject, values, 'text'),
    html: renderTemplate(source.body_html, values, 'html'),
    text: renderTemplate(source.body_text, values, 'text'),
  };
}
