package toxicity

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"

	"github.com/evalcol/evalcol/evaluators/internal/textclass"
)

// ChallengeRow is one hand-written row of testdata/challenge.jsonl: toxic
// language outside the style of the Davidson tweets, and benign text that
// looks toxic to a word-based classifier.
type ChallengeRow struct {
	ID       string `json:"id"`
	Text     string `json:"text"`
	Label    bool   `json:"label"` // true: toxic
	Category string `json:"category"`
}

// challengeSplitKey seeds the dev/test split of the challenge set.
const challengeSplitKey = "toxchallenge-v1:"

// InChallengeTest reports whether the challenge row id belongs to the
// test half (FNV-1a of challengeSplitKey+id mod 100 < 50), which is only
// reported on; the other half is the dev half the rules were tuned on.
func InChallengeTest(id string) bool {
	return textclass.InHoldout(challengeSplitKey+id, 50)
}

// ReadChallenge decodes challenge rows, one JSON object a line.
func ReadChallenge(r io.Reader) ([]ChallengeRow, error) {
	var rows []ChallengeRow
	sc := bufio.NewScanner(r)
	for line := 1; sc.Scan(); line++ {
		var row ChallengeRow
		if err := json.Unmarshal(sc.Bytes(), &row); err != nil {
			return nil, fmt.Errorf("challenge line %d: %w", line, err)
		}
		if row.ID == "" || row.Text == "" || row.Category == "" {
			return nil, fmt.Errorf("challenge line %d: id, text and category are required", line)
		}
		rows = append(rows, row)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read challenge: %w", err)
	}
	return rows, nil
}
