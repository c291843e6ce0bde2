package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var (
	mdLink  = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	heading = regexp.MustCompile("^#{1,6} +(.*)$")
)

// anchors are the GitHub anchors of a Markdown file's headings: lower case,
// punctuation dropped but for - and _, spaces as -, repeats numbered.
func anchors(text string) map[string]bool {
	out := map[string]bool{}
	count := map[string]int{}
	fence := false
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, "```") {
			fence = !fence
		}
		m := heading.FindStringSubmatch(l)
		if fence || m == nil {
			continue
		}
		var b strings.Builder
		for _, r := range strings.ToLower(m[1]) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127:
				b.WriteRune(r)
			}
		}
		a := b.String()
		if n := count[a]; n > 0 {
			out[a+"-"+strconv(n)] = true
		} else {
			out[a] = true
		}
		count[a]++
	}
	return out
}

func strconv(n int) string { return string(rune('0' + n)) }

// TestDocLinks: every relative link of README.md, BENCHMARKS.md and docs/
// names a file that exists, and its #anchor a heading of that file.
func TestDocLinks(t *testing.T) {
	root, err := repoRoot()
	if err != nil {
		t.Fatal(err)
	}
	files, err := docFiles(root)
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, filepath.Join(root, "BENCHMARKS.md"))
	checked := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range mdLink.FindAllStringSubmatch(string(data), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			checked++
			path, frag, _ := strings.Cut(target, "#")
			dest := f
			if path != "" {
				dest = filepath.Join(filepath.Dir(f), path)
			}
			if _, err := os.Stat(dest); err != nil {
				t.Errorf("%s: link %s: %v", f, target, err)
				continue
			}
			if frag == "" {
				continue
			}
			body, err := os.ReadFile(dest)
			if err != nil {
				t.Errorf("%s: link %s: %v", f, target, err)
				continue
			}
			if !anchors(string(body))[frag] {
				t.Errorf("%s: link %s: no heading with anchor #%s in %s", f, target, frag, dest)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no relative links found: the link pattern is broken")
	}
}

func TestAnchors(t *testing.T) {
	a := anchors("# Workloads beyond mysqlslap (`--workload`)\n## Data safety\n## Data safety\n```\n# not a heading\n```\n")
	for _, want := range []string{"workloads-beyond-mysqlslap---workload", "data-safety", "data-safety-1"} {
		if !a[want] {
			t.Errorf("anchor %q missing from %v", want, a)
		}
	}
	if a["not-a-heading"] {
		t.Error("a comment in a fence taken for a heading")
	}
}
