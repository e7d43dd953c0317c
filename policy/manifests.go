package policy

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

// ReadManifests reads YAML or JSON manifests (multi-document) from files, or
// from folders searched recursively.
func ReadManifests(paths ...string) ([]*unstructured.Unstructured, error) {
	var out []*unstructured.Unstructured
	for _, root := range paths {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			ext := strings.ToLower(filepath.Ext(p))
			if d.IsDir() || (ext != ".yaml" && ext != ".yml" && ext != ".json") {
				return nil
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			objs, err := DecodeManifests(p, data)
			out = append(out, objs...)
			return err
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// DecodeManifests decodes the documents of one YAML or JSON stream; name is
// used in errors.
func DecodeManifests(name string, data []byte) ([]*unstructured.Unstructured, error) {
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	var out []*unstructured.Unstructured
	for {
		var m map[string]any
		if err := dec.Decode(&m); errors.Is(err, io.EOF) {
			return out, nil
		} else if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if len(m) == 0 {
			continue
		}
		out = append(out, &unstructured.Unstructured{Object: m})
	}
}
