import fs from 'node:fs';
import path from 'node:path';
import { frenchTypography, typographyViolations } from '@securering/contract';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * Scans the web app's UI strings — JSX text, text attributes and string literals that read as French
 * prose — for the rules of `frenchTypography` (narrow no-break space before : ; ! ? %, inside
 * « guillemets », typographic apostrophes). In source, write U+202F as `\u202f` in strings and
 * `&#8239;` in JSX.
 */

const SRC = path.resolve(__dirname, '..');

/** A placeholder for `${…}` in a template, so a rule sees the text around it. */
const SLOT = '\uE000';

/** Attributes that hold code (class names, routes, ids…), never text a person reads. */
const CODE_ATTRIBUTES = new Set([
  'accept',
  'align',
  'as',
  'autoComplete',
  'className',
  'd',
  'decoding',
  'defaultValue',
  'dir',
  'download',
  'encType',
  'fill',
  'form',
  'href',
  'htmlFor',
  'id',
  'inputMode',
  'key',
  'lang',
  'loading',
  'media',
  'method',
  'name',
  'orientation',
  'pattern',
  'position',
  'rel',
  'role',
  'side',
  'size',
  'sizes',
  'src',
  'stroke',
  'style',
  'tabIndex',
  'target',
  'to',
  'type',
  'value',
  'variant',
  'viewBox',
  'aria-controls',
  'aria-current',
  'aria-describedby',
  'aria-haspopup',
  'aria-labelledby',
  'aria-live',
]);
/** Calls whose string arguments are code: class names, DOM and storage keys, URLs, log categories. */
const CODE_CALLS = new Set([
  'cn',
  'clsx',
  'cva',
  'twMerge',
  'querySelector',
  'querySelectorAll',
  'getElementById',
  'addEventListener',
  'removeEventListener',
  'matchMedia',
  'setAttribute',
  'getAttribute',
  'createElement',
  'fetch',
  'apiRequest',
  'apiDownload',
  'lazySchema',
  'getItem',
  'setItem',
  'removeItem',
  'getCookie',
  'setCookie',
  'getJsonCookie',
  'setJsonCookie',
  'deleteCookie',
  'startsWith',
  'endsWith',
  'includes',
  'split',
  'replace',
  'replaceAll',
  'join',
  'padStart',
  'format',
  'postMessage',
  'open',
  'useSettings',
  'Error',
  'TypeError',
  'URL',
  'URLSearchParams',
  'RegExp',
]);
const CODE_PROPERTIES = new Set([
  'queryKey',
  'className',
  'method',
  'auth',
  'cache',
  'mode',
  'credentials',
  'category',
  'level',
  'type',
]);

const decodeEntities = (text: string) =>
  text
    .replace(/&#(\d+);/g, (_, code: string) => String.fromCodePoint(Number(code)))
    .replace(/&nbsp;/g, '\u00a0')
    .replace(/&gt;/g, '>')
    .replace(/&lt;/g, '<')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, '&');

/** Paths, URLs, URI schemes, assignments, bare identifiers. */
const looksLikeCode = (text: string) =>
  /^(?:\/|\.\/|@\/|#)/.test(text) ||
  text.includes('://') ||
  text.includes('=') ||
  /^[\w.\-/:]*$/.test(text.trim());

function calleeName(expression: ts.Expression): string {
  if (ts.isIdentifier(expression)) return expression.text;
  if (ts.isPropertyAccessExpression(expression))
    return ts.isIdentifier(expression.expression) && expression.expression.text === 'console'
      ? 'console'
      : expression.name.text;
  return '';
}

function isCode(node: ts.Node): boolean {
  let child: ts.Node = node;
  for (let parent = node.parent; parent; child = parent, parent = parent.parent) {
    if (
      ts.isImportDeclaration(parent) ||
      ts.isExportDeclaration(parent) ||
      ts.isLiteralTypeNode(parent) ||
      ts.isElementAccessExpression(parent)
    )
      return true;
    if (ts.isJsxAttribute(parent)) {
      const name = parent.name.getText();
      return CODE_ATTRIBUTES.has(name) || name.startsWith('data-');
    }
    if (ts.isCallExpression(parent) && child !== parent.expression) {
      const name = calleeName(parent.expression);
      if (CODE_CALLS.has(name) || name === 'console') return true;
    }
    if (ts.isNewExpression(parent) && CODE_CALLS.has(calleeName(parent.expression))) return true;
    if (
      ts.isPropertyAssignment(parent) &&
      (child === parent.name || CODE_PROPERTIES.has(parent.name.getText()))
    )
      return true;
    if (
      ts.isBinaryExpression(parent) &&
      [ts.SyntaxKind.EqualsEqualsEqualsToken, ts.SyntaxKind.ExclamationEqualsEqualsToken].includes(
        parent.operatorToken.kind,
      )
    )
      return true;
    if (ts.isCaseClause(parent) && child === parent.expression) return true;
    if (ts.isJsxExpression(parent) || ts.isBlock(parent) || ts.isSourceFile(parent)) return false;
  }
  return false;
}

interface UiText {
  line: number;
  text: string;
}

/** The UI strings of one source file, with their line. */
function uiTextsOf(fileName: string, source: string): UiText[] {
  const file = ts.createSourceFile(
    fileName,
    source,
    ts.ScriptTarget.Latest,
    true,
    fileName.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS,
  );
  const found: UiText[] = [];
  const add = (node: ts.Node, text: string) =>
    found.push({ line: file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1, text });
  const hasLetter = (text: string) => /\p{L}/u.test(text);
  const visit = (node: ts.Node): void => {
    if (ts.isJsxText(node)) {
      const text = decodeEntities(node.text)
        .replace(/[ \t\r\n]+/g, ' ')
        .trim();
      if (hasLetter(text)) add(node, text);
      return;
    }
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) {
      // JSX attribute strings are raw: entities, not escapes.
      const text = ts.isJsxAttribute(node.parent) ? decodeEntities(node.text) : node.text;
      if (hasLetter(text) && !looksLikeCode(text) && !isCode(node)) add(node, text);
      return;
    }
    if (ts.isTemplateExpression(node)) {
      const text = [node.head.text, ...node.templateSpans.map((span) => SLOT + span.literal.text)].join('');
      if (hasLetter(text) && !looksLikeCode(text.replaceAll(SLOT, 'x')) && !isCode(node)) add(node, text);
      node.templateSpans.forEach((span) => visit(span.expression));
      return;
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) ? [full] : [];
  });
}

describe('the scanner', () => {
  it('reads JSX text, text attributes and French strings, and skips code', () => {
    const texts = uiTextsOf(
      'sample.tsx',
      `import { x } from './a: b';
       const label = "Nom d'utilisateur";
       export const C = () => (
         <div className="sm:grid hover:bg-x" title="Supprimer ?" data-x="a : b">
           Déjà membre ?
           <a href="/subscribe?resume=1">Suite</a>
           {\`Ring « \${name} »\`}
         </div>
       );
       console.warn('ignored : here');`,
    ).map((t) => t.text.replaceAll(SLOT, '…'));
    expect(texts).toEqual(["Nom d'utilisateur", 'Supprimer ?', 'Déjà membre ?', 'Suite', 'Ring « … »']);
    expect(texts.map((t) => typographyViolations(t).length > 0)).toEqual([true, true, true, false, true]);
  });

  it('reads entities as the characters they stand for', () => {
    const [clean] = uiTextsOf('a.tsx', 'const a = <p title="Supprimer&#8239;?">Déjà membre&#8239;?</p>;');
    expect(clean?.text).toBe(frenchTypography('Supprimer ?'));
    expect(uiTextsOf('a.tsx', 'const a = <p>Déjà membre&#8239;?</p>;')[0]?.text).toBe(
      frenchTypography('Déjà membre ?'),
    );
  });
});

describe('UI strings of the web app', () => {
  it('follow French typography (narrow no-break spaces, ’, guillemets)', () => {
    const files = sourceFiles(SRC);
    expect(files.length).toBeGreaterThan(100);
    const violations = files.flatMap((file) =>
      uiTextsOf(file, fs.readFileSync(file, 'utf8')).flatMap(({ line, text }) => {
        const rules = typographyViolations(text);
        return rules.length === 0
          ? []
          : [
              `${path.relative(SRC, file)}:${line} [${rules.join(', ')}] ${JSON.stringify(text.replaceAll(SLOT, '${…}'))}`,
            ];
      }),
    );
    expect(violations).toEqual([]);
  });
});
