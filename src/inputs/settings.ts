// The settings commands share, once the inputs are parsed; a command's own settings type lives beside the command.
import type { Preview } from '../core/host.ts';
import type { IntegrationKind } from '../service/calls.ts';
import type { ResourceSpec, Secret, SecretReference, Source } from '../service/schemas.ts';

/** The deployment a command acts on: by id (it must exist; a name given too must match) or by name. */
export type DeploymentRef = { id: string; name?: string } | { id?: undefined; name: string };

/** What every command has. */
export interface CommonSettings {
  baseUrl: string;
  apiKey: string;
  tenantId?: string;
  /** The run's whole time: lookup, write and wait. */
  timeoutMs: number;
  dryRun: boolean;
  /** Masked whatever the command; only deploy sends them. */
  secrets?: Secret[];
  /** The CI environment to record a deployment in (a GitHub Deployment), and whether to comment on the change. */
  environment?: string;
  prComment: boolean;
  /** The change's preview this run deploys (preview: true) or closes (preview-close). */
  preview?: Preview;
}

/** How a command that writes a revision follows it (deploy and redeploy). */
export interface FollowSettings {
  wait: boolean;
  pollIntervalMs: number;
  /** How long a wait may see no status change before it warns, once, with what it knows. */
  stuckAfterMs: number;
  allowSkipped: boolean;
  rollbackOnFailure: boolean;
  /** verify-url as given (absolute, or a path to resolve against custom_url) and verify-timeout. */
  verify?: { url: string; timeoutMs: number };
}

export interface DeploySettings extends CommonSettings, FollowSettings {
  command: 'deploy';
  target: DeploymentRef;
  /** true: create a missing deployment unless its name is one typo away from one that exists; 'always': even then. */
  create: boolean | 'always';
  /** The source to create with: the input, or the contract's default. */
  source: Source;
  sourceGiven: boolean;
  revisionSource?: string;
  repoRef?: string;
  imageUri?: string;
  graphConfigPath?: string;
  sourceTarballPath?: string;
  integrationId?: string;
  integrationKind: IntegrationKind;
  repoUrl?: string;
  deploymentType?: string;
  buildOnPush?: boolean;
  customUrl?: string;
  installCommand?: string;
  buildCommand?: string;
  listener?: string;
  k8sNamespace?: string;
  resourceSpec?: ResourceSpec;
  secretReferences?: SecretReference[];
  /** owner/name of the repository the workflow runs in (GITHUB_REPOSITORY). */
  repository?: { owner: string; name: string };
  /** skip-unchanged: no write when the plan against the live deployment is empty (deploy/live.ts). */
  skipUnchanged: boolean;
  /** The globs of the files the deployment is built from: a commit that touches none of them is no change. */
  paths?: string[];
  /** The run's own ref and the commit it is at (HostContext): the commit a deploy of that ref builds. */
  event: { ref?: string; commit?: string };
  /** The checkout, where git compares two commits for `paths`. */
  workspace: string;
}
