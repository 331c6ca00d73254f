// Secret values never show: not in the log, the summary, the outputs or the failure line, whatever form a careless
// message would give them, and every one is masked for the runner before the first line. The whole action
// in-process; test/hosts/github/masks.e2e.test.ts checks the runner's mask commands as dist/ prints them.
import { beforeEach, describe, expect, it } from 'vitest';
import { runInProcess, useWorld, visibleText } from '../helpers/run.ts';
import {
  EQUALS,
  expectMasked,
  expectNoLeak,
  jsonForm,
  KEY,
  lineForm,
  MULTILINE,
  PEM_LINES,
  SPECIALS,
} from '../helpers/secrets.ts';
import { codehostInputs } from '../helpers/setup.ts';

const ctx = useWorld();
beforeEach(() => {
  ctx.sim.apiKey = KEY;
});

const REPO = { 'repo-url': 'https://codehost.example/acme/agent' };
const inputs = (name: string, extra: Record<string, string>) =>
  codehostInputs(ctx.sim, name, { 'api-key': KEY, ...extra });

describe('secret values never show', () => {
  it('in a successful create with NAME=value lines', async () => {
    const run = await runInProcess(ctx, {
      inputs: inputs('new-agent', { ...REPO, secrets: lineForm }),
    });

    expect(run.code).toBe(0);
    expect(ctx.sim.requestsTo('POST', '/v2/deployments')[0]!.body).toMatchObject({
      secrets: [
        { name: 'DATABASE_URL', value: EQUALS },
        { name: 'PASSWORD', value: SPECIALS },
      ],
    });
    expectMasked(run.stdout, [KEY, EQUALS, SPECIALS]);
    expectNoLeak(visibleText(run));
  });

  it('in a successful update with the multi-line JSON form, debug lines included', async () => {
    ctx.sim.addDeployment({ name: 'my-agent' });

    const run = await runInProcess(ctx, { inputs: inputs('my-agent', { secrets: jsonForm }) });

    expect(run.code).toBe(0);
    expect(run.stdout).toContain('::debug::');
    expect(ctx.sim.requestsTo('PATCH')[0]!.body).toMatchObject({
      secrets: [
        { name: 'DATABASE_URL', value: EQUALS },
        { name: 'PASSWORD', value: SPECIALS },
        { name: 'TLS_KEY', value: MULTILINE },
      ],
    });
    expectMasked(run.stdout, [KEY, EQUALS, SPECIALS, MULTILINE]);
    expectNoLeak(visibleText(run));
  });

  it('in a create refused with a 422 that echoes the request, secrets included', async () => {
    const { sim } = ctx;
    sim.fault({
      method: 'POST',
      path: '/v2/deployments',
      status: 422,
      body: {
        detail: [
          {
            type: 'value_error',
            loc: ['body'],
            msg: `Value error, secret PASSWORD=${SPECIALS} is not allowed`,
            input: { name: 'new-agent', secrets: [{ name: 'DATABASE_URL', value: EQUALS }] },
          },
        ],
      },
    });

    const run = await runInProcess(ctx, {
      inputs: inputs('new-agent', { ...REPO, secrets: lineForm }),
    });

    expect(run.code).toBe(1);
    expect(run.errors).toHaveLength(1);
    expect(run.errors[0]).toContain('POST /v2/deployments failed: HTTP 422');
    expect(run.errors[0]).toContain('body: Value error, secret PASSWORD=*** is not allowed');
    expectNoLeak(visibleText(run));
  });

  it.each([
    [
      'a JSON body that is not FastAPI-shaped',
      { status: 400, body: { error: 'bad request', request: { secrets: [{ value: EQUALS }] } } },
    ],
    [
      'an HTML error page that echoes the body, cut short by the message limit',
      {
        status: 500,
        rawBody: `<html><pre>${'x'.repeat(260)} "value": ${JSON.stringify(SPECIALS)} ${EQUALS}</pre></html>`,
      },
    ],
    ['an HTML page with 200', { status: 200, rawBody: `<html>${SPECIALS}</html>` }],
  ])('in a failing write answered with %s', async (_, fault) => {
    const { sim } = ctx;
    sim.addDeployment({ name: 'my-agent' });
    // Every send: a write that failed ambiguously is re-read and, not applied, sent again (three sends in all).
    sim.fault({ method: 'PATCH', times: 3, ...fault });

    const run = await runInProcess(ctx, { inputs: inputs('my-agent', { secrets: lineForm }) });

    expect(run.code).toBe(1);
    expect(run.errors).toHaveLength(1);
    expect(run.errors[0]).toMatch(/^PATCH \S*\/v2\/deployments\//);
    expectNoLeak(visibleText(run));
  });

  it('in a dry run, which prints the request with values redacted', async () => {
    const run = await runInProcess(ctx, {
      inputs: inputs('new-agent', { ...REPO, secrets: jsonForm, 'dry-run': 'true' }),
    });

    expect(run.code).toBe(0);
    expect(run.outputs.result).toBe('planned');
    expect(ctx.sim.writes()).toEqual([]);
    // The log shows the request with each secret's name; the summary publishes the field as "set" only.
    expect(run.stdout).toContain('"name": "TLS_KEY"');
    expect(run.summary).toContain('"secrets": "set"');
    expectMasked(run.stdout, [KEY, EQUALS, SPECIALS, MULTILINE]);
    expectNoLeak(visibleText(run));
  });

  it('in the advice that quotes a revision value from the service, cut only after redaction', async () => {
    const { sim } = ctx;
    const dep = sim.addDeployment({ name: 'my-agent' });
    // A long value with the key where an 80-character quote would cut it: a cut before redaction keeps its start.
    const old = sim.addRevision(dep.id, [{ status: 'DEPLOYED' }], {
      graph_config_path: `${'g'.repeat(66)}${KEY}`,
    }).id;
    sim.timelines.push([{ status: 'BUILD_FAILED' }]);

    const run = await runInProcess(ctx, {
      inputs: codehostInputs(ctx.sim, 'my-agent', {
        'api-key': KEY,
        command: 'redeploy',
        'revision-id': old,
      }),
    });

    expect(run.outputs.result).toBe('failed');
    expect(run.errors[0]).toContain("the graph config file 'ggg");
    expectNoLeak(visibleText(run));
  });

  it('in what changed since it last worked, which quotes the values of the revision before', async () => {
    const { sim } = ctx;
    const dep = sim.addDeployment({ name: 'my-agent' });
    // The revision active before the run, with the key where the line's 80-character quote would cut it.
    sim.addRevision(dep.id, [{ status: 'DEPLOYED' }], {
      graph_config_path: `${'g'.repeat(66)}${KEY}`,
    });
    sim.timelines.push([{ status: 'BUILD_FAILED' }]);

    const run = await runInProcess(ctx, { inputs: inputs('my-agent', {}) });

    expect(run.outputs.result).toBe('failed');
    expect(run.stdout).toContain("graph config path 'ggg");
    expectNoLeak(visibleText(run));
  });

  it('asks the runner to mask each line of a multi-line value, which it would not match whole', async () => {
    ctx.sim.addDeployment({ name: 'my-agent' });

    const run = await runInProcess(ctx, { inputs: inputs('my-agent', { secrets: jsonForm }) });

    expect(run.code).toBe(0);
    expectMasked(run.stdout, PEM_LINES);
  });
});

describe('masking keeps the facts', () => {
  it('does not turn outputs into *** when a secret value is an everyday word', async () => {
    ctx.sim.addDeployment({ name: 'my-agent' });

    const run = await runInProcess(ctx, {
      inputs: inputs('my-agent', { secrets: 'DEBUG=true\nWORKERS=2\nREGION=eu' }),
    });

    expect(run.code).toBe(0);
    expect(run.outputs).toMatchObject({
      created: 'false',
      'revision-created': 'true',
      result: 'deployed',
    });
    expect(run.outputs.duration).toMatch(/^\d+(\.\d)?$/);
    expect(run.outputs['deployment-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(run.stdout).toContain('::add-mask::true');
  });
});
