package warehouse

import (
	"math"
	"slices"
	"strconv"
)

// appendEvaluationsJSON appends json.Marshal(evals) to dst without
// reflection, for the evaluations the evaluator processor records: plain
// strings, finite scores in encoding/json's fixed-point range, outputs of
// strings, booleans, numbers and nulls. ok is false when an evaluation
// holds anything else (a string with a character JSON escapes, a score
// json writes with an exponent, another output type): the caller then
// uses json.Marshal, which this is byte for byte (TestEncodeEvaluations
// compares them).
func appendEvaluationsJSON(dst []byte, evals []Evaluation) ([]byte, bool) {
	dst = append(dst, '[')
	var keys []string
	for i := range evals {
		ev := &evals[i]
		if ev.Explanation != nil {
			return dst, false // json.Marshal writes its findings
		}
		if i > 0 {
			dst = append(dst, ',')
		}
		var ok bool
		dst = append(dst, `{"name":`...)
		if dst, ok = appendPlainString(dst, ev.Name); !ok {
			return dst, false
		}
		dst = append(dst, `,"score_value":`...)
		if dst, ok = appendPlainFloat(dst, ev.ScoreValue); !ok {
			return dst, false
		}
		if ev.ScoreLabel != "" {
			dst = append(dst, `,"score_label":`...)
			if dst, ok = appendPlainString(dst, ev.ScoreLabel); !ok {
				return dst, false
			}
		}
		if len(ev.Output) > 0 {
			dst = append(dst, `,"output":{`...)
			keys = keys[:0]
			for k := range ev.Output {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for j, k := range keys {
				if j > 0 {
					dst = append(dst, ',')
				}
				if dst, ok = appendPlainString(dst, k); !ok {
					return dst, false
				}
				dst = append(dst, ':')
				switch v := ev.Output[k].(type) {
				case string:
					dst, ok = appendPlainString(dst, v)
				case bool:
					dst = strconv.AppendBool(dst, v)
				case float64:
					dst, ok = appendPlainFloat(dst, v)
				case int64:
					dst = strconv.AppendInt(dst, v, 10)
				case int:
					dst = strconv.AppendInt(dst, int64(v), 10)
				case nil:
					dst = append(dst, "null"...)
				default:
					ok = false
				}
				if !ok {
					return dst, false
				}
			}
			dst = append(dst, '}')
		}
		for _, f := range [...]struct{ key, v string }{{`,"monitor_id":`, ev.MonitorID}, {`,"error":`, ev.Error}} {
			if f.v != "" {
				dst = append(dst, f.key...)
				if dst, ok = appendPlainString(dst, f.v); !ok {
					return dst, false
				}
			}
		}
		if ev.Time != 0 {
			dst = append(dst, `,"time":`...)
			dst = strconv.AppendInt(dst, ev.Time, 10)
		}
		if ev.Verdict != "" {
			dst = append(dst, `,"verdict":`...)
			if dst, ok = appendPlainString(dst, ev.Verdict); !ok {
				return dst, false
			}
		}
		if ev.Truncated {
			dst = append(dst, `,"truncated":true`...)
		}
		dst = append(dst, '}')
	}
	return append(dst, ']'), true
}

// appendPlainString appends s as a JSON string when json.Marshal writes
// it as it is: printable ASCII without '"', '\\' and the characters it
// escapes for HTML ('<', '>', '&').
func appendPlainString(dst []byte, s string) ([]byte, bool) {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c < 0x20 || c > 0x7e, c == '"', c == '\\', c == '<', c == '>', c == '&':
			return dst, false
		}
	}
	dst = append(dst, '"')
	dst = append(dst, s...)
	return append(dst, '"'), true
}

// appendPlainFloat appends f as json.Marshal does when it writes it
// without an exponent (0, and magnitudes from 1e-6 to below 1e21).
func appendPlainFloat(dst []byte, f float64) ([]byte, bool) {
	if a := math.Abs(f); math.IsNaN(f) || (a != 0 && (a < 1e-6 || a >= 1e21)) {
		return dst, false
	}
	return strconv.AppendFloat(dst, f, 'f', -1, 64), true
}
