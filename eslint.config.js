import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// The boundaries CONTRIBUTING ("Architecture") states, as rules: only the GitHub host imports the runner's toolkit, and
// only the hosts and shared/clock.ts read the environment, a clock or set a timer (the run is handed them, so a test
// runs it on a fake clock). test/repo/boundaries.test.ts plants a violation of each.
const ACTIONS = {
  group: ['@actions/*'],
  message:
    'Only src/hosts/github/ imports @actions/*: the core never learns which CI it runs in (src/core/host.ts).',
};
const CLOCK =
  'Time is handed to the run: use the Clock (src/shared/clock.ts) it gets; only the hosts and shared/clock.ts read one.';
const TIMER_MODULES = ['timers', 'timers/promises', 'perf_hooks'].flatMap((name) =>
  [name, `node:${name}`].map((path) => ({ name: path, message: CLOCK })),
);
const imports = (...patterns) => ['error', { paths: TIMER_MODULES, patterns }];
const ENV = {
  object: 'process',
  property: 'env',
  message:
    'Only the hosts read the environment: the run gets its inputs and context from its Host.',
};
const CLOCK_READS = [
  { object: 'Date', property: 'now', message: CLOCK },
  { object: 'performance', property: 'now', message: CLOCK },
  { object: 'process', property: 'hrtime', message: CLOCK },
];
const TIMERS = ['setTimeout', 'setInterval', 'setImmediate'].map((name) => ({
  name,
  message: CLOCK,
}));
const NOW = [
  { selector: "NewExpression[callee.name='Date'][arguments.length=0]", message: CLOCK },
  { selector: "CallExpression[callee.name='Date']", message: CLOCK },
];

export default tseslint.config(
  { ignores: ['dist/', 'lib/', 'node_modules/', 'coverage/', 'build/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        URL: 'readonly',
        Buffer: 'readonly',
        AbortController: 'readonly',
        AbortSignal: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      // Finding control characters in data is what the sinks are for.
      'no-control-regex': 'off',
    },
  },
  {
    files: ['src/**/*.ts'],
    rules: {
      'no-restricted-imports': imports(ACTIONS),
      'no-restricted-properties': ['error', ENV, ...CLOCK_READS],
      'no-restricted-globals': ['error', ...TIMERS],
      'no-restricted-syntax': ['error', ...NOW],
    },
  },
  {
    // The edges: each host reads its CI's environment and hands the run a clock.
    files: ['src/hosts/**/*.ts', 'src/shared/clock.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [ACTIONS] }],
      'no-restricted-properties': 'off',
      'no-restricted-globals': 'off',
      'no-restricted-syntax': 'off',
    },
  },
  { files: ['src/hosts/github/**/*.ts'], rules: { 'no-restricted-imports': 'off' } },
  {
    // The transport's HTTP client is @actions/http-client, whatever the host: it is a client of HTTP, not of a CI.
    files: ['src/service/transport.ts', 'src/service/proxy.ts', 'src/shared/body.ts'],
    rules: {
      'no-restricted-imports': imports({
        ...ACTIONS,
        group: ['@actions/*', '!@actions/http-client', '!@actions/http-client/**'],
      }),
    },
  },
  {
    // The proxy variables the HTTP client honours: the error names the one in use (HTTPS_PROXY or https_proxy).
    files: ['src/service/proxy.ts'],
    rules: { 'no-restricted-properties': ['error', ...CLOCK_READS] },
  },
);
