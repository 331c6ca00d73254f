export const id = 93;
export const ids = [93];
export const modules = {

/***/ 9093:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {


// EXPORTS
__webpack_require__.d(__webpack_exports__, {
  GitHubSession: () => (/* binding */ GitHubSession),
  connect: () => (/* binding */ connect)
});

// EXTERNAL MODULE: ./node_modules/@actions/github/lib/github.js + 22 modules
var github = __webpack_require__(2413);
;// CONCATENATED MODULE: ./src/github/api.ts
/**
 * Best effort: the request is made once (never retried), aborted past its time limit or on cancel. A failure
 * is a warning naming the permission the job needs, and the answer is undefined.
 */
async function bestEffort(api, log, call, limits) {
    const timer = AbortSignal.timeout(limits.timeoutMs);
    const signal = limits.signal ? AbortSignal.any([timer, limits.signal]) : timer;
    try {
        return await api.request(call.route, { ...call.params, request: { signal } });
    }
    catch (error) {
        if (limits.signal?.aborted) {
            log.info(`${call.what}: stopped, the job was cancelled.`);
            return undefined;
        }
        // Octokit gives network errors status 500 too; only an answer has a response.
        const answered = error.response !== undefined;
        const status = answered ? error.status : undefined;
        const detail = timer.aborted
            ? `no answer within ${Math.round(limits.timeoutMs / 100) / 10} s`
            : `${answered ? `${String(status)} ` : ''}${messageOf(error)}`;
        const hint = status === 401 || status === 403 || status === 404
            ? `give the job \`permissions: ${call.permission}\` (or a github-token that has it)`
            : `it needs \`permissions: ${call.permission}\``;
        log.warning(`${call.what} failed (${detail}); ${hint}. The deploy is not affected.`);
        return undefined;
    }
}
/** GitHub's message as it gave it: the log sink redacts it, then cuts it (cut first, a secret's prefix would stay). */
function messageOf(error) {
    const data = error.response?.data;
    return typeof data?.message === 'string'
        ? data.message
        : String(error.message ?? error);
}

;// CONCATENATED MODULE: ./src/github/comment.ts

const PERMISSION = 'pull-requests: write';
const PER_PAGE = 100;
// A guard, not a limit anyone should meet: 5,000 comments on one pull request.
const MAX_PAGES = 50;
/** The hidden first line that finds this deployment's comment again; `>` escaped so a name cannot end it. */
function commentMarker(name) {
    return `<!-- agent-deploy-action:${name.replace(/>/g, '&gt;')} -->`;
}
/**
 * Creates the pull request's comment for deployment `name`, or updates the one that carries its marker and was
 * written by the token's own identity, so a pull request has one comment per deployment however many runs it
 * sees. A comment by anyone else (the PR's author, say) that carries the marker is never touched. Answers what it
 * did, or undefined after a warning. When the comments or the identity cannot be read, nothing is written: a blind
 * create could duplicate.
 */
async function upsertComment(api, log, c, limits) {
    const marker = commentMarker(c.name);
    const body = `${marker}\n${c.body}`;
    const marked = await markedComments(api, log, c, marker, limits);
    if (marked === null)
        return undefined;
    let found;
    // Whose token this is matters only when a comment carries the marker: most runs never ask.
    if (marked.length) {
        const self = await viewer(api, log, limits);
        if (!self)
            return undefined;
        found = marked.find((comment) => writtenBy(comment.user, self))?.id;
    }
    if (found !== undefined) {
        const answer = await bestEffort(api, log, {
            what: `Updating comment ${found} on pull request #${c.issueNumber}`,
            permission: PERMISSION,
            route: 'PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}',
            params: { ...c.repo, comment_id: found, body },
        }, limits);
        if (!answer)
            return undefined;
        log.info(`Updated the comment on pull request #${c.issueNumber}.`);
        return 'updated';
    }
    const answer = await bestEffort(api, log, {
        what: `Commenting on pull request #${c.issueNumber}`,
        permission: PERMISSION,
        route: 'POST /repos/{owner}/{repo}/issues/{issue_number}/comments',
        params: { ...c.repo, issue_number: c.issueNumber, body },
    }, limits);
    if (!answer)
        return undefined;
    log.info(`Commented on pull request #${c.issueNumber}.`);
    return 'created';
}
/** GraphQL's viewer answers for every kind of token; REST `GET /user` refuses GITHUB_TOKEN. */
async function viewer(api, log, limits) {
    const answer = await bestEffort(api, log, {
        what: 'Reading who github-token acts as, to find its pull request comment',
        permission: PERMISSION,
        route: 'POST /graphql',
        params: { query: 'query { viewer { login databaseId } }' },
    }, limits);
    const found = answer?.data
        ?.data?.viewer;
    if (typeof found?.login !== 'string') {
        if (answer)
            log.warning('GitHub did not say who github-token acts as; the comment is skipped.');
        return undefined;
    }
    return {
        login: found.login,
        id: typeof found.databaseId === 'number' ? found.databaseId : undefined,
    };
}
function writtenBy(user, self) {
    const { id, login } = (user ?? {});
    if (self.id !== undefined)
        return id === self.id;
    // GraphQL names a bot without the [bot] that REST adds.
    const bare = (name) => String(name)
        .toLowerCase()
        .replace(/\[bot\]$/, '');
    return typeof login === 'string' && bare(login) === bare(self.login);
}
/** The comments starting with `marker`, oldest first; null when they cannot be read. */
async function markedComments(api, log, c, marker, limits) {
    const marked = [];
    for (let page = 1; page <= MAX_PAGES; page++) {
        const answer = await bestEffort(api, log, {
            what: `Reading the comments of pull request #${c.issueNumber}`,
            permission: PERMISSION,
            route: 'GET /repos/{owner}/{repo}/issues/{issue_number}/comments',
            params: { ...c.repo, issue_number: c.issueNumber, per_page: PER_PAGE, page },
        }, limits);
        if (!answer)
            return null;
        const comments = Array.isArray(answer.data) ? answer.data : [];
        for (const comment of comments) {
            const { id, body, user } = comment;
            if (typeof id === 'number' && typeof body === 'string' && body.startsWith(marker))
                marked.push({ id, user });
        }
        if (comments.length < PER_PAGE)
            return marked;
    }
    log.warning(`Pull request #${c.issueNumber} has more than ${MAX_PAGES * PER_PAGE} comments; not adding another.`);
    return null;
}

// EXTERNAL MODULE: ./src/shared/url.ts
var url = __webpack_require__(7216);
;// CONCATENATED MODULE: ./src/github/deployments.ts

const deployments_PERMISSION = 'deployments: write';
/** Creates the GitHub Deployment of `sha` in `environment`; answers its id, or undefined after a warning. */
async function createDeployment(api, log, d, limits) {
    const answer = await bestEffort(api, log, {
        what: `Creating the GitHub Deployment in environment '${d.environment}'`,
        permission: deployments_PERMISSION,
        route: 'POST /repos/{owner}/{repo}/deployments',
        params: {
            ...d.repo,
            ref: d.sha,
            environment: d.environment,
            description: d.description,
            // The deploy is this job's own business: no merge of the default branch, no wait on commit checks
            // (this very job is one of them, still running).
            auto_merge: false,
            required_contexts: [],
        },
    }, limits);
    if (!answer)
        return undefined;
    const id = answer.data?.id;
    if (typeof id === 'number') {
        log.info(`GitHub Deployment ${id} created in environment '${d.environment}'.`);
        return id;
    }
    log.warning(`Creating the GitHub Deployment answered ${answer.status} without an id; no deployment status is recorded.`);
    return undefined;
}
async function setDeploymentStatus(api, log, d, limits) {
    const { state, description, environmentUrl, logUrl } = d.status;
    const answer = await bestEffort(api, log, {
        what: `Setting GitHub Deployment ${d.deploymentId} to ${state}`,
        permission: deployments_PERMISSION,
        route: 'POST /repos/{owner}/{repo}/deployments/{deployment_id}/statuses',
        params: {
            ...d.repo,
            deployment_id: d.deploymentId,
            state,
            description,
            ...(environmentUrl ? { environment_url: environmentUrl } : {}),
            ...(logUrl ? { log_url: logUrl } : {}),
        },
    }, limits);
    return answer !== undefined;
}
/**
 * The GitHub Deployment's last status for a finished run. A cancelled run is `inactive`, not `failure`: the
 * revision keeps going on the service and may still go live, so all GitHub can say is that this deployment
 * is not (known to be) the live one. The same holds for a skipped revision when skips are allowed. With
 * `wait: false` the deployment stays `in_progress`: the action never learns the end.
 */
function finalStatus(report) {
    const revision = report.revisionId ? `revision ${report.revisionId}` : 'no revision';
    if (report.cancelled)
        return {
            state: 'inactive',
            description: `Job cancelled; ${revision} keeps going on the service.`,
        };
    if (report.ok) {
        switch (report.result) {
            case 'submitted':
                return { state: 'in_progress', description: `Submitted ${revision}; not awaited.` };
            case 'skipped':
                return { state: 'inactive', description: `The service skipped ${revision}.` };
            case 'no-change':
                return { state: 'success', description: 'No change: the live revision already matches.' };
            default:
                return { state: 'success', description: `Deployed ${revision}.` };
        }
    }
    return {
        state: 'failure',
        description: report.failure?.message ?? `Ended ${report.result ?? 'with an error'}.`,
    };
}

;// CONCATENATED MODULE: ./src/github/session.ts
// Loaded with a dynamic import only when a GitHub feature applies: Octokit stays out of the main bundle.




const CALL_TIMEOUT_MS = 10_000;
/** GitHub rejects a deployment (status) description longer than 140 characters. */
const DESCRIPTION_MAX = 140;
// After a cancel the runner sends SIGTERM 7.5 s after SIGINT: the last calls must fit well before it.
const CANCELLED_CALL_TIMEOUT_MS = 2_000;
/** Octokit at GITHUB_API_URL (getOctokit's default), without retries: every call is made once. */
function connect(token, userAgent) {
    return (0,github/* getOctokit */.Q)(token, { userAgent });
}
/** The GitHub side of one run: a GitHub Deployment marked in_progress at the start, then its end and the comment. */
class GitHubSession {
    api;
    log;
    options;
    deploymentId;
    constructor(api, log, options) {
        this.api = api;
        this.log = log;
        this.options = options;
    }
    static async open(api, log, options) {
        const session = new GitHubSession(api, log, options);
        const { work, clock, field } = options;
        if (!work.environment)
            return session;
        // Within the deploy's own deadline, and stopped by a cancel.
        const limits = {
            timeoutMs: Math.min(CALL_TIMEOUT_MS, Math.max(1000, clock.deadline - clock.time.now())),
            signal: clock.signal,
        };
        session.deploymentId = await createDeployment(api, log, {
            repo: work.repo,
            environment: work.environment.name,
            sha: work.environment.sha,
            description: field(`agent-deploy-action: ${options.target}`, DESCRIPTION_MAX),
        }, limits);
        if (session.deploymentId !== undefined && !clock.signal.aborted) {
            await setDeploymentStatus(api, log, {
                repo: work.repo,
                deploymentId: session.deploymentId,
                status: {
                    state: 'in_progress',
                    description: field(`Deploying ${options.target}`, DESCRIPTION_MAX),
                    environmentUrl: session.url(options.customUrl),
                    logUrl: options.runUrl,
                },
            }, limits);
        }
        return session;
    }
    /**
     * The environment URL, redacted like any field. GitHub links it as given: a bare host becomes https://host, and
     * anything that is not then a plain http(s) URL (javascript:, spaces, credentials) is left out.
     */
    url(value) {
        return value ? (0,url/* absoluteHttpUrl */.Lh)(this.options.field(value, 2000)) : undefined;
    }
    /** The GitHub Deployment's last status and the pull request comment, side by side. */
    async finish(report, comment) {
        const { work, customUrl, runUrl, field } = this.options;
        const limits = {
            timeoutMs: report.cancelled ? CANCELLED_CALL_TIMEOUT_MS : CALL_TIMEOUT_MS,
        };
        const url = this.url(report.deployment?.source_config.custom_url ?? customUrl);
        const { state, description } = finalStatus(report);
        await Promise.all([
            this.deploymentId !== undefined &&
                setDeploymentStatus(this.api, this.log, {
                    repo: work.repo,
                    deploymentId: this.deploymentId,
                    status: {
                        state,
                        description: field(description, DESCRIPTION_MAX),
                        environmentUrl: url,
                        logUrl: runUrl,
                    },
                }, limits),
            work.comment &&
                upsertComment(this.api, this.log, { repo: work.repo, issueNumber: work.comment.issueNumber, ...comment }, limits),
        ]);
    }
}


/***/ })

};
