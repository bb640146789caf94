// ESLint (flat config): typescript-eslint's recommended rules over every TypeScript file; formatting is Prettier's job.
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import tseslint from 'typescript-eslint';

// zod in the functions (issue 13): `import { z }` keeps zod's whole namespace in a bundle (454 KB instead of
// the ~90 KB the schemas use), and classic zod carries every method on every schema (~95 KB of each bundle),
// so code that runs in a function imports zod/mini through shared/domain/zod.ts, which also sets the English
// messages classic zod has by default. Classic zod stays in the OpenAPI views and contract, bin, scripts, tests.
const NO_Z_NAMED_IMPORT = {
  // `{ z }` from zod, zod/mini, zod/v4... or from our shared/domain/zod.ts (imported as ./zod, ../zod, ../domain/zod).
  selector: "ImportDeclaration[source.value=/^zod(\\u002F|$)|\\u002Fzod$/] > ImportSpecifier[imported.name='z']",
  message: "import * as z from '...' instead: { z } keeps zod's whole namespace in the bundle (454 KB instead of ~90 KB).",
};
const RUNTIME_ZOD = 'Code that runs in a function imports zod/mini through shared/domain/zod.ts (import * as z from ../domain/zod)';
const NO_RUNTIME_ZOD = [
  ...['zod', 'zod/v4', 'zod/v3'].map((name) => ({
    name,
    allowTypeImports: true,
    message: `${RUNTIME_ZOD}: classic zod adds ~95 KB to every bundle. Type-only imports are fine.`,
  })),
  ...['zod/mini', 'zod/v4/mini', 'zod/v4-mini'].map((name) => ({
    name,
    allowTypeImports: true,
    message: `${RUNTIME_ZOD}, which sets the English error messages zod/mini lacks by default. Type-only imports are fine.`,
  })),
];

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      'cdk.out/',
      '.local/',
      '.bench/',
      'coverage/',
      'shared/http/pages/checkout/client-bundle.generated.ts',
      'sdk/src/openapi.generated.ts',
      'sdk/dist/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports', disallowTypeAnnotations: false }],
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      'no-console': 'off',
    },
  },
  { files: ['**/*.mjs', 'scripts/**', 'bin/**'], languageOptions: { globals: globals.node } },
  { rules: { 'no-restricted-syntax': ['error', NO_Z_NAMED_IMPORT] } },
  {
    files: [
      'functions/**',
      'shared/domain/**',
      'shared/application/**',
      'shared/http/**',
      'shared/adapters/**',
      'shared/workers/**',
      'shared/manifest/**',
      'shared/wiring/**',
      'shared/observability/**',
      'shared/config.ts',
    ],
    ignores: ['shared/domain/zod.ts', 'shared/http/views/*.schemas.ts'],
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { paths: NO_RUNTIME_ZOD }] },
  },
  // Tests read JSON bodies whose shape the assertions check: `any` there is the honest type.
  { files: ['test/**'], rules: { '@typescript-eslint/no-explicit-any': 'off' } },
  prettier,
  // After eslint-config-prettier (which turns max-len off): Prettier wraps code at 140, this catches the
  // strings, templates and comments it cannot wrap. Only the README's verbatim recipe is exempt.
  { rules: { 'max-len': ['error', { code: 140, ignoreUrls: true, ignoreRegExpLiterals: true }] } },
  { files: ['test/support/merchant-verify.ts'], rules: { 'max-len': 'off' } },
);
