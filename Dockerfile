# One image for the three services and the CLI (docker-compose.yml picks the command per service).
# Stages: the workspace manifests; the build (every dependency, `npm run build` compiles to dist/); the production
# dependencies alone (`npm ci --omit=dev`); the runtime image: those dependencies, the compiled JavaScript, no
# TypeScript and no dev tools, run by the unprivileged `node` user. docs/deploy.md says why.
# Node 24, the active LTS line, in every stage; package.json's engines (>=20.19) is what the code supports,
# and the tests run on Node 20 too.
FROM node:24-bookworm-slim AS manifests
WORKDIR /app
# Every workspace's package.json (test/build/dockerfile.test.ts checks none is missing): npm ci needs them all,
# and the dependency layers are rebuilt only when one of them or the lock file changes.
COPY package.json package-lock.json .npmrc ./
# npm ci runs the root's postinstall, patch-package, which applies patches/ to node_modules (kafkajs's record
# decoder: docs/benchmarks.md, "kafkajs without a BigInt per record").
COPY patches patches/
COPY apps/dashboard/package.json apps/dashboard/
COPY infra/package.json infra/
COPY libs/client/package.json libs/client/
COPY libs/config/package.json libs/config/
COPY libs/contracts/package.json libs/contracts/
COPY libs/core/package.json libs/core/
COPY libs/producer/package.json libs/producer/
COPY libs/read-tokens/package.json libs/read-tokens/
COPY libs/runtime/package.json libs/runtime/
COPY libs/store/package.json libs/store/
COPY libs/testkit/package.json libs/testkit/
COPY libs/workload/package.json libs/workload/
COPY services/compactor/package.json services/compactor/
COPY services/ingest/package.json services/ingest/
COPY services/query/package.json services/query/
COPY tools/cli/package.json tools/cli/

FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY --from=manifests /app ./
RUN npm ci --no-audit --no-fund --loglevel=warn
COPY . .
RUN npm run build

FROM node:24-bookworm-slim AS production-dependencies
WORKDIR /app
COPY --from=manifests /app ./
RUN npm ci --omit=dev --no-audit --no-fund --loglevel=warn

FROM node:24-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production HOST=0.0.0.0
COPY --from=production-dependencies /app ./
COPY --from=build /app/services/ingest/dist services/ingest/dist
COPY --from=build /app/services/compactor/dist services/compactor/dist
COPY --from=build /app/services/query/dist services/query/dist
COPY --from=build /app/tools/cli/dist tools/cli/dist
# The dashboard page the query service serves (@va/dashboard: index.js finds dist/ next to itself).
COPY --from=build /app/apps/dashboard/index.js apps/dashboard/
COPY --from=build /app/apps/dashboard/dist apps/dashboard/dist
# The topic set-up job of docker-compose.yml (`node infra/stack.mjs start`): plain Node, no dependencies.
COPY infra infra
USER node
EXPOSE 8080
CMD ["node", "--enable-source-maps", "services/query/dist/main.js"]
