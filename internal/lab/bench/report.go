package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
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
	Started  time.Time `json:"started"`
	Seconds  float64   `json:"seconds"`
	Quick    bool      `json:"quick"`
	Config   Config    `json:"config"`
	Machine  Machine   `json:"machine"`
	Rows     []Row     `json:"rows"`
	Failures []string  `json:"failures,omitempty"`
}

// Machine describes where the figures were taken; other work on the same
// cores changes them, so the load average is part of the result.
type Machine struct {
	CPUs          int    `json:"cpus"`
	LoadAvgBefore string `json:"loadAvgBefore"`
	LoadAvgAfter  string `json:"loadAvgAfter"`
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

func newMachine() Machine { return Machine{CPUs: runtime.NumCPU(), LoadAvgBefore: loadAvg()} }

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
