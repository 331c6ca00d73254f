// What to look at next, written for each terminal status and the deployment it happened on (issue 24).
import { describe, expect, it } from 'vitest';
import { diagnose, failureLine, type Setup, settle, setVerdict } from '../../src/core/outcome.ts';
import { newReport } from '../../src/core/report.ts';
import { sinksWith } from '../helpers/core.ts';

const codehost: Setup = {
  source: 'codehost',
  ref: 'feature/login',
  commit: 'c0ffee',
  graphConfigPath: 'agents/graph.json',
  installCommand: true,
  buildCommand: false,
  resourceSpec: false,
  secrets: 2,
  secretReferences: 0,
  deploymentStatuses: [],
};
const selfHosted: Setup = {
  source: 'external_docker',
  image: 'registry.example/agent:v2',
  installCommand: false,
  buildCommand: false,
  resourceSpec: true,
  secrets: 0,
  secretReferences: 3,
  listenerId: '22222222-2222-4222-8222-222222222222',
  namespace: 'agents',
  deploymentStatuses: [],
};

describe('what to look at next', () => {
  it('points a build failure at the install and build commands, the graph config path and the dependency files', () => {
    const { phase, next } = diagnose('BUILD_FAILED', codehost);

    expect(phase).toBe('build');
    expect(next).toContain(
      "install-command: set on the deployment; build-command: not set, the service's default",
    );
    expect(next).toContain(
      "the graph config file 'agents/graph.json' (graph-config-path) at ref 'feature/login' (commit c0ffee)",
    );
    expect(next).toContain('requirements.txt, pyproject.toml, package.json and their lock files');
  });

  it('points a build failure of an image at the image and the registry', () => {
    const { next } = diagnose('BUILD_FAILED', selfHosted);

    expect(next).toContain("image 'registry.example/agent:v2' (image-uri) exists");
    expect(next).not.toContain('graph-config-path');
  });

  it('points a self-hosted deploy failure at resources, secrets, the listener and the namespace', () => {
    const { phase, next } = diagnose('DEPLOY_FAILED', selfHosted);

    expect(phase).toBe('deploy');
    expect(next).toContain('resource-spec (set on the deployment');
    expect(next).toContain(
      'the secrets the agent needs (0 set on the deployment and 3 secret references)',
    );
    expect(next).toContain(
      "Self-hosted: check listener 22222222-2222-4222-8222-222222222222 and namespace 'agents'",
    );
  });

  it('leaves the listener out of a cloud deploy failure', () => {
    const { next } = diagnose('DEPLOY_FAILED', codehost);

    expect(next).toContain("resource-spec (not set: the service's defaults");
    expect(next).toContain('(2 set on the deployment)');
    expect(next).not.toContain('Self-hosted');
  });

  it('gives each failing status advice of its own', () => {
    const nexts = ['BUILD_FAILED', 'DEPLOY_FAILED', 'CREATE_FAILED', 'INTERRUPTED', 'DEPLOYED'].map(
      (status) => diagnose(status, codehost).next,
    );

    expect(new Set(nexts).size).toBe(nexts.length);
    expect(nexts[2]).toContain("that ref 'feature/login' exists");
    expect(nexts[3]).toContain('a newer revision of the same deployment');
    expect(nexts[4]).toContain('verify-url');
  });

  it('tells a timeout in a queue from one in a build, and names the revision ahead', () => {
    const limit = { allowSkipped: false, limit: 'timeout 30m' };
    const queued = settle('timed-out', 'r1', 'QUEUED', {
      ...limit,
      setup: { ...codehost, queuedBehind: 'r0' },
    });
    const building = settle('timed-out', 'r1', 'BUILDING', { ...limit, setup: codehost });

    expect(queued.failure?.next).toContain('It sat in QUEUED behind revision r0');
    expect(building.failure?.next).toContain('The build was still running');
  });

  it("adds the deployment's own status to the advice", () => {
    const { next } = diagnose('BUILD_FAILED', {
      ...codehost,
      deploymentStatuses: ['AWAITING_DATABASE'],
    });

    expect(next).toContain('The deployment was AWAITING_DATABASE: the service is still setting up');
  });

  it('puts the advice on the failure line after the message', () => {
    expect(failureLine({ message: 'It broke.', next: 'Look here.' })).toBe(
      'It broke. Next: Look here.',
    );
    expect(failureLine({ message: 'Input bad.' })).toBe('Input bad.');
  });
});

describe("a list's verdict", () => {
  it("quotes each item's message redacted before it is cut, so no prefix of a secret survives", () => {
    const KEY = 'ak_live_7Qx9*Zr2=Lm4';
    const item = newReport('deploy');
    // A message with the key where the item's 300-character quote cuts it.
    item.failure = { phase: 'wait', message: `${'m'.repeat(290)}${KEY}` };
    item.result = 'failed';

    const verdict = setVerdict([{ name: 'agent-a', report: item }], false, (text, max) =>
      sinksWith(KEY).excerpt(text, max),
    );

    expect(verdict.failure?.message).toContain(`'agent-a' failed: ${'m'.repeat(290)}***`);
    expect(verdict.failure?.message).not.toContain(KEY.slice(0, 8));
  });
});
