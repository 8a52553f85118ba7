# The standalone stdio mode in a container: `docker compose run --rm -T router`
# serves `mcp-router stdio` on stdin/stdout. See docs/docker.md.
# The base images are arguments so a machine without a registry can build
# from images of its own (scripts/test-image.sh, docs/docker.md).
ARG GO_IMAGE=golang:1.26-bookworm
ARG BASE_IMAGE=debian:bookworm-slim
FROM ${GO_IMAGE} AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# nogui leaves out the desktop window: no GTK or WebKit in the image. Pure Go
# (modernc SQLite, docs/data.md): a static binary, as in the headless archives.
ARG VERSION=dev
RUN CGO_ENABLED=0 go build -tags nogui -trimpath \
    -ldflags "-s -w -X github.com/mcp-router/mcp-router/backend/core.Version=${VERSION}" -o /out/mcp-router .

FROM ${BASE_IMAGE}
# Node.js and npm so upstreams started with npx work inside the container.
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates nodejs npm \
 && rm -rf /var/lib/apt/lists/*
COPY --from=build /out/mcp-router /usr/local/bin/mcp-router
# Not root: the data dir on the host stays the user's (docker-compose.yml runs
# the container as the host user; 1000 here is the default). /data holds
# secrets (servers' env and header values, logins), so it is the user's only
# (0700; a named volume starts with this mode, and the router makes a mounted
# dir 0700 at open). Gate init files (docs/gate.md) are read from /init, a
# mounted folder: point --init-arg-file at /init/<file>.
RUN useradd --uid 1000 --create-home --home-dir /home/mcp mcp \
 && install -d -o mcp -g mcp -m 0700 /data \
 && install -d -o mcp -g mcp -m 0755 /init
USER 1000:1000
ENV MCP_ROUTER_DATA_DIR=/data
VOLUME /data
ENTRYPOINT ["mcp-router"]
CMD ["stdio"]
