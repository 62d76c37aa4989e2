/** The CLI's help text: every command and its options. */
export const USAGE = `Usage: skillgate <command> [options]

Commands:
  serve     [ROOT...] [--config FILE] [--host H] [--port N]  run the gateway
  validate  [ROOT...] [--config FILE] [--strict]       report every skill problem; exit 1 on errors
  metadata  [ROOT...] [--config FILE] [--format markdown|json|xml]  print the L1 skill summary
  tools     [ROOT...] [--config FILE] [--token NAME] [--unlock SKILL...] [--disclosure MODE] [--json]
                                                      print the tool list a session would see, of every skill or
                                                      of what token NAME (or anonymous) may use (connects to the
                                                      upstreams, so --unlock shows their call tools)
  search    [ROOT...] [--config FILE] [--token NAME] [--limit N] [--json] QUERY
                                                      rank the skills (of token NAME) for QUERY as search_skills
                                                      does: check that a description is findable
  skills    [ROOT...] [--config FILE] [--token NAME] [--json]
                                                      print the Skills extension entries (digests) hosts verify,
                                                      all of them or what token NAME (or anonymous) may see
  upstreams [--config FILE] [--json]                  connect to each upstream MCP server; print its state and
                                                      tools (exit 1 when one is down)
  connections [--config FILE] [--principal P] [--revoke PROVIDER] [--json]
                                                      each principal's stored connections (provider, state,
                                                      expiry; never a value), or --revoke deletes P's (revoked
                                                      at the provider where it offers it); P: a token name or
                                                      oauth:<issuer>#<sub>
  sources   [check | upgrade [ID...] | sync] [--config FILE] [--json]
                                                      each git/archive source's pin, digest and whether its
                                                      remote ref moved; check exits 2 when one moved; upgrade
                                                      re-resolves and rewrites the lock; sync fetches exactly
                                                      the lock (image builds, air-gapped starts)

ROOT... are skill folders (each holding one folder per skill); given, they replace skills.roots.
`;

/** A mistake in the command line: printed with the usage text, exit code 2. */
export class UsageError extends Error {}
