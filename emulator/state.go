package emulator

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/aztenant/aztenant/emulator/armpath"
	"github.com/aztenant/aztenant/emulator/jwks"
)

// stateFile is the on-disk form of the emulator: enough to restart with the same CA, signing
// key, directory and resources, so clients holding the CA file and cached tokens keep working.
type stateFile struct {
	Version        int              `json:"version"`
	CACertPEM      string           `json:"caCertPEM"`
	CAKeyPEM       string           `json:"caKeyPEM"`
	SigningKeyPEM  string           `json:"signingKeyPEM"`
	Tenants        []Tenant         `json:"tenants"`
	Principals     []Principal      `json:"principals"`
	TrustedIssuers []TrustedIssuer  `json:"trustedIssuers"`
	Resources      []storedResource `json:"resources"`
}

type storedResource struct {
	ID      string            `json:"id"`
	Type    string            `json:"type"`
	Body    json.RawMessage   `json:"body"`
	Secrets map[string]string `json:"secrets,omitempty"`
}

func readStateFile(path string) (*stateFile, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var st stateFile
	if err := json.Unmarshal(b, &st); err != nil {
		return nil, fmt.Errorf("state file %s: %w", path, err)
	}
	return &st, nil
}

// SaveState writes the state file now (Close does it too). Operations still in progress are
// saved as they are and complete when next touched.
func (e *Emulator) SaveState() error {
	if e.cfg.StateFile == "" {
		return fmt.Errorf("emulator: no state file configured")
	}
	st := stateFile{
		Version: 1, CACertPEM: string(e.ca.CertPEM), CAKeyPEM: string(e.ca.KeyPEM),
		SigningKeyPEM: jwks.EncodeRSAPrivateKeyPEM(e.signer.Key()),
	}
	st.TrustedIssuers = e.trust.Configs()
	e.mu.RLock()
	for _, t := range e.tenants {
		st.Tenants = append(st.Tenants, *t)
	}
	for _, d := range e.byClientID {
		if d.resourceKey == "" {
			st.Principals = append(st.Principals, d.seeded)
		}
	}
	for _, r := range e.resources {
		st.Resources = append(st.Resources, storedResource{ID: r.id, Type: r.typ, Body: append(json.RawMessage(nil), r.raw...), Secrets: snapshotSecrets(r.secrets)})
	}
	e.mu.RUnlock()
	sort.Slice(st.Tenants, func(i, j int) bool { return st.Tenants[i].ID < st.Tenants[j].ID })
	sort.Slice(st.Principals, func(i, j int) bool { return st.Principals[i].ClientID < st.Principals[j].ClientID })
	sort.Slice(st.Resources, func(i, j int) bool { return strings.ToLower(st.Resources[i].ID) < strings.ToLower(st.Resources[j].ID) })
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	// Write then rename, so a crash never leaves half a state file.
	tmp, err := os.CreateTemp(filepath.Dir(e.cfg.StateFile), ".emulator-state-*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), e.cfg.StateFile)
}

// restore rebuilds the tree from a state file: parents before children (shorter IDs sort
// first), running each type's stored hook so the directory and grants are rebuilt too.
// Operations do not survive a restart: what was being created or updated is finished, what
// was being deleted is gone.
func (e *Emulator) restore(st *stateFile) error {
	for _, ti := range st.TrustedIssuers {
		if err := e.AddTrustedIssuer(ti); err != nil {
			return err
		}
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, t := range st.Tenants {
		cp := t
		e.tenants[strings.ToLower(t.ID)] = &cp
	}
	for _, p := range st.Principals {
		if _, err := e.addPrincipalLocked(p); err != nil {
			return err
		}
	}
	res := append([]storedResource(nil), st.Resources...)
	sort.SliceStable(res, func(i, j int) bool {
		return strings.Count(res[i].ID, "/") < strings.Count(res[j].ID, "/")
	})
	for _, sr := range res {
		body, err := decodeObject(sr.Body)
		if err != nil {
			return fmt.Errorf("resource %s: %w", sr.ID, err)
		}
		key := strings.ToLower(sr.ID)
		parentKey := ""
		if ap := armpath.Parse(sr.ID); len(ap.Steps) > 1 {
			parentKey = ap.Parent().Key()
		}
		if parentKey != "" && e.resources[parentKey] == nil {
			continue // its parent was being deleted
		}
		if p, ok := body["properties"].(map[string]any); ok {
			switch p["provisioningState"] {
			case "Deleting":
				continue
			case "Creating", "Updating", "Accepted":
				p["provisioningState"] = opSucceeded
			}
		}
		r := &resource{id: sr.ID, key: key, typ: sr.Type, parentKey: parentKey, body: body, secrets: sr.Secrets}
		r.refresh()
		e.insertLocked(r)
		if b := e.behaviours[r.typeKey()]; b != nil && b.stored != nil {
			b.stored(e, r)
		}
	}
	return nil
}
