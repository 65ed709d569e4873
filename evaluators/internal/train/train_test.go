package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestIDLess(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{"2", "10", true},
		{"10", "2", false},
		{"1", "1", false},
		{`"a-2"`, `"a-10"`, false}, // strings compare as text
		{`"a"`, `"b"`, true},
	}
	for _, tt := range tests {
		t.Run(tt.a+"<"+tt.b, func(t *testing.T) {
			if got := idLess(tt.a, tt.b); got != tt.want {
				t.Errorf("idLess(%s, %s) = %v, want %v", tt.a, tt.b, got, tt.want)
			}
		})
	}
}

func TestReadRowsSortsByID(t *testing.T) {
	dir := t.TempDir()
	data := `{"id": 10, "text": "ten", "label": true}
{"id": 2, "text": "two", "label": false}
{"text": "no id", "label": false}
`
	if err := os.WriteFile(filepath.Join(dir, "x.jsonl"), []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	rows, err := readRows(dir, "x.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rows {
		got = append(got, r.ID+"="+r.Text)
	}
	// The row without id takes its line number (3).
	if want := "2=two 3=no id 10=ten"; strings.Join(got, " ") != want {
		t.Errorf("rows = %q, want %q", strings.Join(got, " "), want)
	}
}

func TestReadRowsErrors(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "bad.jsonl"), []byte("{\"text\": 1}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, file, want string
	}{
		{"missing", "none.jsonl", "open dataset"},
		{"bad json", "bad.jsonl", "bad.jsonl:1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := readRows(dir, tt.file)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}
