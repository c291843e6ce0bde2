# goslap's container image, for a machine with a container daemon and a
# registry at hand (`make image` builds the same image offline, without a
# daemon). Multi-stage: a static binary (no cgo) on distroless' static
# base, which holds CA certificates for TLS, the non-root user 65532 and no
# shell.
#   docker build -t goslap:latest .
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/goslap .

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/goslap /goslap
USER 65532:65532
ENTRYPOINT ["/goslap"]
