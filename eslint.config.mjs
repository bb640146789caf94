// ESLint (flat config): typescript-eslint's recommended rules over every TypeScript file; formatting is Prettier's job.
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'cdk.out/', '.local/', '.bench/', 'coverage/', 'shared/http/pages/checkout/client-bundle.generated.ts'] },
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
  // Tests read JSON bodies whose shape the assertions check: `any` there is the honest type.
  { files: ['test/**'], rules: { '@typescript-eslint/no-explicit-any': 'off' } },
  prettier,
  // After eslint-config-prettier (which turns max-len off): Prettier wraps code at 140, this catches the
  // strings, templates and comments it cannot wrap. Only the README's verbatim recipe is exempt.
  { rules: { 'max-len': ['error', { code: 140, ignoreUrls: true, ignoreRegExpLiterals: true }] } },
  { files: ['test/support/merchant-verify.ts'], rules: { 'max-len': 'off' } },
);
