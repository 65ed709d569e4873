package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/evalcol/evalcol/evaluators/internal/textclass"
)

// row is one labelled text of a JSONL dataset.
type row struct {
	ID    string
	Text  string
	Label bool
}

// readRows reads a JSONL file of {"id", "text", "label"} objects, sorted by
// id (numeric ids as numbers, then strings) so training never depends on
// file order.
func readRows(dataDir, name string) ([]row, error) {
	path := filepath.Join(dataDir, name)
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open dataset: %w", err)
	}
	defer f.Close()
	var rows []row
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for line := 1; sc.Scan(); line++ {
		var r struct {
			ID    json.RawMessage `json:"id"`
			Text  string          `json:"text"`
			Label bool            `json:"label"`
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		id := string(r.ID)
		if id == "" {
			id = fmt.Sprint(line)
		}
		rows = append(rows, row{ID: id, Text: r.Text, Label: r.Label})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	sort.SliceStable(rows, func(i, j int) bool { return idLess(rows[i].ID, rows[j].ID) })
	return rows, nil
}

func idLess(a, b string) bool {
	if len(a) != len(b) && isDigits(a) && isDigits(b) {
		return len(a) < len(b)
	}
	return a < b
}

func isDigits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}

func textsLabels(rows []row) ([]string, []bool) {
	texts := make([]string, len(rows))
	labels := make([]bool, len(rows))
	for i, r := range rows {
		texts[i], labels[i] = r.Text, r.Label
	}
	return texts, labels
}

// writeModel writes m's binary form to path.
func writeModel(m *textclass.Model, path string) error {
	b, err := m.MarshalBinary()
	if err != nil {
		return fmt.Errorf("encode model: %w", err)
	}
	return writeFile(path, b)
}

// readJSONL decodes every line of a JSONL dataset into a T.
func readJSONL[T any](dataDir, name string) ([]T, error) {
	path := filepath.Join(dataDir, name)
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open dataset: %w", err)
	}
	defer f.Close()
	var out []T
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for line := 1; sc.Scan(); line++ {
		var v T
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		out = append(out, v)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return out, nil
}
