import type { Call } from '../service/calls.ts';
import type { Plan } from '../core/report.ts';
import { changedFields } from './request.ts';

/** What a dry run shows instead of sending `call`: the same method, path and body, secret values replaced. */
export function planOf(action: Plan['action'], call: Call<unknown>): Plan {
  const body = call.body as { secrets?: { name: string }[] } | undefined;
  return {
    action,
    method: call.method,
    path: call.path,
    body: body?.secrets
      ? { ...body, secrets: body.secrets.map((s) => ({ name: s.name, value: '***' })) }
      : body,
    changes: action === 'redeploy' || !body ? [] : changedFields(body),
  };
}
