// Package dataset is test sets kept in the warehouse, as Traceloop's SDKs
// use them: a dataset has typed columns and rows, and publishing it makes
// an immutable version (v1, v2, ...) that reads back as CSV or JSONL and
// that experiments run over. Datasets belong to an organization and
// project; their definition, rows and versions are warehouse documents.
package dataset

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Warehouse document kinds.
const (
	Kind        = "dataset"               // scope: org/project
	RowKind     = "dataset_row"           // scope: the dataset's id
	VersionKind = "dataset_version"       // scope: the dataset's id, id: "v1", ...
	ChunkKind   = "dataset_version_chunk" // scope: "<dataset id>@<version>"
)

// Column types.
const (
	TypeString  = "string"
	TypeNumber  = "number"
	TypeBoolean = "boolean"
	TypeDate    = "date"
	TypeFile    = "file"
)

// Limits.
const (
	MaxColumns     = 100
	MaxRows        = 100_000
	MaxRowBytes    = 64 << 10
	MaxRowsPerPost = 1000
	// ChunkBytes bounds one stored chunk of a published version.
	ChunkBytes = 200 << 10
)

var slugPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,63}$`)

// Column is one typed column.
type Column struct {
	Slug        string `json:"slug"`
	Name        string `json:"name"`
	Type        string `json:"type"`
	Required    bool   `json:"required,omitempty"`
	Description string `json:"description,omitempty"`
}

// Dataset is a dataset's definition.
type Dataset struct {
	ID          string   `json:"id"`
	Slug        string   `json:"slug"`
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Columns     []Column `json:"columns"`
	// Version is the last published version ("" before the first).
	Version   string    `json:"version"`
	Published bool      `json:"published"`
	RowCount  int       `json:"row_count"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
	// Rev is the warehouse document's version (compare-and-set).
	Rev int64 `json:"-"`
}

// Row is one row: values by column slug.
type Row struct {
	ID        string         `json:"id"`
	Values    map[string]any `json:"values"`
	CreatedAt time.Time      `json:"created_at"`
	UpdatedAt time.Time      `json:"updated_at"`
}

// Version is a published, immutable snapshot.
type Version struct {
	Version     string    `json:"version"`
	RowCount    int       `json:"row_count"`
	Columns     []Column  `json:"columns"`
	Chunks      int       `json:"-"`
	PublishedAt time.Time `json:"published_at"`
}

// FieldError is a mistake in a request: Field names the part at fault.
type FieldError struct{ Field, Msg string }

func (e *FieldError) Error() string { return e.Field + ": " + e.Msg }

func fieldErrorf(field, format string, args ...any) error {
	return &FieldError{Field: field, Msg: fmt.Sprintf(format, args...)}
}

// SlugOf makes a slug of a name: lower case, runs of other characters
// as one "-" (never "_": Traceloop's Node SDK turns snake_case keys of
// answers into camelCase, which would rename such columns).
func SlugOf(name string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(name) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	s := strings.TrimRight(b.String(), "-")
	if len(s) > 64 {
		s = strings.TrimRight(s[:64], "-")
	}
	return s
}

// ValidSlug reports whether s is a dataset or column slug.
func ValidSlug(s string) bool { return slugPattern.MatchString(s) }

// CheckName checks a dataset's or column's name.
func CheckName(field, name string) error {
	if strings.TrimSpace(name) == "" || len(name) > 256 || !utf8.ValidString(name) {
		return fieldErrorf(field, "is required (valid UTF-8, at most 256 bytes)")
	}
	return nil
}

// NewColumn validates a column to add to d (its slug made from its name
// when empty) and returns it.
func (d *Dataset) NewColumn(c Column) (Column, error) {
	if err := CheckName("name", c.Name); err != nil {
		return c, err
	}
	if c.Type == "" {
		c.Type = TypeString
	}
	switch c.Type {
	case TypeString, TypeNumber, TypeBoolean, TypeDate, TypeFile:
	default:
		return c, fieldErrorf("type", "%q is not one of string, number, boolean, date, file", c.Type)
	}
	if c.Slug == "" {
		c.Slug = SlugOf(c.Name)
	}
	if !ValidSlug(c.Slug) {
		return c, fieldErrorf("slug", "%q is not a column slug: 1 to 64 of a-z, 0-9 and '-'", c.Slug)
	}
	if len(d.Columns) >= MaxColumns {
		return c, fieldErrorf("columns", "a dataset has at most %d columns", MaxColumns)
	}
	for _, o := range d.Columns {
		if o.Slug == c.Slug || o.Name == c.Name {
			return c, fieldErrorf("name", "the dataset has a column %q (%s)", o.Name, o.Slug)
		}
	}
	return c, nil
}

// Column returns the column whose slug or name is key.
func (d *Dataset) Column(key string) (Column, bool) {
	for _, c := range d.Columns {
		if c.Slug == key {
			return c, true
		}
	}
	for _, c := range d.Columns {
		if c.Name == key {
			return c, true
		}
	}
	return Column{}, false
}

// CheckValues validates row values given by column slug or name against
// the columns and returns them by slug. partial leaves out the required
// columns' check (an update of some values).
func (d *Dataset) CheckValues(in map[string]any, partial bool) (map[string]any, error) {
	out := make(map[string]any, len(in))
	for key, v := range in {
		c, ok := d.Column(key)
		if !ok {
			return nil, fieldErrorf("values."+key, "the dataset has no such column")
		}
		nv, err := c.check(v)
		if err != nil {
			return nil, fieldErrorf("values."+key, "%v", err)
		}
		out[c.Slug] = nv
	}
	if !partial {
		for _, c := range d.Columns {
			if v, ok := out[c.Slug]; c.Required && (!ok || v == nil) {
				return nil, fieldErrorf("values."+c.Slug, "the column is required")
			}
		}
	}
	if b, _ := json.Marshal(out); len(b) > MaxRowBytes {
		return nil, fieldErrorf("values", "a row is at most %d bytes of JSON", MaxRowBytes)
	}
	return out, nil
}

func (c Column) check(v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	switch c.Type {
	case TypeString:
		switch x := v.(type) {
		case string:
			return x, nil
		case float64, bool:
			return fmt.Sprint(x), nil // CSV imports type what they can
		}
	case TypeNumber:
		switch x := v.(type) {
		case float64:
			if !math.IsNaN(x) && !math.IsInf(x, 0) {
				return x, nil
			}
		case string:
			if f, err := strconv.ParseFloat(strings.TrimSpace(x), 64); err == nil && !math.IsNaN(f) && !math.IsInf(f, 0) {
				return f, nil
			}
		}
	case TypeBoolean:
		switch x := v.(type) {
		case bool:
			return x, nil
		case string:
			if b, err := strconv.ParseBool(strings.TrimSpace(x)); err == nil {
				return b, nil
			}
		}
	case TypeDate:
		if s, ok := v.(string); ok {
			for _, layout := range []string{time.RFC3339Nano, "2006-01-02"} {
				if _, err := time.Parse(layout, s); err == nil {
					return s, nil
				}
			}
			return nil, fmt.Errorf("%q is not a date (2006-01-02 or RFC 3339)", s)
		}
	case TypeFile:
		if m, ok := v.(map[string]any); ok {
			return m, nil // an attachment reference
		}
		return nil, fmt.Errorf("a file column holds an attachment reference (uploads are not served)")
	}
	return nil, fmt.Errorf("%s is not a %s", describe(v), c.Type)
}

func describe(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case float64:
		return "a number"
	case bool:
		return "a boolean"
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

// CSV writes rows as CSV: a header of the column names, then one line per
// row (null as an empty cell).
func CSV(cols []Column, rows []map[string]any) []byte {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	header := make([]string, len(cols))
	for i, c := range cols {
		header[i] = c.Name
	}
	_ = w.Write(header)
	for _, r := range rows {
		rec := make([]string, len(cols))
		for i, c := range cols {
			switch v := r[c.Slug].(type) {
			case nil:
			case string:
				rec[i] = v
			case float64:
				rec[i] = strconv.FormatFloat(v, 'g', -1, 64)
			default:
				b, _ := json.Marshal(v)
				rec[i] = string(b)
			}
		}
		_ = w.Write(rec)
	}
	w.Flush()
	return buf.Bytes()
}

// JSONL writes a version as Traceloop's SDKs read it: a first line with
// the columns, then one JSON object per row, by column slug.
func JSONL(cols []Column, rows []map[string]any) []byte {
	var buf bytes.Buffer
	head, _ := json.Marshal(map[string]any{"columns": cols})
	buf.Write(head)
	buf.WriteByte('\n')
	for _, r := range rows {
		b, _ := json.Marshal(r)
		buf.Write(b)
		buf.WriteByte('\n')
	}
	return buf.Bytes()
}

// MaxCSVBytes bounds a CSV a dataset takes in one upload.
const MaxCSVBytes = 4 << 20

// ParseCSV reads a CSV with a header line into columns (typed by what
// every value of a column parses as: number, boolean, else string) and
// rows by column slug (empty cells left out). A BOM is skipped; quoted
// fields may hold commas and newlines. A ragged line, an empty or
// repeated header, or more than MaxCSVBytes is an error that says where.
func ParseCSV(data []byte) ([]Column, []map[string]any, error) {
	if len(data) > MaxCSVBytes {
		return nil, nil, fieldErrorf("csv", "%d bytes is over the limit of %d", len(data), MaxCSVBytes)
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if !utf8.Valid(data) {
		return nil, nil, fieldErrorf("csv", "is not UTF-8 text")
	}
	r := csv.NewReader(bytes.NewReader(data))
	r.ReuseRecord = false
	records, err := r.ReadAll()
	if err != nil {
		return nil, nil, fieldErrorf("csv", "%v", err)
	}
	if len(records) == 0 {
		return nil, nil, fieldErrorf("csv", "is empty: send a header line, then one line per row")
	}
	header := records[0]
	if len(header) > MaxColumns {
		return nil, nil, fieldErrorf("csv", "%d columns; a dataset has at most %d", len(header), MaxColumns)
	}
	var ds Dataset
	for i, name := range header {
		col, err := ds.NewColumn(Column{Name: strings.TrimSpace(name)})
		if err != nil {
			return nil, nil, fieldErrorf(fmt.Sprintf("csv header, column %d", i+1), "%v", err)
		}
		ds.Columns = append(ds.Columns, col)
	}
	if len(records)-1 > MaxRows {
		return nil, nil, fieldErrorf("csv", "%d rows; a dataset holds at most %d", len(records)-1, MaxRows)
	}
	// Type each column by what all its values parse as.
	for i := range ds.Columns {
		num, boolean, any := true, true, false
		for _, rec := range records[1:] {
			v := strings.TrimSpace(rec[i])
			if v == "" {
				continue
			}
			any = true
			if f, err := strconv.ParseFloat(v, 64); err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
				num = false
			}
			if _, err := strconv.ParseBool(v); err != nil || (v != "true" && v != "false") {
				boolean = false
			}
		}
		switch {
		case any && num:
			ds.Columns[i].Type = TypeNumber
		case any && boolean:
			ds.Columns[i].Type = TypeBoolean
		}
	}
	rows := make([]map[string]any, 0, len(records)-1)
	for _, rec := range records[1:] {
		row := map[string]any{}
		for i, c := range ds.Columns {
			if v := strings.TrimSpace(rec[i]); v != "" {
				row[c.Slug] = v
			}
		}
		rows = append(rows, row)
	}
	return ds.Columns, rows, nil
}
