// Package kubernetes holds the Kubernetes recipe for sharded runs; its test
// decodes every manifest strictly into Kubernetes' own types, so a typo in
// a field name or a value of the wrong type fails `make test` instead of a
// user's `kubectl apply`.
package kubernetes

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// decodeStrict decodes one YAML document into the type its kind names,
// refusing unknown and duplicate fields.
func decodeStrict(doc []byte) (any, error) {
	var tm metav1.TypeMeta
	if err := yaml.Unmarshal(doc, &tm); err != nil {
		return nil, err
	}
	var obj any
	switch tm.APIVersion + " " + tm.Kind {
	case "batch/v1 Job":
		obj = &batchv1.Job{}
	case "v1 Secret":
		obj = &corev1.Secret{}
	case "v1 Service":
		obj = &corev1.Service{}
	case "v1 ConfigMap":
		obj = &corev1.ConfigMap{}
	default:
		return nil, &unknownKind{tm.APIVersion, tm.Kind}
	}
	return obj, yaml.UnmarshalStrict(doc, obj)
}

type unknownKind struct{ apiVersion, kind string }

func (u *unknownKind) Error() string {
	return "no decoder for apiVersion " + u.apiVersion + " kind " + u.kind + ": add it to decodeStrict"
}

func manifests(t *testing.T) map[string][][]byte {
	paths, err := filepath.Glob("*.yaml")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no manifests found (%v)", err)
	}
	out := map[string][][]byte{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, doc := range bytes.Split(b, []byte("\n---")) {
			if len(bytes.TrimSpace(stripComments(doc))) > 0 {
				out[p] = append(out[p], doc)
			}
		}
	}
	return out
}

func stripComments(doc []byte) []byte {
	var keep [][]byte
	for _, line := range bytes.Split(doc, []byte("\n")) {
		if !bytes.HasPrefix(bytes.TrimSpace(line), []byte("#")) {
			keep = append(keep, line)
		}
	}
	return bytes.Join(keep, []byte("\n"))
}

func TestManifestsDecodeStrictly(t *testing.T) {
	for path, docs := range manifests(t) {
		for i, doc := range docs {
			obj, err := decodeStrict(doc)
			if err != nil {
				t.Errorf("%s document %d: %v", path, i+1, err)
				continue
			}
			job, ok := obj.(*batchv1.Job)
			if !ok {
				continue
			}
			checkShardJob(t, path, job)
		}
	}
}

// checkShardJob checks what the recipe's comments promise: an Indexed Job
// whose completions, parallelism and --shard=auto/N agree, that is not
// re-run mid-measurement, and whose container runs the image `make image`
// builds as a non-root user.
func checkShardJob(t *testing.T, path string, job *batchv1.Job) {
	spec := job.Spec
	if spec.CompletionMode == nil || *spec.CompletionMode != batchv1.IndexedCompletion {
		t.Errorf("%s: job %s is not an Indexed Job", path, job.Name)
	}
	if spec.Completions == nil || spec.Parallelism == nil || *spec.Completions != *spec.Parallelism {
		t.Errorf("%s: completions and parallelism must be set and equal", path)
		return
	}
	if spec.BackoffLimit == nil || *spec.BackoffLimit != 0 {
		t.Errorf("%s: backoffLimit must be 0 (a failed shard is not re-run mid-measurement)", path)
	}
	if len(spec.Template.Spec.Containers) != 1 {
		t.Fatalf("%s: want one container, have %d", path, len(spec.Template.Spec.Containers))
	}
	c := spec.Template.Spec.Containers[0]
	shard := ""
	for _, a := range c.Args {
		if v, ok := strings.CutPrefix(a, "--shard="); ok {
			shard = v
		}
	}
	if want := "auto/" + itoa(*spec.Completions); shard != want {
		t.Errorf("%s: --shard=%s, want %s to match completions", path, shard, want)
	}
	sc := c.SecurityContext
	if sc == nil || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot {
		t.Errorf("%s: the container should set securityContext.runAsNonRoot (the image's user is 65532)", path)
	}
	if c.Image == "" {
		t.Errorf("%s: the container names no image", path)
	}
}

func itoa(n int32) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}

// TestDecodeStrictRefusesTypos shows the check can fail: a misspelt field
// and a wrongly typed value are errors.
func TestDecodeStrictRefusesTypos(t *testing.T) {
	for _, doc := range []string{
		"apiVersion: batch/v1\nkind: Job\nspec:\n  completionz: 4\n",
		"apiVersion: batch/v1\nkind: Job\nspec:\n  completions: four\n",
		"apiVersion: batch/v1\nkind: Job\nspec:\n  template:\n    spec:\n      containers:\n        - name: x\n          imagePullPolicy: Always\n          argz: [a]\n",
		"apiVersion: v1\nkind: Pod\n",
	} {
		if _, err := decodeStrict([]byte(doc)); err == nil {
			t.Errorf("accepted:\n%s", doc)
		}
	}
}
