// Package history reads which api-versions the released modules of the Azure SDK for Go
// have sent for each ARM type: every stable release a pinned module's CHANGELOG.md lists
// (earlier major versions included), fetched through the Go module proxy, its clients'
// request builders read for their URL path and api-version. A type's versions are those
// the SDK has shipped a client for, a public record of versions Azure served; the
// emulator accepts them for the generated kinds (Azure refuses only versions it never
// registered, or retired).
//
// Reading fetches modules, so it is not part of `kindgen generate`: `kindgen history`
// writes the file (File) that generate reads, and is run again when a pin moves.
package history

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"golang.org/x/mod/semver"
)

// File is where the versions are kept, relative to kindgen's folder.
const File = "apiversions.json"

// Versions are, per ARM type (as the kinds config's models spell it), each api-version
// and the first module release that sends it ("armstorage@v1.0.0").
type Versions map[string]map[string]string

// Module is a pinned SDK module: its path and version, and the folder it is in.
type Module struct {
	Path, Version, Dir string
}

// releaseLine is a CHANGELOG heading: "## 1.2.0 (2023-04-14)".
var releaseLine = regexp.MustCompile(`^## (\d+\.\d+\.\d+(?:-[0-9A-Za-z.]+)?) \(`)

// Releases lists the stable releases a module's CHANGELOG names, up to and including
// pinned, oldest first. Betas are left out: they send preview api-versions that Azure
// retires.
func Releases(changelog []byte, pinned string) []string {
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(changelog))
	for sc.Scan() {
		m := releaseLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		v := "v" + m[1]
		if semver.Prerelease(v) != "" || semver.Compare(v, pinned) > 0 {
			continue
		}
		out = append(out, v)
	}
	semver.Sort(out)
	return compactSorted(out)
}

// PathAt is the module path of release v of the module pinned at path: Go's rule that
// major versions from 2 on end the path in /vN.
func PathAt(path, v string) string {
	base := path
	if i := strings.LastIndex(path, "/v"); i > 0 && isDigits(path[i+2:]) {
		base = path[:i]
	}
	if m := semver.Major(v); m != "v0" && m != "v1" {
		return base + "/" + m
	}
	return base
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// What a request builder of the SDK's generated clients holds.
var (
	urlPathLine    = regexp.MustCompile(`urlPath := "([^"]+)"`)
	apiVersionLine = regexp.MustCompile(`reqQP\.Set\("api-version", "([^"]+)"\)`)
)

// Scan reads the request builders of one module folder: for each function that builds a
// URL path naming one resource (its last segment a parameter) and sets an api-version,
// the resource's ARM type and that version. Types are lower-cased.
func Scan(dir string) (map[string][]string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	out := map[string][]string{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		for _, fn := range bytes.Split(src, []byte("\nfunc ")) {
			p := urlPathLine.FindSubmatch(fn)
			v := apiVersionLine.FindSubmatch(fn)
			if p == nil || v == nil {
				continue
			}
			if t, ok := TypeOf(string(p[1])); ok {
				out[t] = append(out[t], string(v[1]))
			}
		}
	}
	return out, nil
}

// TypeOf is the lower-cased ARM type of a resource path ("/subscriptions/{s}/.../providers/
// Microsoft.Network/virtualNetworks/{v}/subnets/{s}" is microsoft.network/virtualnetworks/
// subnets): the part after the last /providers/, whose names alternate with types and whose
// last name is a parameter. Paths of collections and actions are not.
func TypeOf(path string) (string, bool) {
	i := strings.LastIndex(path, "/providers/")
	if i < 0 {
		return "", false
	}
	segs := strings.Split(strings.Trim(path[i+len("/providers/"):], "/"), "/")
	if len(segs) < 3 || len(segs)%2 == 0 || !strings.HasPrefix(segs[len(segs)-1], "{") {
		return "", false
	}
	parts := []string{segs[0]}
	for j := 1; j < len(segs); j += 2 {
		parts = append(parts, segs[j])
	}
	return strings.ToLower(strings.Join(parts, "/")), true
}

// Fetcher makes a module release's folder available (the Go module proxy by default).
type Fetcher func(ctx context.Context, path, version string) (dir string, err error)

// GoModDownload fetches a release with `go mod download`, in a folder of its own so that
// no go.mod is touched.
func GoModDownload(ctx context.Context, path, version string) (string, error) {
	tmp, err := os.MkdirTemp("", "kindgen-history-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	cmd := exec.CommandContext(ctx, "go", "mod", "download", "-json", path+"@"+version)
	cmd.Dir = tmp
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GO111MODULE=on")
	var res struct{ Dir, Error string }
	outb, runErr := cmd.Output()
	if err := json.Unmarshal(outb, &res); err != nil {
		return "", fmt.Errorf("go mod download %s@%s: %v %v", path, version, runErr, err)
	}
	if res.Error != "" {
		// The error names the proxy's URL; the first clause says what went wrong.
		reason := res.Error
		switch {
		case strings.Contains(reason, "403") || strings.Contains(reason, "not available"):
			reason = "not served by the module proxy"
		case strings.Contains(reason, "verifying"):
			reason = "no checksum to verify it"
		}
		return "", fmt.Errorf("%s@%s: %s", path, version, reason)
	}
	return res.Dir, nil
}

// Read collects the versions of the ARM types armTypes (spelled as the models spell them)
// over every stable release of mods up to its pin. A release that cannot be fetched is
// reported in skipped and left out.
func Read(ctx context.Context, mods []Module, armTypes []string, fetch Fetcher) (v Versions, skipped []string, err error) {
	want := map[string]string{}
	for _, t := range armTypes {
		want[strings.ToLower(t)] = t
	}
	v = Versions{}
	for _, m := range mods {
		changelog, err := os.ReadFile(filepath.Join(m.Dir, "CHANGELOG.md"))
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", m.Path, err)
		}
		for _, rel := range Releases(changelog, m.Version) {
			p := PathAt(m.Path, rel)
			dir := m.Dir
			if rel != m.Version {
				if dir, err = fetch(ctx, p, rel); err != nil {
					skipped = append(skipped, err.Error())
					continue
				}
			}
			found, err := Scan(dir)
			if err != nil {
				return nil, nil, err
			}
			base := PathAt(m.Path, "v1.0.0") // without /vN
			from := base[strings.LastIndex(base, "/")+1:] + "@" + rel
			for lt, vs := range found {
				t, ok := want[lt]
				if !ok {
					continue
				}
				if v[t] == nil {
					v[t] = map[string]string{}
				}
				for _, ver := range vs {
					if _, seen := v[t][ver]; !seen {
						v[t][ver] = from
					}
				}
			}
		}
	}
	return v, skipped, nil
}

// Load reads the file; a missing one is no versions.
func Load(path string) (Versions, error) {
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return Versions{}, nil
	}
	if err != nil {
		return nil, err
	}
	var v Versions
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return v, nil
}

// Marshal writes v as the committed file: indented, keys sorted.
func (v Versions) Marshal() ([]byte, error) {
	data, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		return nil, err
	}
	return append(data, '\n'), nil
}

// Of is the sorted api-versions of armType.
func (v Versions) Of(armType string) []string {
	var out []string
	for t, vs := range v {
		if strings.EqualFold(t, armType) {
			for ver := range vs {
				out = append(out, ver)
			}
		}
	}
	sort.Strings(out)
	return compactSorted(out)
}

func compactSorted(s []string) []string {
	var out []string
	for i, x := range s {
		if i == 0 || x != s[i-1] {
			out = append(out, x)
		}
	}
	return out
}
