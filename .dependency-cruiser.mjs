// No import circles (npm run lint): a circle makes two modules one, whatever the folders say. Type-only imports count
// too (tsPreCompilationDeps): a contract type belongs in a file of its own, below both sides. And a host is one
// folder (CONTRIBUTING, "To add a CI"): it imports no other host's folder.
export default {
  forbidden: [
    {
      name: 'hosts-apart',
      severity: 'error',
      comment:
        "A host imports no other host's folder: move what two hosts share to src/hosts/ beside them (best-effort.ts, git.ts) or below. Excepted by name: the command line's seam for the CIs it runs in (cli/ci.ts, cli/words.ts), and its registry of them (cli/ci-registry.ts).",
      from: { path: '^src/hosts/([^/]+)/', pathNot: '^src/hosts/cli/ci-registry[.]ts$' },
      to: {
        path: '^src/hosts/[^/]+/',
        pathNot: ['^src/hosts/$1/', '^src/hosts/cli/(ci|words)[.]ts$'],
      },
    },
    {
      name: 'no-circular',
      severity: 'error',
      comment:
        'Move what both sides need (a contract type, a shared constant) into a module of its own.',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
  },
};
