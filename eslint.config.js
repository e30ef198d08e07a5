// Lint rules, including the dependency boundaries of docs/ARCHITECTURE.md:
// contract imports no app; server and web never import each other; a web feature never reaches
// into another feature (shared code lives in components/ or lib/).
import fs from 'node:fs';
import js from '@eslint/js';
import globals from 'globals';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

const webFeatures = fs.existsSync('apps/web/src/features')
  ? fs
      .readdirSync('apps/web/src/features', { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name)
  : [];

const featureBoundaries = webFeatures.map((feature) => ({
  files: [`apps/web/src/features/${feature}/**/*.{ts,tsx}`],
  rules: {
    'no-restricted-imports': [
      'error',
      {
        patterns: webFeatures
          .filter((other) => other !== feature)
          .flatMap((other) => [
            {
              group: [`@/features/${other}`, `@/features/${other}/*`],
              message: `Feature "${feature}" must not import feature "${other}": move shared code to components/ or lib/.`,
            },
            {
              group: [`../${other}`, `../${other}/*`, `../../${other}/*`],
              message: `Feature "${feature}" must not import feature "${other}".`,
            },
          ]),
      },
    ],
  },
}));

export default tseslint.config(
  {
    ignores: [
      '**/dist/**',
      // Copies of a build compared by the benchmarks (docs/BENCHMARKS.md), ignored by git too.
      'apps/server/dist-*/**',
      '**/node_modules/**',
      'data/**',
      'coverage/**',
      'e2e/screenshots/**',
      // Node 22 and the better-sqlite3 copy of the Node 22 test pass (.ci/node22-tests.sh).
      '.ci/.node22/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      'no-console': 'off',
    },
  },
  {
    files: ['packages/contract/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/apps/**', '@securering/server', '@securering/web'],
              message: 'The contract imports no app.',
            },
          ],
        },
      ],
    },
  },
  {
    // The crypto package runs in browsers and in Node: WebCrypto only, no app, no Node built-ins.
    files: ['packages/e2ee/src/**/*.ts'],
    ignores: ['packages/e2ee/src/**/*.test.ts'],
    languageOptions: { globals: { ...globals.browser } },
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/apps/**', '@securering/server', '@securering/web', 'node:*'],
              message: 'packages/e2ee runs in the browser: WebCrypto only, no app and no Node built-in.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['apps/server/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/apps/web/**', '@securering/web', '**/e2e/**'],
              message: 'The server never imports the web app or e2e.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['apps/web/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    plugins: { 'react-hooks': reactHooks },
    rules: {
      ...reactHooks.configs.recommended.rules,
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/apps/server/**', '@securering/server'],
              message: 'The web app never imports the server.',
            },
          ],
        },
      ],
    },
  },
  ...featureBoundaries,
  {
    files: ['**/*.test.ts', '**/*.test.tsx', 'e2e/**/*.ts', 'apps/server/test/**/*.ts'],
    rules: { '@typescript-eslint/no-non-null-assertion': 'off', '@typescript-eslint/no-explicit-any': 'off' },
  },
);
