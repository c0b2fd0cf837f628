# The Plant Store service. Build from the repository root: docker build -t plant-store .
# Node 24 LTS, the line development and CI run on (the root devDependency `node`). better-sqlite3 13 ships prebuilt
# Node-API binaries, so no compiler is needed in either stage.
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY . .
# Installing runs the root `prepare` script, which compiles the server to packages/server/dist.
RUN npx -y pnpm@10.34.9 install --frozen-lockfile

FROM node:24-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000 DATABASE_URL=sqlite:/data/plant-store.db
COPY --from=build /app /app
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME /data
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=2s CMD node -e "fetch('http://127.0.0.1:3000/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
ENTRYPOINT ["node", "packages/server/bin/plant-store.js"]
CMD ["serve"]
