package pyregex

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
)

// TestSearchMatchesPython checks Search against the result of Python's
// re.search(pattern, text, flags), recorded from CPython 3.11.
func TestSearchMatchesPython(t *testing.T) {
	tests := []struct {
		name    string
		pattern string
		flags   Flags
		text    string
		want    bool
	}{
		{"literal found", `world`, Flags{}, "hello world", true},
		{"literal absent", `planet`, Flags{}, "hello world", false},
		{"search not anchored", `\d+`, Flags{}, "order 66 now", true},
		{"named group and backref", `(?P<w>\w+) (?P=w)`, Flags{}, "it is is here", true},
		{"named backref absent", `(?P<w>\w+) (?P=w)\b`, Flags{}, "it is here", false},
		{"numbered backref after named group", `(?P<a>x)(y)\2`, Flags{}, "xyy", true},
		{"numbered backref not to named group", `(?P<a>x)(y)\2`, Flags{}, "xyx", false},
		{"named conditional yes", `(?P<q>')?\w+(?(q)')`, Flags{}, "'abc'", true},
		{"backref digit follows", `(?P<a>a)(?P=a)0`, Flags{}, "aa0", true},
		{"backslash Z end", `abc\Z`, Flags{}, "abc", true},
		{"backslash Z not before final newline", `abc\Z`, Flags{}, "abc\n", false},
		{"dollar before final newline", `abc$`, Flags{}, "abc\n", true},
		{"escaped backslash then Z", `a\\Z`, Flags{}, "a\\Z", true},
		{"escaped P group is literal", `\(?P<x>y\)`, Flags{}, "(?P<x>y)", true},
		{"class keeps P", `[(?P<]+`, Flags{}, "P<", true},
		{"leading bracket in class", `[]a]+$`, Flags{}, "x]a]", true},
		{"negated leading bracket", `^[^]]+$`, Flags{}, "abc", true},
		{"bracket in class literal", `[a-c-[x]+$`, Flags{}, "b[x", true},
		{"class subtraction not applied", `^[a-z-[aeiou]]$`, Flags{}, "a]", true},
		{"brace open min", `^a{,2}$`, Flags{}, "aa", true},
		{"brace open min too many", `^a{,2}$`, Flags{}, "aaa", false},
		{"upper U escape", `\U0001F600`, Flags{}, "smile \U0001f600", true},
		{"inline u flag", `(?u)\w+`, Flags{}, "\u00e9t\u00e9", true},
		{"inline iu flags", `(?iu)ABC`, Flags{}, "abc", true},
		{"comment with bracket", `a(?#[)b`, Flags{}, "ab", true},
		{"ignore case off", `hello`, Flags{}, "HELLO", false},
		{"ignore case on", `hello`, Flags{IgnoreCase: true}, "HELLO", true},
		{"dot no newline", `a.b`, Flags{}, "a\nb", false},
		{"dot all", `a.b`, Flags{DotAll: true}, "a\nb", true},
		{"caret single line", `^b`, Flags{}, "a\nb", false},
		{"caret multi line", `^b`, Flags{MultiLine: true}, "a\nb", true},
		{"unicode word", `^\w+$`, Flags{}, "na\u00efve", true},
		{"unicode digit", `^\d+$`, Flags{}, "\u0663\u0664", true},
		{"unicode space", `a\sb`, Flags{}, "a\u3000b", true},
		{"word boundary unicode", "\\b\u00e9", Flags{}, "caf\u00e9 \u00e9t\u00e9", true},
		{"lookbehind", `(?<=\$)\d+`, Flags{}, "cost $42", true},
		{"lookahead negative", `foo(?!bar)`, Flags{}, "foobar", false},
		{"empty pattern", ``, Flags{}, "", true},
		{"non capturing", `(?:ab)+c`, Flags{}, "ababc", true},
		{"verbose comment with bracket and group", "(?x) a [#]  b # comment with [ and (?P<x>\n c\\Z", Flags{}, "a#bc", true},
		{"verbose comment naming unknown group", "(?ix) A # (?P=nope)\n", Flags{}, "a", true},
		{"unicode case fold", "stra\u00dfe", Flags{IgnoreCase: true}, "STRA\u00dfE", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			re, err := Compile(tt.pattern, tt.flags, 0)
			if err != nil {
				t.Fatalf("Compile(%q): %v", tt.pattern, err)
			}
			got, err := re.Search(tt.text)
			if err != nil {
				t.Fatalf("Search: %v", err)
			}
			if got != tt.want {
				t.Errorf("Search(%q, %q) = %v, want %v (Python)", tt.pattern, tt.text, got, tt.want)
			}
		})
	}
}

func TestTranslate(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"plain", `a+b`, `a+b`},
		{"named group", `(?P<year>\d{4})`, `(\d{4})`},
		{"named backref", `(?P<w>\w)(?P=w)`, `(\w)\k<1>`},
		{"named backref after numbered group", `(a)(?P<w>b)(?P=w)\1`, `(a)(b)\k<2>\1`},
		{"named condition", `(?P<q>')?x(?(q)')`, `(')?x(?(1)')`},
		{"numbered condition", `(a)?(?(1)b|c)`, `(a)?(?(1)b|c)`},
		{"end of string", `x\Z`, `x\z`},
		{"escaped backslash before Z", `x\\Z`, `x\\Z`},
		{"escaped paren", `\(?P<a>`, `\(?P<a>`},
		{"group inside class untouched", `[(?P<a>]`, `[(?P<a>]`},
		{"Z inside class untouched", `[\Z]`, `[\Z]`},
		{"bracket inside class escaped", `[a-[b]`, `[a-\[b]`},
		{"leading close bracket", `[]]x\Z`, `[]]x\z`},
		{"negated leading close bracket", `[^]]\Z`, `[^]]\z`},
		{"escaped close bracket in class", `[\]\Z]\Z`, `[\]\Z]\z`},
		{"open minimum", `a{,3}`, `a{0,3}`},
		{"brace literal", `a{,x}`, `a{,x}`},
		{"upper U", `\U0001F600`, `\x{0001F600}`},
		{"short upper U left alone", `\U0001`, `\U0001`},
		{"u flag dropped", `(?u)a`, `a`},
		{"u flag dropped keeps others", `(?iu:a)`, `(?i:a)`},
		{"other flags kept", `(?i)a`, `(?i)a`},
		{"comment copied", `a(?#[(?P<x>)b`, `a(?#[(?P<x>)b`},
		{"lookbehind kept", `(?<=a)b(?<!c)`, `(?<=a)b(?<!c)`},
		{"non-ASCII name", `(?P<año>\d)(?P=año)`, `(\d)\k<1>`},
		{"trailing backslash", `a\`, `a\`},
		{"verbose comment untouched", "(?x)a # [(?P<n>\n\\Z", "(?x)a # [(?P<n>\n\\z"},
		{"hash without verbose is literal", `(?i)a#(?P<n>b)`, `(?i)a#(b)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Translate(tt.in)
			if err != nil {
				t.Fatalf("Translate(%q): %v", tt.in, err)
			}
			if got != tt.want {
				t.Errorf("Translate(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestCompileErrors(t *testing.T) {
	tests := []struct {
		name, pattern, wantErr string
	}{
		{"unknown group name", `(?P=nope)`, `unknown group name "nope"`},
		{"duplicate group name", `(?P<a>x)(?P<a>y)`, `redefinition of group name "a"`},
		{"bad group name", `(?P<1a>x)`, `bad character in group name "1a"`},
		{"unterminated group name", `(?P<abc`, `missing > after group name`},
		{"unterminated comment", `(?#abc`, `unterminated comment`},
		{"unbalanced paren", `(abc`, `missing closing )`},
		{"unterminated class", `[abc`, `unterminated [] set`},
		{"hash is no comment without verbose", `a#[b`, `unterminated [] set`},
		{"nothing to repeat", `*a`, `missing argument to repetition operator`},
		{"trailing backslash", `a\`, `illegal \ at end of pattern`},
		{"undefined numbered backref", `(a)\2`, `reference to undefined group number 2`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Compile(tt.pattern, Flags{}, 0)
			if err == nil {
				t.Fatalf("Compile(%q) succeeded, want an error", tt.pattern)
			}
			if !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("Compile(%q) error = %q, want it to contain %q", tt.pattern, err, tt.wantErr)
			}
		})
	}
}

func TestSearchTimesOut(t *testing.T) {
	re, err := Compile(`(a+)+$`, Flags{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if re.Timeout() != DefaultTimeout {
		t.Errorf("Timeout() = %v, want %v", re.Timeout(), DefaultTimeout)
	}
	text := strings.Repeat("a", 50000) + "!"
	got, err := re.Search(text)
	if !errors.Is(err, ErrTimeout) {
		t.Fatalf("Search = %v, %v; want ErrTimeout", got, err)
	}
	if len(err.Error()) > 100 {
		t.Errorf("timeout error quotes the input (%d bytes): %.100q...", len(err.Error()), err)
	}
	if !strings.Contains(err.Error(), "regex timed out after 250ms") {
		t.Errorf("error = %q, want it to name the limit", err)
	}
}

func TestCompileSetsTimeout(t *testing.T) {
	re, err := Compile(`a`, Flags{}, 10*DefaultTimeout)
	if err != nil {
		t.Fatal(err)
	}
	if re.Timeout() != 10*DefaultTimeout {
		t.Errorf("Timeout() = %v, want %v", re.Timeout(), 10*DefaultTimeout)
	}
}

func TestCache(t *testing.T) {
	c := NewCache(4, 0)
	a1, err := c.Compile(`a+`, Flags{})
	if err != nil {
		t.Fatal(err)
	}
	a2, _ := c.Compile(`a+`, Flags{})
	if a1 != a2 {
		t.Error("same pattern and flags compiled twice")
	}
	ai, _ := c.Compile(`a+`, Flags{IgnoreCase: true})
	if ai == a1 {
		t.Error("different flags share one compiled pattern")
	}
	if ok, _ := ai.Search("AAA"); !ok {
		t.Error("cached IgnoreCase pattern does not ignore case")
	}
	_, err1 := c.Compile(`(`, Flags{})
	_, err2 := c.Compile(`(`, Flags{})
	if err1 == nil || err1 != err2 {
		t.Errorf("compile error not cached: %v, %v", err1, err2)
	}
	for i := range 20 {
		if _, err := c.Compile(fmt.Sprintf("x%d", i), Flags{}); err != nil {
			t.Fatal(err)
		}
	}
	if n := c.Len(); n != 4 {
		t.Errorf("Len() = %d after 23 patterns, want the bound 4", n)
	}
}

func TestCacheConcurrent(t *testing.T) {
	c := NewCache(8, 0)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 200 {
				p := fmt.Sprintf("p%d", (g+i)%16)
				re, err := c.Compile(p, Flags{})
				if err != nil {
					t.Error(err)
					return
				}
				if ok, err := re.Search("xx" + p + "yy"); !ok || err != nil {
					t.Errorf("Search(%q) = %v, %v", p, ok, err)
					return
				}
			}
		})
	}
	wg.Wait()
	if n := c.Len(); n > 8 {
		t.Errorf("Len() = %d, over the bound 8", n)
	}
}

func FuzzTranslate(f *testing.F) {
	for _, seed := range []string{
		``, `a`, `(?P<n>a)(?P=n)`, `(?P<n>`, `(?P=`, `(?P=)`, `(?(`, `(?(x)a|b)`, `\Z`, `\`,
		`[`, `[]`, `[^]`, `[\]]`, `[[]`, `a{,`, `a{,3}`, `\U0001F600`, `\U0001F6`, `(?u`, `(?u)`,
		`(?iu:`, `(?#`, "(?x)#[\n(?P<a>", `(?x`, `(?xi)`, `(?P<a>x)(?P<a>y)`, `(a+)+$`, `\x{110000}`, `(?<=a)`, "\xff(?P<\xff>)",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, pattern string) {
		tr, err := Translate(pattern)
		if err != nil {
			return
		}
		for _, flags := range []Flags{{}, {IgnoreCase: true, DotAll: true, MultiLine: true}} {
			re, err := Compile(pattern, flags, DefaultTimeout/10)
			if err != nil {
				continue
			}
			if _, err := re.Search(tr); err != nil && !errors.Is(err, ErrTimeout) {
				t.Errorf("Search: %v", err)
			}
		}
	})
}

func BenchmarkSearch(b *testing.B) {
	re, err := Compile(`\b(?P<word>[Qq]uick)\b`, Flags{}, 0)
	if err != nil {
		b.Fatal(err)
	}
	text := strings.Repeat("The lazy dog sleeps in the warm afternoon sun. ", 21) + "A quick fox."
	b.ReportAllocs()
	for b.Loop() {
		if ok, err := re.Search(text); !ok || err != nil {
			b.Fatal(ok, err)
		}
	}
}

func BenchmarkCacheCompileHit(b *testing.B) {
	c := NewCache(0, 0)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Compile(`\d{3}-\d{4}`, Flags{}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestKnownDifferencesFromPython pins the documented places where regexp2's
// Unicode classes differ from Python's, so that a change of options shows.
func TestKnownDifferencesFromPython(t *testing.T) {
	tests := []struct {
		name, pattern, text string
		want, python        bool
	}{
		{"information separator is not \\s", `\s`, "\x1c", false, true},
		{"combining mark is \\w", `^\w+$`, "e\u0301", true, false},
		{"superscript two is not \\w", `\w`, "²", false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			re, err := Compile(tt.pattern, Flags{}, 0)
			if err != nil {
				t.Fatal(err)
			}
			got, err := re.Search(tt.text)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("Search(%q, %q) = %v, want %v (Python: %v)", tt.pattern, tt.text, got, tt.want, tt.python)
			}
		})
	}
}
