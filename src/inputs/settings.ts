// The inputs once parsed: one type per command, so what a command needs is never optional in its type.
import type { IntegrationKind } from '../service/calls.ts';
import { DeployError } from '../service/errors.ts';
import type {
  ResourceSpec,
  Secret,
  SecretReference,
  Source,
  TokenMetadataBody,
} from '../service/schemas.ts';

export const COMMANDS = ['deploy', 'redeploy', 'status', 'token-metadata'] as const;
export type Command = (typeof COMMANDS)[number];

export class InputError extends DeployError {
  override name = 'InputError';
  constructor(input: string, problem: string) {
    // "Input 'timeout' must be …" reads as a sentence; a problem about the value follows a colon.
    const verb = /^(is|are|and|must|needs|cannot|applies|contains) /.test(problem);
    super(`Input '${input}'${verb ? ' ' : ': '}${problem}`);
  }
}

/** The deployment a command acts on: by id (it must exist; a name given too must match) or by name. */
export type DeploymentRef = { id: string; name?: string } | { id?: undefined; name: string };

/** What every command has. */
interface CommonSettings {
  baseUrl: string;
  apiKey: string;
  tenantId?: string;
  /** The run's whole time: lookup, write and wait. */
  timeoutMs: number;
  dryRun: boolean;
  /** Masked whatever the command; only deploy sends them. */
  secrets?: Secret[];
  github: { token?: string; environment?: string; prComment: boolean };
}

/** How a command that writes a revision follows it (deploy and redeploy). */
export interface FollowSettings {
  wait: boolean;
  pollIntervalMs: number;
  allowSkipped: boolean;
  rollbackOnFailure: boolean;
  /** verify-url as given (absolute, or a path to resolve against custom_url) and verify-timeout. */
  verify?: { url: string; timeoutMs: number };
}

export interface DeploySettings extends CommonSettings, FollowSettings {
  command: 'deploy';
  target: DeploymentRef;
  create: boolean;
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
}

export interface RedeploySettings extends CommonSettings, FollowSettings {
  command: 'redeploy';
  target: DeploymentRef;
  revisionId: string;
}

export interface StatusSettings extends CommonSettings {
  command: 'status';
  target: DeploymentRef;
}

export interface TokenMetadataSettings extends CommonSettings {
  command: 'token-metadata';
  tokenId: string;
  /** provider_account_label and/or is_default: at least one. */
  metadata: TokenMetadataBody;
}

export type Settings = DeploySettings | RedeploySettings | StatusSettings | TokenMetadataSettings;

/** The deployment a run is about, as the inputs name it (not for token-metadata). */
export function targetOf(settings: Settings): DeploymentRef | undefined {
  return settings.command === 'token-metadata' ? undefined : settings.target;
}
