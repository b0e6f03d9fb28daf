# dudo-server in a small image: built with the Rust toolchain the project uses, run on
# Debian slim as an unprivileged user. The browser page is already built (web/dist is
# committed), so the build needs no Node.
#
#   docker build -t dudo-server .
#   docker run -p 50051:50051 dudo-server
#
# See docs/deploy.md for the database, the flags and Kubernetes.

FROM rust:1.95-slim-bookworm AS build
WORKDIR /src
COPY . .
# The server profile (Cargo.toml): the whole program in one unit with thin LTO, as the
# server's load figures in BENCHMARKS.md are measured; slower to build than the release
# profile, which is tuned for a player's first build of dudo.
RUN cargo build --profile server --locked -p dudo-server \
 && cp target/server/dudo-server /dudo-server

FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10001 --home-dir /var/lib/dudo --create-home dudo
COPY --from=build /dudo-server /usr/local/bin/dudo-server
USER dudo
WORKDIR /var/lib/dudo
# The game's gRPC, gRPC-Web and the browser page on one port; Prometheus metrics on another.
EXPOSE 50051 9090
ENV DUDO_LISTEN=0.0.0.0:50051 \
    DUDO_METRICS_LISTEN=0.0.0.0:9090 \
    DUDO_HOME=/var/lib/dudo \
    DUDO_LOG_FORMAT=json
ENTRYPOINT ["/usr/local/bin/dudo-server"]
