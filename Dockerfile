# syntax=docker/dockerfile:1
# skillgate: MCP gateway for Agent Skills. Build: docker build -t skillgate .
# Run:   docker run -p 3000:3000 -e SKILLGATE_TOKEN=... -v $PWD/my-skills:/skills:ro \
#          --security-opt seccomp=unconfined --security-opt apparmor=unconfined \
#          --security-opt systempaths=unconfined skillgate
#        (the three --security-opt let bubblewrap sandbox scripts; the image's config says
#        scripts.sandbox: bwrap, so without them it stops at start with the reason: docs/sandbox.md)

FROM node:24-bookworm-slim AS build
WORKDIR /src
RUN npm install --global pnpm@10.34.8
COPY . .
# The same script scripts/image-smoke replays in CI (no Docker engine there).
RUN scripts/deploy-bundle /out

FROM node:24-bookworm-slim
# python3 and bash run the example skills' scripts; bubblewrap sandboxes them (scripts.sandbox, see
# docs/sandbox.md for the docker run flags it needs); tini is PID 1, so SIGTERM reaches node and orphaned
# script processes are reaped; git (and its CA certificates) fetches skills.sources (docs/sources.md).
RUN apt-get update \
 && apt-get install --yes --no-install-recommends python3 bubblewrap tini git ca-certificates \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY --from=build /out /app
COPY configs/docker.yaml /config/skillgate.yaml
COPY examples/skills /skills
ENV NODE_ENV=production SKILLGATE_CONFIG=/config/skillgate.yaml XDG_CACHE_HOME=/cache
RUN mkdir /cache && chown node /cache
USER node
# Skills from git and archives (skills.sources) are fetched into the image exactly as the lock file beside
# the config pins them, so the container starts with no access to their hosts (docs/sources.md); a config
# without sources makes this a no-op.
RUN node /app/dist/cli.js sources sync
EXPOSE 3000
HEALTHCHECK --interval=15s --timeout=3s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:3000/healthz').then(r => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["/usr/bin/tini", "--", "node", "/app/dist/cli.js"]
CMD ["serve"]
