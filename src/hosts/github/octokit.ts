// Loaded with a dynamic import only when a GitHub feature applies: Octokit stays out of the main bundle.
import { getOctokit } from '@actions/github';
import type { GitHubApi } from './api.ts';

/** Octokit at GITHUB_API_URL (getOctokit's default), without retries: every call is made once. */
export function connect(token: string, userAgent: string): GitHubApi {
  return getOctokit(token, { userAgent });
}
