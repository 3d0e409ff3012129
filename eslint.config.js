// ESLint flat config: typescript-eslint's recommended rules plus the layering rule of DESIGN section 2
// (domain/ imports nothing from express, knex, pg or the job engine).
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['generated/**', 'sdk/src/generated/**', 'sdk/dist/**', 'node_modules/**', '.data/**', 'dist/**', '.tmp/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['server/domain/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: ['express*', 'knex', 'pg', 'pg-*', 'pino*', '@electric-sql/*', '../store/*', '../http/*', '../handlers/*'] },
      ],
    },
  },
  {
    // Dredd loads hook files with require(); they are CommonJS scripts run by Node.
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: globals.node },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['test/**/*.ts', 'scripts/**/*.ts'],
    rules: { '@typescript-eslint/no-unused-expressions': 'off' },
  },
);
