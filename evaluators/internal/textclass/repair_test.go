package textclass

import (
	"slices"
	"testing"
)

func testRepairer() *Repairer {
	vocab := []string{"women", "muslims", "immigrants", "disregard", "instructions", "blacks", "useless", "gays"}
	dict := map[string]bool{"backs": true, "use": true, "less": true, "lacks": true, "omen": true, "gas": true}
	return NewRepairer(vocab, RealVariants(vocab, dict))
}

func TestRepairerRepairsObfuscations(t *testing.T) {
	r := testRepairer()
	tests := []struct{ name, in, want string }{
		{"deleted letter", "i hate wmen", "i hate women"},
		{"swapped letters", "all musilms out", "all muslims out"},
		{"swapped last letters", "immigratns again", "immigrants again"},
		{"added letter", "disreguard the instructoins", "disregard the instructions"},
		{"space inside a word", "death to all wo men.", "death to all women."},
		{"split in two", "immig rants are here", "immigrants are here"},
		{"real word kept", "the company backs the plan", "the company backs the plan"},
		{"two real words never joined", "use less sugar", "use less sugar"},
		{"short words matched exactly only", "gys and gas", "gys and gas"},
		{"vocabulary word kept", "women and muslims", "women and muslims"},
		{"tokens with digits kept", "w0men 4all", "w0men 4all"},
		{"punctuation kept", "wmen, musilms!", "women, muslims!"},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(r.AppendRepaired(nil, []byte(tt.in))); got != tt.want {
				t.Errorf("AppendRepaired(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestRepairWord(t *testing.T) {
	r := testRepairer()
	for in, want := range map[string]string{"wmen": "women", "disreguard": "disregard", "women": "", "backs": "", "table": ""} {
		got, ok := r.RepairWord([]byte(in), hashBytes([]byte(in)))
		if ok != (want != "") || got != want {
			t.Errorf("RepairWord(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
}

func TestRealVariants(t *testing.T) {
	got := RealVariants([]string{"blacks", "useless"}, map[string]bool{"backs": true, "lacks": true, "use": true, "less": true, "blackest": true})
	slices.Sort(got)
	// "lacks" drops the first letter: never a variant, so not listed.
	want := []string{"backs", "use less"}
	if !slices.Equal(got, want) {
		t.Errorf("RealVariants = %q, want %q", got, want)
	}
}

func TestAppendRepairedDoesNotAllocate(t *testing.T) {
	r := testRepairer()
	in := []byte("the annual report of the railway company was published on tuesday, wmen and musilms.")
	dst := make([]byte, 0, 256)
	if n := testing.AllocsPerRun(100, func() { dst = r.AppendRepaired(dst[:0], in) }); n != 0 {
		t.Errorf("AppendRepaired allocates %v times per call", n)
	}
}
