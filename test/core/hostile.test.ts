// Issues 9, 17 and 31 in-process: a hostile service, a pull request's author and broken inputs cannot make the action
// write a workflow command, HTML, a live @mention, a link or any piece of a secret into any sink (the log in the
// runner's format, the outputs, the summary, the GitHub API bodies the fake GitHub receives), cannot make it read
// outside the workspace, cannot pass an answer about another resource for the one asked, and cannot outgrow its bounds
// (64 KiB a string, 16 MiB a run). Every run goes through the same checks (expectSafe), on the
// world's fake clock. test/hosts/github/hostile.e2e.test.ts runs one case of each kind through dist/.
import { randomUUID } from 'node:crypto';
import { getOctokit } from '@actions/github';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FakeAgent } from '../helpers/agent.ts';
import { type FakeUser, useGitHub } from '../helpers/github.ts';
import {
  base64,
  deepError,
  type EchoForm,
  type Endpoint,
  type Handler,
  pagesForever,
  PAYLOADS,
  type Reply,
  SHORT_PAYLOAD,
  fullWidth,
  htmlEntities,
  percentEveryByte,
  revisionAnswer,
  splitEvery,
  unicodeEscape,
  useHostileService,
} from '../helpers/hostile.ts';
import {
  API_KEY,
  AUTHOR,
  commandProblems,
  commentBodies,
  commentEdits,
  expectFailure,
  expectSafe,
  hostileInputs,
  hostileWorkspace,
  htmlFromData,
  invisibleCharacters,
  linksFromData,
  liveMentions,
  ourComments,
  PASSWORD,
  PR,
  prEnv,
  prEvent,
  SECRET,
  secretPieces,
  sinks,
  TAB_SECRET,
  TOKEN,
} from '../helpers/hostile-checks.ts';
import { type InProcessRun, runInProcess, useWorld } from '../helpers/run.ts';
import type { RecordedRequest } from '../simulator/server.ts';

const world = useWorld();
const ctx = useHostileService(world);
const github = useGitHub();

/**
 * A deploy (or another command) on a pull_request event with a hostile head branch, a secret, the GitHub features
 * on (environment and pr-comment), against the hostile service; then the checks every hostile run must pass.
 */
async function deployHostile(
  inputs: Record<string, string> = {},
  options: { env?: Record<string, string> } = {},
): Promise<InProcessRun> {
  const run = await runInProcess(world, {
    inputs: hostileInputs(ctx.service, inputs),
    env: { ...prEnv, ...options.env },
    event: prEvent,
    github: getOctokit(TOKEN, { baseUrl: github.gh.url }),
  });
  expectSafe(run, github.gh);
  return run;
}

describe('the checks catch what they look for', () => {
  it('a data-made command, ##[, an indented or CR-led command; not the action’s own lines', () => {
    const own = '::add-mask::abc\n::error::GET failed%0A::error::pwned\nplain line\n';
    expect(commandProblems(own, 'x', true)).toEqual([]);
    for (const bad of [
      'info: x\n::error::pwned\n',
      'a\r::add-mask::x\n',
      'a\n  ::warning::pwned\n',
      'a\u2028::notice::pwned\n',
      'a\n::set-env name=A::b\n',
      'a ##[error]legacy\n',
      'a\n::add-mask::late\n',
    ])
      expect(commandProblems(bad, 'x', true), bad).not.toEqual([]);
  });

  it('HTML elements and unsafe links from Markdown, live mentions, and none in the action’s own forms', () => {
    const own =
      '### ✅ Deployed: a\n\n| Result | `deployed` |\n|---|---|\n| URL | <https://x.example> |\n\n> note\n\n```json\n{}\n```\n';
    expect(htmlFromData(own)).toEqual([]);
    expect(liveMentions(own)).toEqual([]);
    for (const bad of [
      '<img src=x>',
      '<details open>',
      '[a](javascript:alert(1))',
      '![p](http://e/p.png)',
    ])
      expect(htmlFromData(`| a | ${bad} |`), bad).not.toEqual([]);
    // A cell whose code span holds `\\|`: GitHub keeps it one cell (the pipe is escaped), so no element.
    expect(htmlFromData('| a | `x\\\\|<img src=x>` |\n|---|---|\n')).toEqual([]);
    expect(liveMentions('hi @acme/admins and `@code`')).toEqual([
      expect.stringContaining('@acme/admins'),
    ]);
    expect(liveMentions('hi &#64;team')).not.toEqual([]);
    expect(liveMentions('hi @&#8203;team and mail@example.com')).toEqual([]);
  });

  it('raw control and invisible characters in any sink', () => {
    const run = { code: 0, stdout: 'a\u202eb', summary: 'x\u200by', outputs: { r: 'a\u0000b' } };
    const where = (r: typeof run) => sinks({ ...r, errors: [], ms: 0 }, github.gh);
    expect(invisibleCharacters(where(run))).toHaveLength(3);
    expect(
      invisibleCharacters(where({ ...run, stdout: 'ab', summary: 'xy', outputs: { r: 'ab' } })),
    ).toEqual([]);
  });

  it('a secret split by hidden characters, raw or shown as the log’s escapes', () => {
    const leak = (text: string) => secretPieces({ sink: text }, { secret: SECRET });
    expect(leak(splitEvery(SECRET, '\u0000'))).not.toEqual([]);
    expect(leak(splitEvery(SECRET, '\\u200b'))).not.toEqual([]);
    expect(leak(splitEvery(SECRET, '\\x00'))).not.toEqual([]);
  });

  it('bare URLs that GitHub would link', () => {
    expect(linksFromData('see https://evil.example/login')).not.toEqual([]);
    expect(linksFromData('see www.evil.example')).not.toEqual([]);
    expect(linksFromData('see https:&#8203;//evil.example and www&#8203;.evil.example')).toEqual(
      [],
    );
    expect(linksFromData('| URL | <https://agent.example> |')).toEqual([]);
  });

  it('eight characters of a secret in any form, base64 at any alignment included', () => {
    const leak = (text: string) => secretPieces({ sink: text }, { secret: SECRET });
    expect(leak('nothing here')).toEqual([]);
    expect(leak(`…${SECRET.slice(20, 28)}…`)).not.toEqual([]);
    expect(leak(unicodeEscape(SECRET).slice(40, 48))).not.toEqual([]);
    expect(leak(encodeURIComponent(SECRET).slice(10, 30))).not.toEqual([]);
    for (const prefix of ['', 'a', 'ab', 'abc'])
      expect(leak(base64(`${prefix}${SECRET}tail`)), prefix).not.toEqual([]);
  });
});

describe('a hostile service: every field it answers is data', () => {
  it.each([
    ['an http custom_url with <> and a newline', {}],
    ['a javascript: custom_url', { customUrl: 'javascript:alert(document.cookie)//' }],
    ['every string \\u-escaped on the wire', { wireEscape: true }],
    ['values of 400,000 characters', { padding: 'p'.repeat(400_000) }],
  ])(
    'a deploy through it (%s) is deployed, and nothing in it is injected, rendered or leaked',
    async (_, setup) => {
      Object.assign(ctx.service, setup);

      const run = await deployHostile();

      expect(run.code).toBe(0);
      expect(run.outputs.result).toBe('deployed');
      expect(ourComments(github.gh)).toHaveLength(1);
      expect(github.gh.deployments[0]?.statuses.map((s) => s.state)).toEqual([
        'in_progress',
        'success',
      ]);
    },
  );

  it('a create resolves a hostile repository listing and waits through a hostile answer', async () => {
    const { service } = ctx;
    service.exists = false;
    service.repositories = [{ owner: 'acme', name: 'agent' }];

    const run = await deployHostile();

    expect(run.outputs).toMatchObject({ result: 'deployed', created: 'true' });
    expect(service.requestsTo('create')).toHaveLength(1);
  });

  it('a repository listing without this repository is named safely in the error', async () => {
    ctx.service.exists = false;

    const run = await deployHostile();

    expectFailure(run, /acme\/agent/);
  });

  it('listeners with hostile compute_ids are listed safely when none matches', async () => {
    const run = await deployHostile({ listener: 'missing-cluster' });

    expectFailure(run, /missing-cluster/);
  });

  it('a listener’s hostile namespaces are listed safely when k8s-namespace is not one of them', async () => {
    const run = await deployHostile({ listener: randomUUID(), 'k8s-namespace': 'prod' });

    expectFailure(run, /k8s-namespace/);
  });

  it('status reads a hostile latest revision: still in progress, shown safely', async () => {
    const run = await deployHostile({ command: 'status' });

    expect(run.code).toBe(0);
    expect(run.outputs.result).toBe('submitted');
  });

  it.each([
    ['a dry run', { 'dry-run': 'true' }, 'planned'],
    ['skip-unchanged', { 'skip-unchanged': 'true' }, 'deployed'],
    ['drift', { command: 'drift' }, 'drifted'],
  ])('%s plans against hostile live values, shown safely', async (_, inputs, result) => {
    const run = await deployHostile({
      ...inputs,
      'custom-url': 'https://agent.example',
      'resource-spec': 'min_scale: 1\nlabels:\n  team: agents',
      'build-command': 'make',
    });

    expect(run.outputs.result).toBe(result);
    expect(run.summary).toContain('#### The plan: live against these inputs');
    expect(Object.keys(JSON.parse(run.outputs.changes!) as object)).toEqual([ctx.service.name]);
  });

  it('a redeploy waits through a hostile status to DEPLOYED', async () => {
    const run = await deployHostile({ command: 'redeploy', 'revision-id': randomUUID() });

    expect(run.outputs.result).toBe('deployed');
  });

  it('a token update answered with hostile fields is reported safely', async () => {
    const run = await deployHostile({
      command: 'token-metadata',
      name: '',
      'token-id': 'tok_1',
      'provider-account-label': 'ci',
    });

    expect(run.code).toBe(0);
    expect(run.outputs.result).toBe('updated');
  });

  it.each([
    ['as text', ['plain', 'json-escaped', 'url-encoded', 'markdown-escaped']],
    ['in base64', ['base64', 'base64 at 1', 'base64 at 2', 'base64url']],
    [
      'in upper case, hex, full width, HTML entities and in part',
      ['upper case', 'hex', 'upper-case hex', 'full-width', 'HTML entities', 'a part'],
    ],
    [
      'split by NULs, zero-width spaces and soft hyphens',
      ['NUL-split', 'zero-width-split', 'soft-hyphen-split'],
    ],
  ] satisfies [string, EchoForm[]][])(
    'statuses echo the key and the secret %s, each form that fits in one: none shows',
    async (_, forms) => {
      const { service } = ctx;
      service.echo = forms;
      const echo = (i: number) => () => service.shortEchoes()[i] ?? 'DEPLOYED';
      service.statuses = [
        SHORT_PAYLOAD,
        ...Array.from({ length: 8 }, (_, i) => echo(i)),
        'DEPLOYED',
      ];

      const run = await deployHostile({ timeout: '14s' });

      expect(run.outputs.result).toBe('deployed');
      expect(service.requestsTo('revision').length).toBeGreaterThan(forms.length);
    },
  );

  it('an id that is not a uuid is refused before it becomes part of a path', async () => {
    const { service } = ctx;
    const bad = `../../auth/tokens/x/metadata\n::error::pwned<img src=x>`;
    service.on('patch', () => ({
      body: { ...service.targetDeployment(), latest_revision_id: bad },
    }));

    const run = await deployHostile();

    expectFailure(run, /latest_revision_id/);
    expect(service.requestsTo('revision')).toEqual([]);
    expect(service.requestsTo('token-metadata')).toEqual([]);
  });
});

describe('hostile error bodies: the failure is reported, safely', () => {
  const text = (label: string) => ctx.service.text(label);
  it.each([
    [
      'a 403 detail that echoes the key',
      'list',
      () => ({ status: 403, body: { detail: text('forbidden') } }),
      'GET /v2/deployments',
    ],
    [
      'a 400 detail string',
      'patch',
      () => ({ status: 400, body: { detail: text('detail') } }),
      'PATCH /v2/deployments/',
    ],
    [
      'a FastAPI 422 list that echoes the body',
      'patch',
      (req: RecordedRequest) => ({
        status: 422,
        body: {
          detail: [
            { type: 'value_error', loc: ['body', text('loc')], msg: text('msg'), input: req.body },
          ],
        },
      }),
      'PATCH /v2/deployments/',
    ],
    [
      'JSON of another shape that echoes the request headers',
      'patch',
      (req: RecordedRequest) => ({
        status: 409,
        body: { error: text('error'), request: { headers: req.headers, body: req.body } },
      }),
      'PATCH /v2/deployments/',
    ],
    [
      'an HTML error page',
      'patch',
      () => ({
        status: 502,
        contentType: 'text/html',
        raw: `<html><body><h1>${text('h1')}</h1></body></html>`,
      }),
      // An HTML page points at base-url: the full URL is named.
      /PATCH http:\/\/127\.0\.0\.1:\d+\/v2\/deployments\//,
    ],
    [
      'a 200 that is not JSON',
      'patch',
      () => ({ contentType: 'text/plain', raw: text('plain') }),
      'PATCH /v2/deployments/',
    ],
  ] satisfies [string, Endpoint, Handler, string | RegExp][])(
    '%s (%s)',
    async (_, endpoint, reply, named) => {
      ctx.service.on(endpoint, reply);

      const run = await deployHostile();

      expectFailure(run, named);
    },
  );
});

describe('bounds', () => {
  it('an error body nested 200,000 deep fails cleanly, no stack overflow', async () => {
    ctx.service.on('list', deepError(200_000));

    const run = await deployHostile();

    expectFailure(run, 'GET /v2/deployments', /400/);
    expect(run.stdout).not.toMatch(/call stack|RangeError/i);
  });

  it('timeout bounds the lookup: a listing that pages forever, slowly, ends with the timeout', async () => {
    const { service } = ctx;
    service.on('list', pagesForever(service, 200));

    const run = await deployHostile({ timeout: '3s' });

    expectFailure(run, 'The timeout 3s ran out before GET /v2/deployments could answer.');
    // A page every 200 ms, started until a second past the deadline (the slack a last read gets): 20 pages, far
    // fewer than the 1,000-page guard, and the run ends there.
    expect(service.requestsTo('list')).toHaveLength(20);
    expect(run.ms).toBe(4000);
  });
});

describe('normalise, redact, escape, then cut: a secret survives no transformation', () => {
  const page = (title: string) => ({
    status: 502,
    contentType: 'text/html',
    raw: `<html><head><title>${title}</title></head><body>bad gateway</body></html>`,
  });
  const entities = (s: string) => [...s].map((c) => `&#${c.charCodeAt(0)};`).join('');
  // The first character \u-escaped, the rest as JSON writes it: redacting the raw text cannot find it.
  const partlyEscaped = (s: string) =>
    `\\u${s.charCodeAt(0).toString(16).padStart(4, '0')}${JSON.stringify(s.slice(1)).slice(1, -1)}`;

  it.each([
    [
      'a secret partly \\u-escaped on the wire, across the cut of a server message',
      { status: 400, raw: `{"detail":"${'x'.repeat(285)} ${partlyEscaped(SECRET)}"}` },
    ],
    [
      'the key split by NULs, in the message and the GitHub Deployment status',
      { status: 400, body: { detail: splitEvery(API_KEY, '\u0000') } },
    ],
    [
      'the key split by zero-width spaces and soft hyphens',
      { status: 400, body: { detail: splitEvery(splitEvery(API_KEY, '\u200b'), '\u00ad') } },
    ],
    [
      'JSON of another shape with a secret split by soft hyphens',
      { status: 409, body: { error: splitEvery(SECRET, '\u00ad') } },
    ],
    ['a page title with the key across its cut', page(`${'x'.repeat(70)} ${API_KEY}`)],
    ['a page title that spells the key in HTML entities', page(`Error ${entities(API_KEY)}`)],
    ['a page title with a secret whose tab became a space', page(`Error ${TAB_SECRET}`)],
    // Issue 31: the runner's masking never applies to a GitHub Deployment status; the redactor alone stands there.
    ...(
      [
        ['in upper case', API_KEY.toUpperCase()],
        ['in hex', Buffer.from(API_KEY).toString('hex').toUpperCase()],
        ['with every byte percent-encoded', percentEveryByte(API_KEY)],
        ['in full-width letters', fullWidth(API_KEY)],
        ['in HTML entities', htmlEntities(API_KEY)],
        ['in base64url', Buffer.from(API_KEY).toString('base64url')],
        ['in part (8 characters)', API_KEY.slice(9, 17)],
      ] as const
    ).map(([how, form]): [string, Reply] => [
      `the key ${how}, in the message and the GitHub Deployment status`,
      { status: 400, body: { detail: `bad key ${form} (${how})` } },
    ]),
  ] satisfies [string, Reply][])('%s', async (_, reply) => {
    ctx.service.on('patch', reply);

    const run = await deployHostile();

    expectFailure(run, 'PATCH');
    const states = github.gh.deployments[0]?.statuses.map((st) => st.state);
    expect(states).toEqual(['in_progress', 'failure']);
  });
});

describe('verify-url: where the check goes is never the service’s choice, and the agent’s words are not shown', () => {
  let near: FakeAgent;
  let far: FakeAgent;
  beforeAll(async () => {
    [near, far] = await Promise.all([FakeAgent.start(), FakeAgent.start()]);
  });
  beforeEach(() => {
    near.reset();
    far.reset();
  });
  afterAll(() => Promise.all([near.close(), far.close()]));

  it('a path resolves against the custom-url input when it is given', async () => {
    ctx.service.customUrl = far.url;

    const run = await deployHostile({ 'custom-url': near.url, 'verify-url': '/health' });

    expect(run.outputs).toMatchObject({ result: 'deployed', verified: 'true' });
    expect(near.requests.map((r) => r.path)).toContain('/health');
    expect(far.requests).toEqual([]);
  });

  it('a path resolves against custom_url as read before the write, not as answered after it', async () => {
    const { service } = ctx;
    service.customUrl = near.url;
    service.on('patch', () => {
      service.customUrl = far.url;
      return undefined;
    });

    const run = await deployHostile({ 'verify-url': '/health' });

    expect(run.outputs).toMatchObject({ result: 'deployed', verified: 'true' });
    expect(near.requests.map((r) => r.path)).toContain('/health');
    expect(far.requests).toEqual([]);
  });

  it('an answer is shown as its status and length only; a query only as ?…', async () => {
    const said = `agent-said-this ${'x'.repeat(100)} ${SECRET} ${API_KEY} ${PAYLOADS.join(' ')}`;
    near.script = [
      { status: 503, body: said },
      { status: 302, headers: { location: 'https://evil.example/phish' } },
    ];

    const run = await deployHostile({
      'verify-url': `${near.url}/health?token=verify-query-value`,
      'verify-timeout': '2s',
    });

    expect(run.outputs).toMatchObject({ result: 'unhealthy', verified: 'false' });
    expect(run.errors[0]).toContain(`${near.url}/health?… did not answer 2xx`);
    expect(run.errors[0]).toContain('last: HTTP 302, a redirect, not followed (body: 0 bytes)');
    expect(run.stdout).toContain(`HTTP 503 (body: ${Buffer.byteLength(said)} bytes)`);
    const published = [
      run.summary,
      ...commentBodies(github.gh),
      JSON.stringify(github.gh.deployments),
    ];
    for (const text of [...published, run.stdout]) {
      expect(text).not.toContain('agent-said-this');
      expect(text).not.toContain('evil.example/phish');
    }
    for (const text of published) expect(text).not.toContain('verify-query-value');
  });
});

describe('pull_request_target and token-id: inputs that rewrite what is deployed or where', () => {
  const target = { GITHUB_EVENT_NAME: 'pull_request_target', GITHUB_REF: 'refs/heads/main' };

  it('pull_request_target with repo-ref deploys that ref, never the head branch', async () => {
    const run = await deployHostile({ 'repo-ref': 'main' }, { env: target });

    expect(run.outputs.result).toBe('deployed');
    const patch = ctx.service.requestsTo('patch')[0]?.body;
    expect(patch).toMatchObject({ source_revision_config: { repo_ref: 'main' } });
  });

  it.each(['tok/1', 'tok 1', '..', '.'])(
    'token-id %j is refused, naming the accepted form, before any request',
    async (tokenId) => {
      const run = await deployHostile({
        command: 'token-metadata',
        name: '',
        'token-id': tokenId,
        'provider-account-label': 'ci',
      });

      expectFailure(run, /Input 'token-id': .* is not a token id; use .*letters, digits/);
      expect(ctx.service.requests).toEqual([]);
    },
  );
});

describe('pull request comment: only the token’s own is ever edited', () => {
  const marker = '<!-- agent-deploy-action:my-agent -->';
  const forged = `${marker}\nforged: this comment is someone else’s`;

  it.each([
    ['the pull request’s author', AUTHOR],
    [
      'a bot with the same login but another id',
      { login: 'github-actions[bot]', id: 1, type: 'Bot' },
    ],
    ['a deleted account (user: null)', null],
  ] as const)(
    'a marker comment by %s is left alone; the action writes its own',
    async (_, user) => {
      const { gh } = github;
      const theirs = gh.addComment(PR, forged, user as FakeUser | null);

      const run = await deployHostile();

      expect(run.code).toBe(0);
      expect(theirs.body).toBe(forged);
      expect(commentEdits(gh)).toEqual([]);
      const own = ourComments(gh).filter((c) => c.id !== theirs.id);
      expect(own).toHaveLength(1);
      expect(own[0]!.user).toEqual(gh.viewerUser());
    },
  );

  it('with a forged comment before its own, the action updates its own', async () => {
    const { gh } = github;
    const theirs = gh.addComment(PR, forged, AUTHOR);
    const own = gh.addComment(PR, `${marker}\nan earlier run`);

    await deployHostile();

    expect(theirs.body).toBe(forged);
    expect(commentEdits(gh).map((r) => r.path)).toEqual([
      `/repos/acme/agent/issues/comments/${own.id}`,
    ]);
    expect(own.body).toContain('Deployed');
  });

  it('the identity is the token’s, whatever it is: a personal token’s user, not github-actions[bot]', async () => {
    const { gh } = github;
    gh.viewer = { login: 'deploy-bot', id: 31337 };
    const actions = gh.addComment(PR, forged, {
      login: 'github-actions[bot]',
      id: 41898282,
      type: 'Bot',
    });
    const own = gh.addComment(PR, `${marker}\nan earlier run`);

    await deployHostile();

    expect(actions.body).toBe(forged);
    expect(commentEdits(gh).map((r) => r.path)).toEqual([
      `/repos/acme/agent/issues/comments/${own.id}`,
    ]);
  });

  it('when GitHub will not say who the token is, no comment is edited', async () => {
    const { gh } = github;
    const own = gh.addComment(PR, `${marker}\nan earlier run`);
    gh.forbidden = /^POST \/graphql$/;

    const run = await deployHostile();

    expect(run.code).toBe(0);
    expect(commentEdits(gh)).toEqual([]);
    expect(own.body).toBe(`${marker}\nan earlier run`);
  });
});

describe('resource-spec @file: only a regular file inside the workspace, refused before any request', () => {
  let ws: ReturnType<typeof hostileWorkspace>;
  beforeAll(() => {
    ws = hostileWorkspace();
  });
  afterAll(() => ws.dispose());
  const withSpec = (path: string) =>
    deployHostile({ 'resource-spec': `@${path}` }, { env: { GITHUB_WORKSPACE: ws.workspace } });

  it('a regular file in the workspace is read and sent (the control)', async () => {
    const run = await withSpec('spec.yaml');

    expect(run.outputs.result).toBe('deployed');
    expect(ctx.service.requestsTo('patch')[0]?.body).toMatchObject({
      source_config: { resource_spec: { cpu: 1 } },
    });
  });

  // A FIFO and /dev/zero, which could hang a careless read, go through dist/ (a child can be killed).
  it.each([
    ['a symlink to a file outside the workspace', 'outside.yaml'],
    ['a path through a symlinked folder outside the workspace', 'linked/spec.yaml'],
    ['a file of 20 MiB', 'big/spec.yaml'],
  ])('%s is refused', async (_, path) => {
    const run = await withSpec(path);

    expectFailure(run, /resource-spec/);
    expect(ctx.service.requests).toEqual([]);
  });
});

describe('base-url with user:password@', () => {
  it.each([
    `https://user:${PASSWORD}@ho st/`,
    `https://user:${PASSWORD}@api.example.com/`,
    `http://user:${PASSWORD}@127.0.0.1:9/`,
  ])('%s is refused without quoting the password', async (url) => {
    const run = await deployHostile({ 'base-url': url });

    expectFailure(run, /base-url/);
    expect(secretPieces(sinks(run, github.gh), { password: PASSWORD })).toEqual([]);
    expect(ctx.service.requests).toEqual([]);
  });
});

describe('identity: an answer about another resource than the one asked is an error naming the endpoint', () => {
  const AT = '2025-01-02T03:04:05Z';
  const promoteInputs = { command: 'promote', from: 'staging' };

  it('promote deploys the source’s active revision (the control)', async () => {
    const { service } = ctx;
    service.add('staging');
    service.statuses = ['DEPLOYED'];

    const run = await deployHostile(promoteInputs);

    expect(run.outputs.result).toBe('deployed');
    expect(service.requestsTo('patch')[0]?.body).toMatchObject({
      source_revision_config: { repo_ref: service.commit },
    });
  });

  it('a revision read that answers another revision: promote writes nothing', async () => {
    const { service } = ctx;
    service.add('staging');
    service.statuses = ['DEPLOYED'];
    const other = randomUUID();
    service.on('revision', () => revisionAnswer(other));

    const run = await deployHostile(promoteInputs);

    expectFailure(
      run,
      /GET \/v2\/deployments\/[0-9a-f-]{36}\/revisions\/[0-9a-f-]{36} answered about revision/,
      `revision ${other}, not the revision`,
    );
    expect(service.requestsTo('patch')).toEqual([]);
  });

  it('a status read that answers another revision is not reported as the latest one', async () => {
    const other = randomUUID();
    ctx.service.on('revision', () => revisionAnswer(other));

    const run = await deployHostile({ command: 'status' });

    expectFailure(run, /GET \/v2\/deployments\/.* answered about revision/);
    expect(run.outputs['revision-id']).not.toBe(other);
    expect(run.outputs['revision-status'] ?? '').toBe('');
  });

  it('a PATCH answered with another deployment: an error that says the write may have taken effect', async () => {
    const { service } = ctx;
    const other = randomUUID();
    service.on('patch', () => ({ body: { ...service.targetDeployment(), id: other } }));

    const run = await deployHostile();

    expectFailure(
      run,
      /PATCH \/v2\/deployments\/[0-9a-f-]{36} answered about deployment/,
      'may have taken effect',
    );
    expect(service.requestsTo('revision')).toEqual([]);
    // Applied (it was answered), its revision unknown: never "surely no revision".
    expect(run.outputs['revision-created'] ?? '').toBe('');
  });

  it('a create answered with a body that is not a deployment: created is not known, never false', async () => {
    const { service } = ctx;
    service.exists = false;
    service.repositories = [{ owner: 'acme', name: 'agent' }];
    service.on('create', () => ({ status: 201, body: { id: randomUUID() } }));

    const run = await deployHostile();

    expectFailure(
      run,
      'POST /v2/deployments answered with an unexpected body',
      'may have taken effect',
    );
    expect(service.requestsTo('create')).toHaveLength(1);
    expect(run.outputs.created ?? '').toBe('');
    expect(run.outputs['revision-created'] ?? '').toBe('');
  });

  it('a listing by deployment_ids that shows another deployment', async () => {
    const { service } = ctx;
    const id = String(service.targetDeployment().id);
    const other = { ...service.targetDeployment(), id: randomUUID() };
    service.on('list', () => ({ body: { resources: [other], offset: 1 } }));

    const run = await deployHostile({ name: '', 'deployment-id': id });

    expectFailure(
      run,
      `GET /v2/deployments (deployment_ids=${id}) answered about deployment ${other.id}`,
    );
    expect(service.requestsTo('patch')).toEqual([]);
  });

  it('a listener read that answers another listener', async () => {
    const { service } = ctx;
    const asked = randomUUID();
    service.on('listener', () => ({
      body: {
        id: randomUUID(),
        compute_type: 'k8s',
        compute_id: 'cluster',
        compute_config: { k8s_namespaces: ['prod'] },
        created_at: AT,
        updated_at: AT,
      },
    }));

    const run = await deployHostile({ listener: asked, 'k8s-namespace': 'prod' });

    expectFailure(run, `GET /v2/listeners/${asked} answered about listener`);
    expect(service.requestsTo('patch')).toEqual([]);
  });

  it('a token update answered about another token, its id a payload, shown safely', async () => {
    const { service } = ctx;
    service.on('token-metadata', () => ({
      body: {
        id: service.text('token id'),
        provider_id: 'codehost',
        created_at: AT,
        updated_at: AT,
      },
    }));

    const run = await deployHostile({
      command: 'token-metadata',
      name: '',
      'token-id': 'tok_1',
      'provider-account-label': 'ci',
    });

    expectFailure(
      run,
      'PATCH /v2/auth/tokens/tok_1/metadata answered about token',
      'not the token tok_1',
    );
  });
});

describe('repo_commit_sha: 7 to 64 hex characters, else a schema error naming the endpoint and the field', () => {
  it.each([
    ['a payload', PAYLOADS.join(' ')],
    ['a sha and a second variable', 'abc1234 COMMIT_INJ=1'],
    ['6 hex characters', 'abcdef'],
    ['65 hex characters', 'a'.repeat(65)],
    ['a shell substitution', '$(touch /tmp/pwned)'],
    ['empty', ''],
  ])('%s is refused', async (_, commit) => {
    ctx.service.commit = commit;

    const run = await deployHostile({ command: 'status' });

    // The deployment's own answer carries it too: the listing that finds it is refused first.
    expectFailure(
      run,
      /GET \/v2\/deployments answered with an unexpected body: field 'resources\.\d+\.source_revision_config\.repo_commit_sha': not a commit sha \(7 to 64 hex characters\)/,
    );
    expect(run.outputs['commit-sha'] ?? '').toBe('');
  });

  it.each([
    ['7 hex characters', 'abc1234'],
    ['a SHA-256 in capitals', 'AB'.repeat(32)],
    ['none', null],
  ])('%s is taken', async (_, commit) => {
    ctx.service.commit = commit;

    const run = await deployHostile({ command: 'status' });

    expect(run.code).toBe(0);
    expect(run.outputs['commit-sha'] ?? '').toBe(commit ?? '');
  });
});

describe('sizes: 64 KiB a string, 16 MiB a run, and every deployment of a list keeps its row', () => {
  const names = (n: number) =>
    Array.from({ length: n }, (_, i) => `agent-${String(i + 1).padStart(3, '0')}`);
  /** A list of deployments of the hostile service, each existing under its name. */
  const list = (n: number, extra: Record<string, string> = {}) => {
    // Only the list's deployments: my-agent would be on every page of the name listing.
    ctx.service.exists = false;
    for (const name of names(n)) ctx.service.add(name);
    return {
      name: '',
      deployments: JSON.stringify(names(n).map((name) => ({ name }))),
      'max-parallel': '4',
      ...extra,
    };
  };
  /** 56 labels of 64 KiB: a deployment of 3.7 MiB, each string at the limit, its listing's page near 4 MiB. */
  const nearTheLimits = () =>
    Object.fromEntries(Array.from({ length: 56 }, (_, i) => [`l${i}`, 'v'.repeat(64 * 1024 - 8)]));
  /** The list's table rows, as the summary or a comment shows them. */
  const rows = (markdown: string) =>
    markdown.split('\n').filter((line) => /^\| agent-\d{3} \|/.test(line));

  it('5 deployments answering a custom_url of 1.9 MB: each kept to 64 KiB, the sections that fit shown, every row kept', async () => {
    const { service } = ctx;
    service.customUrl = `https://agent.example/${'u'.repeat(1_900_000)}`;
    service.statuses = ['DEPLOYED'];

    const run = await deployHostile(list(5));

    expect(run.outputs.result).toBe('deployed');
    const row = (name: string) =>
      new RegExp(
        `^\\| ${name} \\| \`deployed\` \\| \`[0-9a-f-]{36}\` \\| [\\d.]+ s \\| _\\(65534 characters\\)_ \\|$`,
      );
    expect(rows(run.summary)).toEqual(names(5).map((name) => expect.stringMatching(row(name))));
    // Cut at 64 KiB of UTF-8 (65,533 bytes and an ellipsis), shown in each deployment's own section until the cut.
    const longest = Math.max(...run.summary.split('\n').map((line) => Buffer.byteLength(line)));
    expect(longest).toBeLessThan(64 * 1024 + 200);
    expect(run.summary).toMatch(
      /\n_\(The sections? of \d more deployments? left out: over 256 KiB\. The table above has every one\.\)_\n$/,
    );
    const [comment] = commentBodies(github.gh);
    expect(rows(comment!)).toEqual(names(5).map((name) => expect.stringMatching(row(name))));
    expect(comment).toMatch(/\n_\(The sections? of \d more deployments? left out: over 5\d KiB\. /);
  });

  it('6 deployments answering near every limit: past 16 MiB a clear error, and every deployment keeps its row', async () => {
    const { service } = ctx;
    service.labels = nearTheLimits();
    service.statuses = ['DEPLOYED'];

    // One at a time: one deployment fits (its lookup, update, status and re-read: 11 MiB), the next does not.
    const run = await deployHostile(list(6, { 'max-parallel': '1' }));

    expectFailure(run, /more than the 16\.0 MiB one run keeps however many deployments it acts on/);
    const results = JSON.parse(run.outputs.results!) as Record<string, { result: string }>;
    const ended = Object.values(results).map((r) => r.result);
    expect(ended).toContain('deployed');
    expect(ended).toContain('failed');
    // Full, the run sends nothing for a deployment that has not begun: each would read 4 MiB it could not keep.
    expect(run.errors.join('\n')).toContain('was not sent: this run already holds');
    const looked = service.requestsTo('list').flatMap((r) => r.query.name_contains ?? []);
    expect(new Set(looked)).toEqual(new Set(['agent-001', 'agent-002']));
    expect(rows(run.summary).map((row) => row.split(' | ')[0])).toEqual(
      names(6).map((n) => `| ${n}`),
    );
    expect(rows(commentBodies(github.gh)[0]!)).toHaveLength(6);
  });
});
