# One image for the three services (docker-compose.yml picks the entry point per service).
# No build step: the services run their TypeScript through tsx, as `npm start` does.
FROM node:20-bookworm-slim
WORKDIR /app
# Manifests first, so the dependency layer is rebuilt only when they change.
COPY package.json package-lock.json .npmrc ./
COPY libs/config/package.json libs/config/
COPY libs/contracts/package.json libs/contracts/
COPY libs/core/package.json libs/core/
COPY libs/runtime/package.json libs/runtime/
COPY libs/store/package.json libs/store/
COPY services/ingest/package.json services/ingest/
COPY services/compactor/package.json services/compactor/
COPY services/query/package.json services/query/
COPY tools/cli/package.json tools/cli/
# tsx is a devDependency and is needed at run time: install everything.
RUN npm install --no-audit --no-fund --loglevel=warn
COPY . .
USER node
ENV HOST=0.0.0.0
CMD ["node", "--import", "tsx", "services/query/src/main.ts"]
