# syntax=docker/dockerfile:1
#
# Hookline container image.
#
#   docker build -t hookline .
#   docker run --rm -p 8080:8080 \
#     -e KAFKA_BROKERS=kafka:9092 -e SCHEMA_REGISTRY_URL=http://schema-registry:8081 \
#     -e HOOKLINE_ADMIN_TOKEN=... -e HOOKLINE_SECRETS_KEY=... hookline
#
# The image never starts a local Kafka: set KAFKA_BROKERS and SCHEMA_REGISTRY_URL (together). It
# refuses to start (exit 2) without HOOKLINE_SECRETS_KEY (`openssl rand -base64 32`, the same key for
# every process, kept).
# One image serves every role; HOOKLINE_ROLES picks ingest, router and/or worker (all by default).

ARG NODE_IMAGE=node:24-bookworm-slim

# --- build: compile TypeScript to dist/ ---------------------------------------------------------
# The image holds the service only: the producer library (packages/producer, an npm workspace
# published as @hookline/producer) is neither copied nor installed, hence --workspaces=false.
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --workspaces=false --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

# --- deps: production dependencies only ---------------------------------------------------------
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --workspaces=false --no-audit --no-fund && npm cache clean --force

# --- runtime ------------------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    HOOKLINE_HTTP_PORT=8080 \
    KAFKAJS_NO_PARTITIONER_WARNING=1
WORKDIR /app
# Files stay owned by root and read-only to the app user: nothing under /app is written at run time,
# so the container also runs with a read-only root filesystem.
COPY package.json ./
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# The Avro schemas are read at run time from <repo root>/schemas, next to dist/.
COPY schemas ./schemas

# The one place written at run time, by the app user: the dead-letter index and the audience state
# (a volume in docker-compose; the chart mounts emptyDirs there). A new volume takes its owner.
RUN mkdir -p /var/lib/hookline && chown 1000:1000 /var/lib/hookline

# The `node` user of the base image, by number so that `runAsNonRoot` can verify it.
USER 1000:1000
EXPOSE 8080

# Liveness only (/healthz); readiness (/readyz) also checks Kafka and the schema registry and belongs
# to the orchestrator's readiness probe, not to a restart decision.
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.HOOKLINE_HTTP_PORT || 8080) + '/healthz', { signal: AbortSignal.timeout(4000) }).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]

# Node runs as PID 1 and handles SIGTERM itself: workers drain in-flight deliveries, then exit. With
# HOOKLINE_WORKERS > 1 (default `auto`: one process per CPU the container sees) PID 1 is the primary,
# which passes SIGTERM to its children and exits once they all have.
STOPSIGNAL SIGTERM
# V8 flags, the same as `npm run start:prod`'s (the processes of HOOKLINE_WORKERS inherit them):
# --max-semi-space-size=32 (MB; V8's default is 16 on Node 24 as on 20): V8's young generation is two semi-spaces;
# the larger they are, the fewer of a busy pipeline's short-lived objects live through two
# scavenges into the old generation. Draining a backlog took 64.5 µs of CPU per event with 32 MB
# against 90.5 with 8 MB, for ~45 MB more resident (peak 219 against 173 MB).
# --heap-growing-percent=50: the old generation is collected once it has grown by half its live
# size since the last full collection (V8 otherwise lets it grow 2-4x), which took ~80 MB off the
# RSS of a drain. Both re-measured on Node 24: docs/adr/0003-node-runtime.md.
# docs/deployment.md: what bounds memory and how to choose other values.
CMD ["node", "--max-semi-space-size=32", "--heap-growing-percent=50", "dist/src/process/main.js"]
