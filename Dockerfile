# mgedump as a container image (the README's Kubernetes example runs it). The build
# stage makes the Debian packages from this repository on Debian 12 (tools/setup.sh,
# a Release build, cpack); the runtime stage is Debian 12 slim with only the mgedump
# package installed, apt bringing the shared libraries its Depends name.
#   docker build -t registry.example.com/mgedump:latest .
#   docker run --rm -v "$PWD:/data" registry.example.com/mgedump:latest dump /data/g.json -o /data/g.mge
# tools/container_test.sh runs these same steps in debootstrapped Debian roots.
FROM debian:bookworm AS build
WORKDIR /src
COPY tools/setup.sh tools/setup.sh
RUN bash tools/setup.sh && rm -rf /var/lib/apt/lists/*
COPY . .
RUN cmake -S . -B /build -G Ninja -DCMAKE_BUILD_TYPE=Release -DMGEDUMP_BUILD_TESTS=OFF -DMGEDUMP_BUILD_BENCH=OFF \
      -DMGEDUMP_BUILD_PYTHON=OFF && \
    cmake --build /build && \
    cd /build && cpack -G DEB -B /deb

FROM debian:bookworm-slim
COPY --from=build /deb/mgedump_*_amd64.deb /tmp/
RUN apt-get update && \
    apt-get install -y --no-install-recommends /tmp/mgedump_*_amd64.deb && \
    rm -rf /var/lib/apt/lists/* /tmp/*.deb
WORKDIR /data
ENTRYPOINT ["mgedump"]
CMD ["--help"]
