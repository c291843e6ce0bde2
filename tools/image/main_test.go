package main

import (
	"archive/tar"
	"encoding/binary"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

// elf returns a minimal 64-bit little-endian ELF executable whose program
// headers have the given types (3 is PT_INTERP: dynamically linked).
func elf(types ...uint32) []byte {
	b := make([]byte, 64+56*len(types))
	copy(b, "\x7fELF")
	b[4], b[5], b[6] = 2, 1, 1
	binary.LittleEndian.PutUint16(b[16:], 2)  // ET_EXEC
	binary.LittleEndian.PutUint64(b[32:], 64) // e_phoff
	binary.LittleEndian.PutUint16(b[54:], 56) // e_phentsize
	binary.LittleEndian.PutUint16(b[56:], uint16(len(types)))
	for i, t := range types {
		binary.LittleEndian.PutUint32(b[64+56*i:], t)
	}
	return b
}

func TestIsStaticELF(t *testing.T) {
	for _, tc := range []struct {
		name string
		b    []byte
		want bool
	}{
		{"static", elf(1, 1), true},
		{"dynamic", elf(1, 3, 1), false},
		{"script", []byte("#!/bin/sh\necho hi\n" + strings.Repeat(" ", 64)), false},
		{"short", []byte("\x7fELF"), false},
		{"truncated program headers", elf(1, 1)[:80], false},
	} {
		if got := isStaticELF(tc.b); got != tc.want {
			t.Errorf("%s: isStaticELF = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestBuildWritesALoadableImage(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "goslap")
	ca := filepath.Join(dir, "ca.crt")
	if err := os.WriteFile(bin, elf(1), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ca, []byte("-----BEGIN CERTIFICATE-----\nfake\n-----END CERTIFICATE-----\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	o := options{binary: bin, caCerts: ca, tag: "goslap:test", out: filepath.Join(dir, "img.tar"), arch: "amd64", created: time.Unix(0, 0).UTC()}
	digest, err := build(o)
	if err != nil {
		t.Fatal(err)
	}
	img, err := tarball.ImageFromPath(o.out, nil)
	if err != nil {
		t.Fatalf("the tarball does not load: %v", err)
	}
	if d, _ := img.Digest(); d != digest {
		t.Errorf("digest read back %v, build said %v", d, digest)
	}
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	if cf.Config.User != "65532:65532" || strings.Join(cf.Config.Entrypoint, " ") != "/goslap" || cf.OS != "linux" || cf.Architecture != "amd64" {
		t.Errorf("config: user %q entrypoint %q os %q arch %q", cf.Config.User, cf.Config.Entrypoint, cf.OS, cf.Architecture)
	}
	// The same inputs give the same image (fixed timestamps).
	o2 := o
	o2.out = filepath.Join(dir, "img2.tar")
	if d2, err := build(o2); err != nil || d2 != digest {
		t.Errorf("a second build gave %v, %v; want the same digest %v", d2, err, digest)
	}
	layers, err := img.Layers()
	if err != nil || len(layers) != 1 {
		t.Fatalf("layers: %d, %v", len(layers), err)
	}
	rc, err := layers[0].Uncompressed()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	files := map[string]*tar.Header{}
	contents := map[string]string{}
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		files[h.Name] = h
		b, _ := io.ReadAll(tr)
		contents[h.Name] = string(b)
	}
	for _, want := range []string{"goslap", "etc/ssl/certs/ca-certificates.crt", "etc/passwd", "etc/group", "tmp/", "home/nonroot/"} {
		if files[want] == nil {
			t.Errorf("the layer has no %s", want)
		}
	}
	for _, shell := range []string{"bin/sh", "bin/", "usr/"} {
		if files[shell] != nil {
			t.Errorf("the layer has %s: the image should hold no shell", shell)
		}
	}
	if h := files["goslap"]; h != nil && h.Mode&0o111 == 0 {
		t.Errorf("goslap mode %o: not executable", h.Mode)
	}
	if h := files["home/nonroot/"]; h != nil && h.Uid != 65532 {
		t.Errorf("home owned by %d, want 65532", h.Uid)
	}
	if !strings.Contains(contents["etc/passwd"], "nonroot:x:65532:65532:") {
		t.Errorf("passwd lacks the non-root user: %q", contents["etc/passwd"])
	}
}

func TestBuildRefusesWhatWouldNotRun(t *testing.T) {
	dir := t.TempDir()
	ca := filepath.Join(dir, "ca.crt")
	os.WriteFile(ca, []byte("x"), 0o644)
	dyn := filepath.Join(dir, "dynamic")
	os.WriteFile(dyn, elf(3), 0o755)
	static := filepath.Join(dir, "static")
	os.WriteFile(static, elf(1), 0o755)
	for _, tc := range []struct {
		name string
		o    options
		want string
	}{
		{"dynamic binary", options{binary: dyn, caCerts: ca, tag: "goslap:x"}, "not a static ELF"},
		{"missing binary", options{binary: filepath.Join(dir, "nope"), caCerts: ca, tag: "goslap:x"}, "run make build first"},
		{"missing CA bundle", options{binary: static, caCerts: filepath.Join(dir, "nope"), tag: "goslap:x"}, "ca-certificates"},
		{"bad tag", options{binary: static, caCerts: ca, tag: "Goslap:::"}, "image tag"},
	} {
		tc.o.out = filepath.Join(dir, tc.name+".tar")
		_, err := build(tc.o)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one saying %q", tc.name, err, tc.want)
		}
		if _, statErr := os.Stat(tc.o.out); statErr == nil {
			t.Errorf("%s: a tarball was written", tc.name)
		}
	}
}
