/**
 * One principal's share of a slot pool (`max_concurrent_per_principal` of an upstream or of `scripts`): the
 * configured value, else half the slots rounded up (at least 1, at most `defaultCap`). A default equal to the
 * pool let one tenant hold every slot while another waited (an upstream's four 15 s calls held its four slots
 * and another tenant's quick call waited 14.1 s); half leaves the other half to everyone else. At most the pool
 * either way.
 */
export function perPrincipalSlots(
  configured: number | undefined,
  maxConcurrent: number,
  defaultCap: number,
): number {
  const share = configured ?? Math.min(defaultCap, Math.max(1, Math.ceil(maxConcurrent / 2)));
  return Math.min(share, maxConcurrent);
}
