import { beforeEach, describe, expect, it } from 'vitest';
import { type ActionRun, runAction, visibleText } from './helpers/action.ts';
import { codehostInputs, useSimulator } from './helpers/setup.ts';

// Values a careless log, summary or error message would show: '=' inside, Markdown and JSON specials, a multi-line one.
const KEY = 'ak_live_7Qx9*Zr2=Lm4';
const EQUALS = 'postgres://app:pa=ss@db.internal/app?sslmode=require';
const SPECIALS = 'p@ss_w*rd"with\\quote[1]';
const PEM_LINES = [
  '-----BEGIN PRIVATE KEY-----',
  'MIIEvQIBADANBgkqhkiG9w0BAQEF',
  '-----END PRIVATE KEY-----',
];
const MULTILINE = PEM_LINES.join('\n');
const SECRETS = [KEY, EQUALS, SPECIALS, MULTILINE];

const lineForm = `DATABASE_URL=${EQUALS}\n# a comment\n\nPASSWORD=${SPECIALS}`;
const jsonForm = JSON.stringify(
  { DATABASE_URL: EQUALS, PASSWORD: SPECIALS, TLS_KEY: MULTILINE },
  null,
  2,
);

/** The forms a value takes on its way into text: as is, inside JSON, Markdown-escaped, URL-encoded. */
function forms(secret: string): string[] {
  return [
    secret,
    JSON.stringify(secret).slice(1, -1),
    secret.replace(/([\\`*_[\]{}()#+!|~])/g, '\\$1'),
    encodeURIComponent(secret),
  ];
}

// A piece this long of a value is a leak too: a message cut at its length limit must not keep half a secret.
const PIECE = 12;

function expectNoLeak(run: ActionRun): void {
  const pieces = new Set<string>();
  for (const secret of SECRETS)
    for (const form of forms(secret))
      for (let i = 0; i + PIECE <= form.length; i++) pieces.add(form.slice(i, i + PIECE));
  for (const [where, text] of Object.entries(visibleText(run)))
    for (const piece of pieces) expect(text, `${where} shows ${piece}`).not.toContain(piece);
}

/** Every secret was masked for the runner before anything else was printed. */
function expectMasked(run: ActionRun, secrets: string[]): void {
  const lines = run.stdout.split('\n');
  const firstOther = lines.findIndex((l) => !l.startsWith('::add-mask::'));
  const masks = lines.slice(0, firstOther).map((l) => l.slice('::add-mask::'.length));
  const unescape = (m: string) =>
    m.replace(/%0D/g, '\r').replace(/%0A/g, '\n').replace(/%25/g, '%');
  for (const secret of secrets) expect(masks.map(unescape)).toContain(secret);
}

const ctx = useSimulator();
beforeEach(() => {
  ctx.sim.apiKey = KEY;
});

const REPO = { 'repo-url': 'https://codehost.example/acme/agent' };
const inputs = (name: string, extra: Record<string, string>) =>
  codehostInputs(ctx.sim, name, { 'api-key': KEY, ...extra });

describe('secret values never show', () => {
  it('in a successful create with NAME=value lines', async () => {
    const run = await runAction({ inputs: inputs('new-agent', { ...REPO, secrets: lineForm }) });

    expect(run.code).toBe(0);
    expect(ctx.sim.requestsTo('POST', '/v2/deployments')[0]!.body).toMatchObject({
      secrets: [
        { name: 'DATABASE_URL', value: EQUALS },
        { name: 'PASSWORD', value: SPECIALS },
      ],
    });
    expectMasked(run, [KEY, EQUALS, SPECIALS]);
    expectNoLeak(run);
  });

  it('in a successful update with the multi-line JSON form, debug logging on', async () => {
    ctx.sim.addDeployment({ name: 'my-agent' });

    const run = await runAction({
      inputs: inputs('my-agent', { secrets: jsonForm }),
      env: { RUNNER_DEBUG: '1' },
    });

    expect(run.code).toBe(0);
    expect(run.stdout).toContain('::debug::');
    expect(ctx.sim.requestsTo('PATCH')[0]!.body).toMatchObject({
      secrets: [
        { name: 'DATABASE_URL', value: EQUALS },
        { name: 'PASSWORD', value: SPECIALS },
        { name: 'TLS_KEY', value: MULTILINE },
      ],
    });
    expectMasked(run, [KEY, EQUALS, SPECIALS, MULTILINE]);
    expectNoLeak(run);
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

    const run = await runAction({
      inputs: inputs('new-agent', { ...REPO, secrets: lineForm }),
      env: { RUNNER_DEBUG: '1' },
    });

    expect(run.code).toBe(1);
    expect(run.errors).toHaveLength(1);
    expect(run.errors[0]).toContain('POST /v2/deployments failed: HTTP 422');
    expect(run.errors[0]).toContain('body: Value error, secret PASSWORD=*** is not allowed');
    expectNoLeak(run);
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

    const run = await runAction({ inputs: inputs('my-agent', { secrets: lineForm }) });

    expect(run.code).toBe(1);
    expect(run.errors).toHaveLength(1);
    expect(run.errors[0]).toMatch(/^PATCH \S*\/v2\/deployments\//);
    expectNoLeak(run);
  });

  it('in a dry run, which prints the request with values redacted', async () => {
    const run = await runAction({
      inputs: inputs('new-agent', { ...REPO, secrets: jsonForm, 'dry-run': 'true' }),
    });

    expect(run.code).toBe(0);
    expect(run.outputs.result).toBe('planned');
    expect(ctx.sim.writes()).toEqual([]);
    // The log shows the request with each secret's name; the summary publishes the field as "set" only.
    expect(run.stdout).toContain('"name": "TLS_KEY"');
    expect(run.summary).toContain('"secrets": "set"');
    expectMasked(run, [KEY, EQUALS, SPECIALS, MULTILINE]);
    expectNoLeak(run);
  });

  it('asks the runner to mask each line of a multi-line value, which it would not match whole', async () => {
    ctx.sim.addDeployment({ name: 'my-agent' });

    const run = await runAction({ inputs: inputs('my-agent', { secrets: jsonForm }) });

    expect(run.code).toBe(0);
    expectMasked(run, PEM_LINES);
  });
});

describe('masking keeps the facts', () => {
  it('does not turn outputs into *** when a secret value is an everyday word', async () => {
    ctx.sim.addDeployment({ name: 'my-agent' });

    const run = await runAction({
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
