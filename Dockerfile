# Grid member image. Build: docker build -t grid:0.1.0 .   Run: docker run -p 5701:5701 grid:0.1.0
# Three stages: `build` compiles TypeScript with every dependency, `deps` installs only the
# production dependencies, and the runtime image gets those plus dist/, bin/ and config/.
# docs/deployment.md explains each choice; test/unit/deployment.test.ts checks that these
# commands still match package.json.

# Node.js major version (package.json engines: >=20.15). `-slim` is Debian with glibc, whose
# resolver handles the search domains of Kubernetes and Docker DNS like any other Linux.
ARG NODE_VERSION=22

FROM node:${NODE_VERSION}-slim AS build
WORKDIR /src
# --ignore-scripts: package.json's `prepare` builds, and the sources are not copied yet.
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY console ./console
COPY scripts/build-console.mjs ./scripts/
RUN npm run build

FROM node:${NODE_VERSION}-slim AS deps
WORKDIR /opt/grid
COPY package.json package-lock.json ./
# Production dependencies only; none of them has an install script, and `prepare` needs tsc.
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force

FROM node:${NODE_VERSION}-slim
ENV NODE_ENV=production \
    GRID_CONFIG=/opt/grid/config/container.yaml
WORKDIR /opt/grid
# Owned by root and read-only for the member: only /var/lib/grid (persistence) is writable.
COPY --from=deps /opt/grid/node_modules ./node_modules
COPY package.json LICENSE ./
COPY bin ./bin
COPY config ./config
COPY --from=build /src/dist ./dist
RUN mkdir -p /var/lib/grid && chown 1000:1000 /var/lib/grid
# The `node` user of the base image, by number so that Kubernetes' runAsNonRoot can check it.
USER 1000:1000
# Member protocol and REST share this port (config/container.yaml).
EXPOSE 5701
# The image has no curl or wget: node asks the readiness path. Another port or path: set
# GRID_HEALTHCHECK_URL; an https:// one checks the certificate against GRID_HEALTHCHECK_CACERT
# when set (else, like the kubelet's probes, not) and shows GRID_HEALTHCHECK_CERT/KEY if given.
HEALTHCHECK --interval=10s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "const e = process.env, u = e.GRID_HEALTHCHECK_URL || 'http://127.0.0.1:5701/hazelcast/health/ready', f = (n) => n && require('fs').readFileSync(n); require(u.startsWith('https:') ? 'https' : 'http').get(u, { timeout: 4000, rejectUnauthorized: !!e.GRID_HEALTHCHECK_CACERT, ca: f(e.GRID_HEALTHCHECK_CACERT), cert: f(e.GRID_HEALTHCHECK_CERT), key: f(e.GRID_HEALTHCHECK_KEY) }, (r) => process.exit(r.statusCode === 200 ? 0 : 1)).on('error', () => process.exit(1)).on('timeout', () => process.exit(1))"]
# SIGTERM (docker stop) makes the member leave gracefully: it hands its partitions over first.
STOPSIGNAL SIGTERM
# node itself is PID 1 (no shell, no npm), so it receives the signal.
ENTRYPOINT ["node", "/opt/grid/bin/grid.js"]
CMD ["start"]
