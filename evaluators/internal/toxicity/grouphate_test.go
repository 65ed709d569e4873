package toxicity

import (
	"testing"

	"github.com/evalcol/evalcol/evaluators/internal/textclass"
)

// The sentences here are written for these tests; the functional suite
// (testdata/functional.jsonl) is scored by the quality command instead.
func TestGroupHateConstructions(t *testing.T) {
	tests := []struct {
		name string
		text string
		want Category // "" when nothing may be found
	}{
		{"threat against a group", "We are going to burn the houses of the immigrants tonight.", Threat},
		{"death to a group", "Death to all Muslims.", Threat},
		{"dehumanising comparison", "Refugees are nothing but a swarm of locusts.", Dehumanisation},
		{"dehumanising simile", "Gay people spread like a disease.", Dehumanisation},
		{"derogation as opinion", "I honestly think disabled people are inferior.", IdentityHate},
		{"derogation as question", "Why are Jews so greedy?", ""},
		{"question with a hate predicate", "Why are women so stupid?", IdentityHate},
		{"rhetorical tag", "Isn't it clear that immigrants are parasites?", Dehumanisation},
		{"exclusion", "This country would be better off without Muslims.", IdentityHate},
		{"othering", "Trans people should never get the same respect as normal people.", IdentityHate},

		{"stereotype", "Gypsies always steal whatever they can reach.", IdentityHate},
		{"cannot be trusted", "Muslims can never be trusted with power.", IdentityHate},
		{"do not belong", "Immigrants will never belong in this country.", IdentityHate},
		{"neutral habit", "Many refugees always call their families on Sundays.", ""},
		{"emotion", "Honestly, Muslims disgust me.", IdentityHate},
		{"make me sick", "Trans people make me sick.", IdentityHate},
		{"profanity at a group", "Fuck all immigrants.", IdentityHate},
		{"insult predicate", "Gay men are assholes, all of them.", Insult},
		{"negated positive", "Women are not intelligent enough to vote.", IdentityHate},
		{"no respect", "I don't respect Black people.", IdentityHate},
		{"negated hate", "Women are not inferior to men.", ""},
		{"respect", "I respect disabled people and their work.", ""},
		{"pronoun reference", "I can't stand refugees. They are vermin.", Dehumanisation},
		{"pronoun reference derogation", "Don't get me started on trans people. They're disgusting.", IdentityHate},
		{"pronoun reference negated", "Many refugees arrived. They are not criminals.", ""},
		{"pronoun without a group", "The printers broke again. They are useless.", ""},
		{"report of violence", "Three refugees were killed in the fire last night.", ""},
		{"neutral mention", "Many immigrants work in the health service.", ""},
		{"negated", "Muslims are not terrorists.", ""},
		{"counter-speech", `Saying "women are inferior" is sexism, plain and simple.`, ""},
		{"reported", "Someone wrote that Black people are animals and I reported it.", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := Detect(tt.text)
			if ok != (tt.want != "") || got != tt.want {
				t.Errorf("Detect(%q) = %q, %v; want %q", tt.text, got, ok, tt.want)
			}
		})
	}
}

func TestReclaimedAndUntargeted(t *testing.T) {
	tests := []struct {
		text                  string
		reclaimed, untargeted bool
	}{
		{"As a proud dyke I'm marching on Saturday.", true, false},
		{"We queers know how to throw a party.", true, false},
		{"You are a dyke.", false, false},
		{"Fucking hell, the bus is late again.", false, true},
		{"What the fuck is this weather.", false, true},
		{"Fuck you.", false, false},
		{"This bitch is crazy as hell.", false, false},
		{"Thanks for the help.", false, false},
	}
	for _, tt := range tests {
		f := textclass.AppendFold(nil, tt.text)
		if got := Reclaimed(f); got != tt.reclaimed {
			t.Errorf("Reclaimed(%q) = %v, want %v", tt.text, got, tt.reclaimed)
		}
		if got := Untargeted(f); got != tt.untargeted {
			t.Errorf("Untargeted(%q) = %v, want %v", tt.text, got, tt.untargeted)
		}
	}
	if got := string(Mask(nil, []byte("fucking hell, the bus is late"))); got != " , the bus is late" {
		t.Errorf("Mask = %q", got)
	}
}

func TestRepairerVocabulary(t *testing.T) {
	r := NewRepairer([]string{"faggot"})
	for in, want := range map[string]string{"i hate musilms": "i hate muslims", "you faggto": "you faggot", "a fagot of sticks": "a fagot of sticks", "the board backs it": "the board backs it"} {
		if got := string(r.AppendRepaired(nil, []byte(in))); got != want {
			t.Errorf("repair %q = %q, want %q", in, got, want)
		}
	}
}
