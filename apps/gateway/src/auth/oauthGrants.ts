/** One grant of auth.oauth.grants: skills given by a scope, or by a claim's value. */
export type OAuthGrant =
  | { readonly scope: string; readonly skills: readonly string[] }
  | {
      readonly claim: { readonly name: string; readonly value: string | number | boolean };
      readonly skills: readonly string[];
    };

// A claim matches when it equals the value, or is an array holding it (groups, roles).
const claimMatches = (claim: unknown, value: string | number | boolean): boolean =>
  Array.isArray(claim) ? claim.includes(value) : claim === value;

/**
 * The skills a token's scopes and claims earn: the union of every matching grant, sorted and without
 * duplicates (so equal grant sets give equal principals); none matched, none.
 */
export function skillsFromGrants(
  grants: readonly OAuthGrant[],
  scopes: readonly string[],
  claims: Readonly<Record<string, unknown>>,
): readonly string[] {
  const skills = new Set<string>();
  for (const grant of grants) {
    const matched =
      'scope' in grant
        ? scopes.includes(grant.scope)
        : claimMatches(claims[grant.claim.name], grant.claim.value);
    if (matched) for (const skill of grant.skills) skills.add(skill);
  }
  return Object.freeze([...skills].sort());
}
