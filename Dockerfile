# Steward in production: `docker build -t steward .` then see docs/deploy.md and compose.yaml.
# Stage 1 installs every dependency and builds the Next.js app; stage 2 keeps only what runs.

FROM node:22-bookworm-slim AS build
WORKDIR /app
ENV NEXT_TELEMETRY_DISABLED=1
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npx next build

FROM node:22-bookworm-slim AS runtime
# Debian's Chromium drives each user's workspace browser (STEWARD_CHROMIUM_PATH=/usr/bin/chromium);
# tini reaps Chromium's children and forwards SIGTERM so shutdown is graceful.
RUN apt-get update \
  && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium fonts-liberation tini ca-certificates bubblewrap python3 git curl jq \
  && rm -rf /var/lib/apt/lists/*
WORKDIR /app
ENV NODE_ENV=production NEXT_TELEMETRY_DISABLED=1 PORT=3000 HOST=0.0.0.0 \
    STEWARD_DATA_DIR=/data STEWARD_CHROMIUM_PATH=/usr/bin/chromium
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/.next ./.next
COPY --from=build /app/app ./app
COPY --from=build /app/server ./server
COPY --from=build /app/db ./db
COPY --from=build /app/inngest ./inngest
COPY --from=build /app/scripts ./scripts
COPY --from=build /app/next.config.ts /app/tsconfig.json /app/proxy.ts ./
# An unprivileged user owns only the data folder (files, workspace profiles); the code is read-only to it.
# /data/workspaces exists in the image so a volume mounted there (compose.yaml's shared one) starts owned by it.
RUN groupadd --system steward && useradd --system --gid steward --home-dir /data --shell /usr/sbin/nologin steward \
  && mkdir -p /data/workspaces && chown -R steward:steward /data
USER steward
VOLUME ["/data"]
EXPOSE 3000
HEALTHCHECK --interval=15s --timeout=3s --start-period=60s CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/api/ready').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "--import", "tsx", "scripts/start.ts"]
