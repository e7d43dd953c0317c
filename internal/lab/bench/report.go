package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

// Aim is a target a figure should meet: Op is ">=", "<=", "<" or "=".
type Aim struct {
	Op    string  `json:"op"`
	Limit float64 `json:"limit"`
}

func (a *Aim) String() string {
	if a == nil {
		return ""
	}
	return a.Op + " " + trimFloat(a.Limit)
}

// Met reports whether v meets the aim.
func (a *Aim) Met(v float64) bool {
	switch a.Op {
	case ">=":
		return v >= a.Limit
	case "<=":
		return v <= a.Limit
	case "<":
		return v < a.Limit
	case "=":
		return v == a.Limit
	}
	return false
}

// Row is one figure of one scenario.
type Row struct {
	Scenario string  `json:"scenario"`
	Figure   string  `json:"figure"`
	Value    float64 `json:"value"`
	Unit     string  `json:"unit,omitempty"`
	Aim      *Aim    `json:"aim,omitempty"`
	// Met is set when the figure has an aim.
	Met *bool `json:"met,omitempty"`
}

// Report is what `aztenant-lab bench` prints and writes.
type Report struct {
	Started time.Time `json:"started"`
	Seconds float64   `json:"seconds"`
	Quick   bool      `json:"quick"`
	Config  Config    `json:"config"`
	Machine Machine   `json:"machine"`
	// Conditions is what the stack's scenarios ran against; nil in a report
	// written before the bench recorded them, or with no stack (footprint).
	Conditions *Conditions `json:"conditions,omitempty"`
	Rows       []Row       `json:"rows"`
	Failures   []string    `json:"failures,omitempty"`
}

// Machine describes where the figures were taken; other work on the same
// cores changes them, so the load average is part of the result.
type Machine struct {
	CPUs int `json:"cpus"`
	// CPUModel is /proc/cpuinfo's first model name ("" when unknown).
	CPUModel      string `json:"cpuModel,omitempty"`
	LoadAvgBefore string `json:"loadAvgBefore"`
	LoadAvgAfter  string `json:"loadAvgAfter"`
}

// Answer modes of Conditions.Answers.
const (
	// AnswersEcho: the emulator answers a write with what was sent.
	AnswersEcho = "echo"
	// AnswersExamples: the emulator answers writes from Azure's documented
	// examples, then perturbs them (Conditions.AnswersSeed, AnswerOps).
	AnswersExamples = "azure-examples"
)

// Conditions is what a stack's figures were measured against: the local Azure
// emulator (never Azure), how it answered, and what the operator served.
type Conditions struct {
	// EmulatedLatency is the delay the emulator added to every ARM request
	// (its faults' latency; 0 for none).
	EmulatedLatency time.Duration `json:"emulatedLatency"`
	// Answers is AnswersEcho or AnswersExamples.
	Answers string `json:"answers"`
	// AnswersSeed, AnswerOps and AnsweredTypes are the perturbation of the
	// answers (emulator.PerturbWrites), when there was one: its seed, the
	// transforms it may pick, and the hand-written kinds' ARM types it
	// perturbs besides the generated kinds'.
	AnswersSeed   uint64   `json:"answersSeed,omitempty"`
	AnswerOps     []string `json:"answerOps,omitempty"`
	AnsweredTypes []string `json:"answeredTypes,omitempty"`
	// CRDs is the number of CRDs installed before the operator started; the
	// operator serves every kind installed (its default --crd-pattern).
	CRDs int `json:"crds"`
	// OperatorArgs are the flags the bench added to the operator's.
	OperatorArgs []string `json:"operatorArgs,omitempty"`
	// Revision is the VCS revision aztenant-lab was built from (with
	// "+dirty" for uncommitted changes), "" when the build did not record it.
	Revision string `json:"revision,omitempty"`
}

// conditionsOf records what s runs against.
func conditionsOf(s *Stack) *Conditions {
	e := s.opts.Emulator
	c := &Conditions{EmulatedLatency: time.Duration(e.Faults.Latency), Answers: AnswersEcho,
		CRDs: s.CRDs, OperatorArgs: slices.Clone(s.opts.OperatorArgs), Revision: revision()}
	if e.AnswerFromExamples {
		c.Answers = AnswersExamples
	}
	if p := e.PerturbWrites; p != nil {
		c.AnswersSeed = p.Seed
		for _, op := range p.Ops {
			c.AnswerOps = append(c.AnswerOps, string(op))
		}
		c.AnsweredTypes = slices.Clone(p.Types)
	}
	return c
}

// revision is the build's vcs.revision (and +dirty), if recorded.
func revision() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	var rev string
	var dirty bool
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev != "" && dirty {
		rev += "+dirty"
	}
	return rev
}

func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	for line := range strings.Lines(string(b)) {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " ")
}

// NewMachine is this machine now: its CPUs and the load average before a run
// (the runner sets LoadAvgAfter).
func NewMachine() Machine {
	return Machine{CPUs: runtime.NumCPU(), CPUModel: cpuModel(), LoadAvgBefore: loadAvg()}
}

// LoadAvg is /proc/loadavg's first three fields ("" when unreadable).
func LoadAvg() string { return loadAvg() }

func (r *Report) add(scenario, figure string, v float64, unit string, aim *Aim) {
	row := Row{Scenario: scenario, Figure: figure, Value: round(v), Unit: unit, Aim: aim}
	if aim != nil {
		m := aim.Met(v)
		row.Met = &m
	}
	r.Rows = append(r.Rows, row)
}

func round(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	return math.Round(v*1000) / 1000
}

func trimFloat(v float64) string {
	s := fmt.Sprintf("%.3f", v)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	return s
}

// WriteTable prints scenario | figure | value | aim | met?.
func (r *Report) WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SCENARIO\tFIGURE\tVALUE\tAIM\tMET?")
	for _, row := range r.Rows {
		met := ""
		if row.Met != nil {
			met = map[bool]string{true: "yes", false: "NO"}[*row.Met]
		}
		aim := row.Aim.String()
		if aim != "" && row.Unit != "" {
			aim += " " + row.Unit
		}
		val := trimFloat(row.Value)
		if row.Unit != "" {
			val += " " + row.Unit
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", row.Scenario, row.Figure, val, aim, met)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "\n%d CPUs, load average %s before and %s after; %s in all\n",
		r.Machine.CPUs, r.Machine.LoadAvgBefore, r.Machine.LoadAvgAfter, time.Duration(r.Seconds*float64(time.Second)).Round(time.Second))
	for _, f := range r.Failures {
		fmt.Fprintln(w, "FAILED:", f)
	}
	return nil
}

// WriteJSON writes the report to a file.
func (r *Report) WriteJSON(path string) error {
	raw, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(raw, '\n'), 0o644)
}
