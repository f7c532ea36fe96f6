package report

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/url"

	"github.com/strataspec/strataspec/engine/finding"
)

// SARIF 2.1.0 constants.
const (
	sarifSchema    = "https://json.schemastore.org/sarif-2.1.0.json"
	sarifVersion   = "2.1.0"
	toolName       = "strataspec"
	toolURI        = "https://github.com/strataspec/strataspec"
	fingerprintKey = "strataspec/v1"
)

// The SARIF 2.1.0 objects this report writes: the subset GitHub code
// scanning reads (a log with one run, the tool's driver and rules, results
// with a rule, level, message, physical location and fingerprints).
type (
	sarifLog struct {
		Schema  string     `json:"$schema"`
		Version string     `json:"version"`
		Runs    []sarifRun `json:"runs"`
	}
	sarifRun struct {
		Tool    sarifTool     `json:"tool"`
		Results []sarifResult `json:"results"`
	}
	sarifTool struct {
		Driver sarifDriver `json:"driver"`
	}
	sarifDriver struct {
		Name           string      `json:"name"`
		Version        string      `json:"version"`
		InformationURI string      `json:"informationUri"`
		Rules          []sarifRule `json:"rules"`
	}
	sarifRule struct {
		ID                   string          `json:"id"`
		Name                 string          `json:"name"`
		ShortDescription     sarifText       `json:"shortDescription"`
		FullDescription      sarifText       `json:"fullDescription"`
		Help                 sarifText       `json:"help"`
		DefaultConfiguration sarifRuleConfig `json:"defaultConfiguration"`
		Properties           sarifRuleProps  `json:"properties"`
	}
	sarifRuleConfig struct {
		Level string `json:"level"`
	}
	sarifRuleProps struct {
		Tags []string `json:"tags"`
	}
	sarifText struct {
		Text string `json:"text"`
	}
	sarifResult struct {
		RuleID              string            `json:"ruleId"`
		RuleIndex           int               `json:"ruleIndex"`
		Level               string            `json:"level"`
		Message             sarifText         `json:"message"`
		Locations           []sarifLocation   `json:"locations"`
		PartialFingerprints map[string]string `json:"partialFingerprints"`
	}
	sarifLocation struct {
		PhysicalLocation sarifPhysical `json:"physicalLocation"`
	}
	sarifPhysical struct {
		ArtifactLocation sarifArtifact `json:"artifactLocation"`
		Region           *sarifRegion  `json:"region"`
	}
	sarifArtifact struct {
		URI string `json:"uri"`
	}
	sarifRegion struct {
		StartLine int `json:"startLine"`
	}
)

// writeSARIF writes a SARIF 2.1.0 log for GitHub code scanning: every rule
// in the driver's rule table, one result per fail (level error) and warn
// (warning) finding, located by its path from the repository root. Pass
// findings are not results: code scanning would list them as alerts.
// Fingerprints hash the rule, id, check, file and quote (not the line), so
// an alert keeps its identity when the plan's lines move.
func (r *Report) writeSARIF(w io.Writer, o Options) error {
	version := o.ToolVersion
	if version == "" {
		version = "dev"
	}
	drv := sarifDriver{Name: toolName, Version: version, InformationURI: toolURI, Rules: []sarifRule{}}
	index := map[string]int{}
	addRule := func(ri RuleInfo) {
		doc := ri.Doc
		if doc == "" {
			doc = "rule " + ri.Name
		}
		help := doc
		if fix := ri.Fix; fix != "" {
			help += ". To fix: " + fix + "."
		}
		index[ri.Name] = len(drv.Rules)
		drv.Rules = append(drv.Rules, sarifRule{ID: ri.Name, Name: ri.Name,
			ShortDescription: sarifText{shorten(doc, 120)}, FullDescription: sarifText{doc}, Help: sarifText{help},
			DefaultConfiguration: sarifRuleConfig{Level: "error"}, Properties: sarifRuleProps{Tags: []string{ri.Section.tag()}}})
	}
	for _, ri := range r.Rules {
		addRule(ri)
	}
	run := sarifRun{Tool: sarifTool{Driver: drv}, Results: []sarifResult{}}
	prefix := r.prefix(o)
	seen := map[string]int{}
	for _, f := range r.Findings {
		level := map[finding.Severity]string{finding.Fail: "error", finding.Warn: "warning"}[f.Severity]
		if level == "" {
			continue
		}
		if _, ok := index[f.Rule]; !ok { // a finding of a rule the report was not told about
			addRule(r.rule(f.Rule))
		}
		loc, ok := locate(prefix, f)
		if !ok {
			loc = location{URI: slashPath(prefix)} // a finding about the snapshot as a whole
		}
		msg := messageWithValues(f)
		if loc.Inner != "" {
			msg = loc.Inner + ": " + msg
		}
		// Code scanning needs a region on every result: a finding about
		// a whole file, or about a place inside an archived tail (named in
		// the message), points at the file's first line.
		phys := sarifPhysical{ArtifactLocation: sarifArtifact{URI: sarifURI(loc.URI)}, Region: &sarifRegion{StartLine: max(loc.Line, 1)}}
		fp := fingerprint(f)
		seen[fp]++
		fp = fmt.Sprintf("%s:%d", fp, seen[fp])
		run.Results = append(run.Results, sarifResult{RuleID: f.Rule, RuleIndex: index[f.Rule], Level: level,
			Message: sarifText{clean(msg)}, Locations: []sarifLocation{{PhysicalLocation: phys}},
			PartialFingerprints: map[string]string{fingerprintKey: fp}})
	}
	run.Tool.Driver = drv
	return writeJSON(w, sarifLog{Schema: sarifSchema, Version: sarifVersion, Runs: []sarifRun{run}})
}

// sarifURI writes a slash-separated path as a URI reference (RFC 3986):
// each segment percent-encoded, so "m5 v3/PLAN.md" is "m5%20v3/PLAN.md".
func sarifURI(p string) string {
	return (&url.URL{Path: p}).EscapedPath()
}

// fingerprint identifies a finding across audits: its rule, id, check,
// file and quote, not its line.
func fingerprint(f finding.Finding) string {
	h := sha256.New()
	for _, s := range []string{f.Rule, f.ID, f.Check, f.File, f.Quote} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))[:32]
}
