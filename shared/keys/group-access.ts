import type { Catalog, Group } from '../catalog/index.js';
import { GatewayError } from '../errors.js';

/** Every key without a group lands here, so choosing it is never a privilege. */
const DEFAULT_GROUP = 'default';

/**
 * The catalog groups a user may put a key in from the console: `default`, the ones marked
 * `self_service: true`, and the ones the operator allowed this user (CLI `user:groups`). A group's
 * discount and shared limits are the operator's to hand out, so nothing else is offered.
 */
export function selectableGroups(catalog: Catalog, user: { allowed_groups: readonly string[] }): Group[] {
  const allowed = new Set(user.allowed_groups);
  return [...catalog.groups.values()].filter(
    (g) => g.id === DEFAULT_GROUP || g.selfService === true || allowed.has(g.id),
  );
}

/**
 * 403 `group_not_allowed` (param `group`) unless the console may set `group` on this user's key.
 * A key may keep the group it has (an edit that sends the whole key back changes nothing). An
 * unknown group is refused alike, so the answer does not tell which groups exist.
 */
export function assertGroupSelectable(
  catalog: Catalog,
  user: { allowed_groups: readonly string[] },
  group: string | undefined,
  current?: string,
): void {
  if (group === undefined || group === current) return;
  const choices = selectableGroups(catalog, user).map((g) => g.id);
  if (choices.includes(group)) return;
  throw new GatewayError(
    'group_not_allowed',
    403,
    `'group': '${group}' is not a group you may choose (the operator assigns the others); yours: ${choices.join(', ')}`,
    {
      param: 'group',
    },
  );
}

/** A group as the console lists it to a user who may choose it. */
export function groupView(g: Group) {
  return {
    id: g.id,
    models: g.models === '*' ? ('*' as const) : [...g.models].sort(),
    discount_percent: g.discountPercent,
    rpm_limit: g.limits.rpm,
    tpm_limit: g.limits.tpm,
    concurrency_limit: g.limits.concurrency,
  };
}
