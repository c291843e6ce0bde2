// Command image builds goslap's container image as a tarball, offline and
// without a container daemon: one layer holding the static goslap binary, CA
// certificates for TLS connections and a non-root user, on no base image (so
// no shell). The tarball loads with `docker load -i` or `podman load -i` and
// pushes with `crane push FILE REF`. `make image` runs it; the Dockerfile at
// the repository root builds the same image where a daemon and a registry
// are at hand.
//
// go-containerregistry writes the image: it is the library crane, ko and
// kaniko build images with, needs no daemon, and writes the docker-save
// tarball layout that both docker and podman load.
package main

import (
	"archive/tar"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

// The user the image runs as: distroless' "nonroot" numbers, so the image
// and the Dockerfile's (distroless base) agree and a Pod's
// runAsNonRoot check passes on the numeric id.
const (
	uid      = 65532
	userName = "nonroot"
	home     = "/home/nonroot"
)

type options struct {
	binary  string // the static goslap binary
	caCerts string // the CA bundle copied to /etc/ssl/certs/ca-certificates.crt
	tag     string // the image reference recorded in the tarball
	out     string // the tarball written
	arch    string // GOARCH of the binary
	created time.Time
}

func main() {
	var o options
	flag.StringVar(&o.binary, "binary", "goslap", "the static goslap binary (CGO_ENABLED=0)")
	flag.StringVar(&o.caCerts, "ca-certificates", "/etc/ssl/certs/ca-certificates.crt", "the CA bundle for TLS")
	flag.StringVar(&o.tag, "tag", "goslap:latest", "the image reference in the tarball")
	flag.StringVar(&o.out, "o", "goslap-image.tar", "the tarball to write")
	flag.StringVar(&o.arch, "arch", runtime.GOARCH, "the binary's architecture")
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "image: unexpected argument %q\n", flag.Arg(0))
		os.Exit(2)
	}
	// SOURCE_DATE_EPOCH (reproducible-builds.org) fixes the timestamps;
	// without it they are the epoch, so the same binary gives the same digest.
	o.created = time.Unix(0, 0).UTC()
	if s := os.Getenv("SOURCE_DATE_EPOCH"); s != "" {
		var sec int64
		if _, err := fmt.Sscan(s, &sec); err != nil {
			fmt.Fprintf(os.Stderr, "image: SOURCE_DATE_EPOCH=%q is not a number of seconds\n", s)
			os.Exit(2)
		}
		o.created = time.Unix(sec, 0).UTC()
	}
	digest, err := build(o)
	if err != nil {
		fmt.Fprintf(os.Stderr, "image: %v\n", err)
		os.Exit(1)
	}
	fmt.Printf("%s: %s %s (load: docker load -i %s; push: crane push %s REGISTRY/goslap:TAG)\n", o.out, o.tag, digest, o.out, o.out)
}

// build writes the image tarball and returns the image's digest.
func build(o options) (v1.Hash, error) {
	bin, err := os.ReadFile(o.binary)
	if err != nil {
		return v1.Hash{}, fmt.Errorf("reading the goslap binary: %w (run make build first)", err)
	}
	if !isStaticELF(bin) {
		return v1.Hash{}, fmt.Errorf("%s is not a static ELF executable: an image without a base has no libc (build with CGO_ENABLED=0)", o.binary)
	}
	ca, err := os.ReadFile(o.caCerts)
	if err != nil {
		return v1.Hash{}, fmt.Errorf("reading the CA certificates: %w (Debian: apt-get install ca-certificates)", err)
	}
	ref, err := name.NewTag(o.tag)
	if err != nil {
		return v1.Hash{}, fmt.Errorf("image tag %q: %w", o.tag, err)
	}
	layerTar, err := rootfs(o, bin, ca)
	if err != nil {
		return v1.Hash{}, err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(layerTar)), nil
	})
	if err != nil {
		return v1.Hash{}, err
	}
	img, err := mutate.AppendLayers(empty.Image, layer)
	if err != nil {
		return v1.Hash{}, err
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return v1.Hash{}, err
	}
	cf = cf.DeepCopy()
	cf.OS = "linux"
	cf.Architecture = o.arch
	cf.Created = v1.Time{Time: o.created}
	cf.Config.Entrypoint = []string{"/goslap"}
	cf.Config.User = fmt.Sprintf("%d:%d", uid, uid)
	cf.Config.WorkingDir = home
	cf.Config.Env = []string{"PATH=/", "SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt"}
	cf.Config.Labels = map[string]string{
		"org.opencontainers.image.title":       "goslap",
		"org.opencontainers.image.description": "a load emulator for MySQL and MariaDB",
	}
	img, err = mutate.ConfigFile(img, cf)
	if err != nil {
		return v1.Hash{}, err
	}
	img, err = mutate.CreatedAt(img, v1.Time{Time: o.created})
	if err != nil {
		return v1.Hash{}, err
	}
	if err := tarball.WriteToFile(o.out, ref, img); err != nil {
		return v1.Hash{}, fmt.Errorf("writing %s: %w", o.out, err)
	}
	return img.Digest()
}

// rootfs is the image's one layer: the binary, the CA bundle, the user and
// group files a non-root user needs, its home and a /tmp.
func rootfs(o options, bin, ca []byte) ([]byte, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	dir := func(path string, mode int64, owner int) error {
		return tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: path + "/", Mode: mode, Uid: owner, Gid: owner, ModTime: o.created})
	}
	file := func(path string, mode int64, data []byte) error {
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: path, Mode: mode, Size: int64(len(data)), ModTime: o.created}); err != nil {
			return err
		}
		_, err := tw.Write(data)
		return err
	}
	passwd := fmt.Sprintf("root:x:0:0:root:/root:/sbin/nologin\n%s:x:%d:%d:%s:%s:/sbin/nologin\n", userName, uid, uid, userName, home)
	group := fmt.Sprintf("root:x:0:\n%s:x:%d:\n", userName, uid)
	steps := []error{
		dir("etc", 0o755, 0),
		file("etc/passwd", 0o644, []byte(passwd)),
		file("etc/group", 0o644, []byte(group)),
		dir("etc/ssl", 0o755, 0),
		dir("etc/ssl/certs", 0o755, 0),
		file("etc/ssl/certs/ca-certificates.crt", 0o644, ca),
		dir("home", 0o755, 0),
		dir(home[1:], 0o700, uid),
		dir("tmp", 0o1777, 0),
		file("goslap", 0o755, bin),
	}
	if err := errors.Join(steps...); err != nil {
		return nil, err
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// isStaticELF tells an ELF executable without a program interpreter (a
// static binary) from a dynamically linked one, which would not start in an
// image without libc.
func isStaticELF(b []byte) bool {
	if len(b) < 64 || !bytes.Equal(b[:4], []byte("\x7fELF")) || b[4] != 2 || b[5] != 1 {
		return false // not a 64-bit little-endian ELF
	}
	le := func(p []byte) uint64 {
		var v uint64
		for i := len(p) - 1; i >= 0; i-- {
			v = v<<8 | uint64(p[i])
		}
		return v
	}
	phoff, phentsize, phnum := le(b[32:40]), le(b[54:56]), le(b[56:58])
	for i := uint64(0); i < phnum; i++ {
		off := phoff + i*phentsize
		if off+4 > uint64(len(b)) {
			return false
		}
		if le(b[off:off+4]) == 3 { // PT_INTERP
			return false
		}
	}
	return true
}
