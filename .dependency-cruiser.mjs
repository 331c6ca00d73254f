// No import circles (npm run lint): a circle makes two modules one, whatever the folders say. Type-only imports count
// too (tsPreCompilationDeps): a contract type belongs in a file of its own, below both sides.
export default {
  forbidden: [
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
