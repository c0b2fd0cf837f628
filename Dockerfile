# The Plant Store service. Build from the repository root: docker build -t plant-store .
# Node 24 LTS, the line development and CI run on (the root devDependency `node`). better-sqlite3 13 ships prebuilt
# Node-API binaries, so no compiler is needed in either stage.
#
# The build stage installs and compiles the whole workspace, then `pnpm deploy --prod` gathers the server into
# /deploy with only its production dependencies (no TypeScript, test tools or sources; the contract package with its
# compiled code and openapi.yaml, the core package with its compiled code). The runtime stage holds that folder and
# nothing else from the build.
# packages/server/test/deploy-folder.package.test.ts runs the same deploy command and starts the service from its
# output, since these machines have no Docker.
FROM node:24-bookworm-slim AS build
WORKDIR /src
COPY . .
# Installing runs the root `prepare` script, which compiles every package to its dist/.
RUN npx -y pnpm@10.34.9 install --frozen-lockfile
RUN npx -y pnpm@10.34.9 --filter @plant-store/server deploy --prod --legacy --ignore-scripts /deploy

FROM node:24-bookworm-slim
# tini as PID 1: passes SIGTERM and SIGINT on to the service (which drains in-flight requests, see server.ts) and
# reaps the worker processes of `serve --workers`.
RUN apt-get update && apt-get install -y --no-install-recommends tini && rm -rf /var/lib/apt/lists/*
WORKDIR /app
# METRICS_HOST=0.0.0.0: Prometheus scrapes from another container; publish 9464 only to the monitoring network.
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000 METRICS_HOST=0.0.0.0 METRICS_PORT=9464 \
    DATABASE_URL=sqlite:/data/plant-store.db
# Owned by root and read-only to the service's user: the code cannot be changed by the process running it.
COPY --from=build /deploy /app
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME /data
EXPOSE 3000 9464
HEALTHCHECK --interval=10s --timeout=2s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
ENTRYPOINT ["tini", "--", "node", "bin/plant-store.js"]
CMD ["serve"]
