# The standalone stdio mode in a container: `docker compose run --rm -T router`
# serves `mcp-router stdio` on stdin/stdout. See docs/docker.md.
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# nogui leaves out the desktop window: no GTK or WebKit in the image.
RUN CGO_ENABLED=1 go build -tags nogui -trimpath -ldflags "-s -w" -o /out/mcp-router .

FROM debian:bookworm-slim
# Node.js and npm so upstreams started with npx work inside the container.
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates nodejs npm \
 && rm -rf /var/lib/apt/lists/*
COPY --from=build /out/mcp-router /usr/local/bin/mcp-router
ENV MCP_ROUTER_DATA_DIR=/data
VOLUME /data
ENTRYPOINT ["mcp-router"]
CMD ["stdio"]
