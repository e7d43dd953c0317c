package main

import (
	"bytes"
	"crypto/sha1"
	"crypto/sha256"
	"debug/buildinfo"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// SPDX 2.3 JSON (https://spdx.github.io/spdx-spec/v2.3/), only the fields
// this SBOM fills.
type spdxDocument struct {
	SPDXVersion       string             `json:"spdxVersion"`
	DataLicense       string             `json:"dataLicense"`
	SPDXID            string             `json:"SPDXID"`
	Name              string             `json:"name"`
	DocumentNamespace string             `json:"documentNamespace"`
	CreationInfo      spdxCreationInfo   `json:"creationInfo"`
	Packages          []spdxPackage      `json:"packages"`
	Relationships     []spdxRelationship `json:"relationships"`
}

type spdxCreationInfo struct {
	Created  string   `json:"created"`
	Creators []string `json:"creators"`
}

type spdxPackage struct {
	Name                  string            `json:"name"`
	SPDXID                string            `json:"SPDXID"`
	VersionInfo           string            `json:"versionInfo,omitempty"`
	DownloadLocation      string            `json:"downloadLocation"`
	FilesAnalyzed         bool              `json:"filesAnalyzed"`
	Checksums             []spdxChecksum    `json:"checksums,omitempty"`
	LicenseConcluded      string            `json:"licenseConcluded"`
	LicenseDeclared       string            `json:"licenseDeclared"`
	CopyrightText         string            `json:"copyrightText"`
	PrimaryPackagePurpose string            `json:"primaryPackagePurpose,omitempty"`
	ExternalRefs          []spdxExternalRef `json:"externalRefs,omitempty"`
	Comment               string            `json:"comment,omitempty"`
}

type spdxChecksum struct {
	Algorithm     string `json:"algorithm"`
	ChecksumValue string `json:"checksumValue"`
}

type spdxExternalRef struct {
	ReferenceCategory string `json:"referenceCategory"`
	ReferenceType     string `json:"referenceType"`
	ReferenceLocator  string `json:"referenceLocator"`
}

type spdxRelationship struct {
	SPDXElementID      string `json:"spdxElementId"`
	RelationshipType   string `json:"relationshipType"`
	RelatedSPDXElement string `json:"relatedSpdxElement"`
}

const noAssertion = "NOASSERTION"

// sbomMeta is what the SBOM says of the binary beyond its own build info.
type sbomMeta struct {
	Name     string // the artifact, e.g. aztenant-operator
	Version  string
	Commit   string
	Source   string // repository URL
	Licenses string // SPDX expression of the main module; "" is NOASSERTION
	Created  time.Time
}

// goSBOM describes a Go binary (its bytes) as SPDX 2.3 JSON: the binary, the
// Go standard library and every module linked in, as debug/buildinfo (what
// `go version -m` prints) records them. The document namespace is derived
// from the binary's hash, so it is unique per binary and yet reproducible.
func goSBOM(binary []byte, m sbomMeta) ([]byte, error) {
	bi, err := buildinfo.Read(bytes.NewReader(binary))
	if err != nil {
		return nil, fmt.Errorf("read build info: %w", err)
	}
	sum256 := sha256.Sum256(binary)
	sum1 := sha1.Sum(binary)
	lic := m.Licenses
	if lic == "" {
		lic = noAssertion
	}
	var settings []string
	for _, s := range bi.Settings {
		settings = append(settings, s.Key+"="+s.Value)
	}
	bin := spdxPackage{
		Name:             m.Name,
		SPDXID:           "SPDXRef-Package-binary",
		VersionInfo:      m.Version,
		DownloadLocation: m.Source,
		Checksums: []spdxChecksum{
			{Algorithm: "SHA1", ChecksumValue: hex.EncodeToString(sum1[:])},
			{Algorithm: "SHA256", ChecksumValue: hex.EncodeToString(sum256[:])},
		},
		LicenseConcluded:      noAssertion,
		LicenseDeclared:       lic,
		CopyrightText:         noAssertion,
		PrimaryPackagePurpose: "APPLICATION",
		ExternalRefs:          []spdxExternalRef{purl(bi.Main.Path, m.Version)},
		Comment:               fmt.Sprintf("Go package %s of commit %s built with %s: %s", bi.Path, m.Commit, bi.GoVersion, strings.Join(settings, " ")),
	}
	doc := spdxDocument{
		SPDXVersion:       "SPDX-2.3",
		DataLicense:       "CC0-1.0",
		SPDXID:            "SPDXRef-DOCUMENT",
		Name:              m.Name + "-" + m.Version,
		DocumentNamespace: m.Source + "/spdx/" + m.Name + "/" + m.Version + "/sha256-" + hex.EncodeToString(sum256[:]),
		CreationInfo: spdxCreationInfo{
			Created:  m.Created.UTC().Format(time.RFC3339),
			Creators: []string{"Tool: aztenant-hack-image", "Organization: aztenant"},
		},
		Packages: []spdxPackage{bin, library("SPDXRef-Package-stdlib", "stdlib", bi.GoVersion, "", "")},
		Relationships: []spdxRelationship{
			{SPDXElementID: "SPDXRef-DOCUMENT", RelationshipType: "DESCRIBES", RelatedSPDXElement: bin.SPDXID},
			{SPDXElementID: bin.SPDXID, RelationshipType: "DEPENDS_ON", RelatedSPDXElement: "SPDXRef-Package-stdlib"},
		},
	}
	for i, dep := range bi.Deps {
		p := library(fmt.Sprintf("SPDXRef-Package-go-module-%d", i), dep.Path, dep.Version, dep.Sum, "")
		if r := dep.Replace; r != nil {
			// The code linked in is the replacement's.
			p = library(p.SPDXID, r.Path, r.Version, r.Sum, "replaces "+dep.Path+" "+dep.Version)
		}
		doc.Packages = append(doc.Packages, p)
		doc.Relationships = append(doc.Relationships, spdxRelationship{
			SPDXElementID: bin.SPDXID, RelationshipType: "DEPENDS_ON", RelatedSPDXElement: p.SPDXID,
		})
	}
	return json.MarshalIndent(doc, "", "  ")
}

// library is a Go module (or the standard library) linked into the binary.
// sum is its go.sum hash (h1:...), which SPDX has no checksum algorithm for.
func library(id, path, version, sum, note string) spdxPackage {
	var comments []string
	if sum != "" {
		comments = append(comments, "go.sum "+sum)
	}
	if note != "" {
		comments = append(comments, note)
	}
	return spdxPackage{
		Name:                  path,
		SPDXID:                id,
		VersionInfo:           version,
		DownloadLocation:      noAssertion,
		LicenseConcluded:      noAssertion,
		LicenseDeclared:       noAssertion,
		CopyrightText:         noAssertion,
		PrimaryPackagePurpose: "LIBRARY",
		ExternalRefs:          []spdxExternalRef{purl(path, version)},
		Comment:               strings.Join(comments, "; "),
	}
}

// purl is the package URL of a Go module (pkg:golang/...), the identifier
// vulnerability scanners match on.
func purl(path, version string) spdxExternalRef {
	return spdxExternalRef{
		ReferenceCategory: "PACKAGE-MANAGER",
		ReferenceType:     "purl",
		ReferenceLocator:  "pkg:golang/" + path + "@" + version,
	}
}
