package main

import (
	_ "embed"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"strconv"
	"strings"
	"unicode"
)

// The pii-detector template set: sentence frames written for this
// repository (testdata/piisynth/templates.txt) filled with fake values
// (testdata/piisynth/values.txt and the composers below). Records of one
// template id share a split: piiSynthTune says which template ids the
// recognizers may be tuned on; the others are scored as held-out groups.

//go:embed testdata/piisynth/templates.txt
var piiSynthTemplatesFile string

//go:embed testdata/piisynth/values.txt
var piiSynthValuesFile string

// piiSynthSeed fixes the fake values, so every run scores the same records.
const piiSynthSeed = 2026

// piiSynthVariants is the number of records per frame with slots: the
// first ones as written, the last one lower-cased.
const piiSynthVariants = 3

// piiSynthRecord is one generated record.
type piiSynthRecord struct {
	Template int
	Text     string
	Label    bool     // the frame has at least one slot
	Slots    []string // slot names filled, lower-cased, in order
	Lower    bool     // the whole record was lower-cased
}

// piiSynthTune reports whether records of template id may be tuned on:
// FNV-1a("piisynth-v1:"+id) is even, about half of the frames.
func piiSynthTune(id int) bool {
	h := fnv.New32a()
	h.Write([]byte("piisynth-v1:" + strconv.Itoa(id)))
	return h.Sum32()%2 == 0
}

// piiSynthRecords generates every record of the template set.
func piiSynthRecords() ([]piiSynthRecord, error) {
	pools, err := parsePools(piiSynthValuesFile)
	if err != nil {
		return nil, err
	}
	g := &piiFaker{rng: rand.New(rand.NewPCG(piiSynthSeed, 0)), pools: pools}
	var out []piiSynthRecord
	for n, line := range strings.Split(piiSynthTemplatesFile, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		idText, frame, ok := strings.Cut(line, " ")
		id, err := strconv.Atoi(idText)
		if !ok || err != nil {
			return nil, fmt.Errorf("templates.txt line %d: want \"<id> <frame>\"", n+1)
		}
		frame = strings.ReplaceAll(frame, `\n`, "\n")
		variants := piiSynthVariants
		if !strings.Contains(frame, "{") {
			variants = 2 // a negative, as written and lower-cased
		}
		for v := range variants {
			text, slots, err := g.fill(frame)
			if err != nil {
				return nil, fmt.Errorf("templates.txt line %d: %w", n+1, err)
			}
			lower := v == variants-1
			if lower {
				text = strings.ToLower(text)
			}
			out = append(out, piiSynthRecord{Template: id, Text: text, Label: len(slots) > 0, Slots: slots, Lower: lower})
		}
	}
	return out, nil
}

// parsePools reads the "[pool]" sections of values.txt.
func parsePools(file string) (map[string][]string, error) {
	pools := map[string][]string{}
	current := ""
	for n, line := range strings.Split(file, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]"):
			current = line[1 : len(line)-1]
		case current == "":
			return nil, fmt.Errorf("values.txt line %d: value before the first [pool]", n+1)
		default:
			pools[current] = append(pools[current], line)
		}
	}
	return pools, nil
}

// piiFaker composes fake values.
type piiFaker struct {
	rng   *rand.Rand
	pools map[string][]string
}

// fill replaces every {slot} of frame; an upper-case slot name gives an
// upper-case value.
func (g *piiFaker) fill(frame string) (string, []string, error) {
	var b strings.Builder
	var slots []string
	for {
		i := strings.IndexByte(frame, '{')
		if i < 0 {
			b.WriteString(frame)
			return b.String(), slots, nil
		}
		j := strings.IndexByte(frame[i:], '}')
		if j < 0 {
			return "", nil, fmt.Errorf("unclosed slot in %q", frame)
		}
		name := frame[i+1 : i+j]
		v, err := g.value(strings.ToLower(name))
		if err != nil {
			return "", nil, err
		}
		if name == strings.ToUpper(name) {
			v = strings.ToUpper(v)
		}
		b.WriteString(frame[:i])
		b.WriteString(v)
		slots = append(slots, strings.ToLower(name))
		frame = frame[i+j+1:]
	}
}

func (g *piiFaker) pick(pool string) string {
	p := g.pools[pool]
	return p[g.rng.IntN(len(p))]
}

func (g *piiFaker) oneOf(s ...string) string { return s[g.rng.IntN(len(s))] }

func (g *piiFaker) digits(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte('0' + g.rng.IntN(10))
	}
	return string(b)
}

func (g *piiFaker) upper(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte('A' + g.rng.IntN(26))
	}
	return string(b)
}

// invented makes a pronounceable capitalised word that is in no list
// ("Tavrenko", "Olandi").
func (g *piiFaker) invented() string {
	onsets := []string{"b", "br", "d", "dr", "f", "g", "gr", "h", "k", "kr", "l", "m", "n", "p", "pr", "r", "s", "st", "t", "tr", "v", "z", "th", "sh"}
	vowels := []string{"a", "e", "i", "o", "u", "ae", "ia", "ou"}
	codas := []string{"", "n", "r", "l", "s", "x", "nd", "rk", "th", "v"}
	var b strings.Builder
	for range 2 + g.rng.IntN(2) {
		b.WriteString(g.oneOf(onsets...))
		b.WriteString(g.oneOf(vowels...))
	}
	b.WriteString(g.oneOf(codas...))
	w := b.String()
	return strings.ToUpper(w[:1]) + w[1:]
}

func (g *piiFaker) value(slot string) (string, error) {
	switch slot {
	case "city":
		if g.rng.IntN(4) == 0 {
			return g.fakeTown(), nil
		}
		return g.pick("city"), nil
	case "region", "country", "job", "nrp":
		return g.pick(slot), nil
	case "first":
		if g.rng.IntN(5) == 0 {
			return g.invented(), nil
		}
		return g.pick("first"), nil
	case "last":
		if g.rng.IntN(5) == 0 {
			return g.invented(), nil
		}
		return g.pick("last"), nil
	case "person":
		first, _ := g.value("first")
		last, _ := g.value("last")
		switch g.rng.IntN(6) {
		case 0:
			return first + " " + g.upper(1) + ". " + last, nil
		case 1:
			return first + " " + last + "-" + g.pick("last"), nil
		}
		return first + " " + last, nil
	case "title":
		return g.oneOf("Mr.", "Mrs.", "Ms.", "Dr.", "Prof.", "Mx.", "Miss", "Mr", "Dr"), nil
	case "org":
		return g.org(), nil
	case "age":
		if g.rng.IntN(5) == 0 {
			return g.oneOf("nineteen", "twenty-two", "thirty", "thirty-five", "forty-one", "fifty", "sixty-seven", "seventy-three", "eighty"), nil
		}
		return strconv.Itoa(1 + g.rng.IntN(98)), nil
	case "date":
		return g.date(), nil
	case "time":
		h, m := g.rng.IntN(24), g.rng.IntN(60)
		switch g.rng.IntN(4) {
		case 0:
			return fmt.Sprintf("%d:%02d %s", 1+h%12, m, g.oneOf("am", "pm", "AM", "PM", "a.m.", "p.m.")), nil
		case 1:
			return fmt.Sprintf("%d%s", 1+h%12, g.oneOf("am", "pm")), nil
		}
		return fmt.Sprintf("%02d:%02d", h, m), nil
	case "weekday":
		return g.oneOf("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"), nil
	case "year":
		return strconv.Itoa(1950 + g.rng.IntN(75)), nil
	case "zip":
		return g.zip(), nil
	case "street":
		return g.street(), nil
	case "address":
		return g.address(), nil
	case "military":
		return g.military(), nil
	case "email":
		first, last := g.pick("first"), g.pick("last")
		user := strings.ToLower(asciiOnly(first) + g.oneOf(".", "_", "") + asciiOnly(last))
		return user + "@" + strings.ToLower(g.invented()) + g.oneOf(".com", ".net", ".org", ".de", ".co.uk", ".io"), nil
	case "phone":
		switch g.rng.IntN(4) {
		case 0:
			return fmt.Sprintf("(%d%s) %d%s-%s", 2+g.rng.IntN(8), g.digits(2), 2+g.rng.IntN(8), g.digits(2), g.digits(4)), nil
		case 1:
			return "+44 7" + g.digits(3) + " " + g.digits(6), nil
		case 2:
			return "+49 30 " + g.digits(8), nil
		}
		return fmt.Sprintf("%d%s.%d%s.%s", 2+g.rng.IntN(8), g.digits(2), 2+g.rng.IntN(8), g.digits(2), g.digits(4)), nil
	}
	return "", fmt.Errorf("unknown slot {%s}", slot)
}

// fakeTown composes a town name of the kind fake-data libraries make
// ("Port Ashdown", "Fenellaton", "Lake Brennan").
func (g *piiFaker) fakeTown() string {
	name := g.pick(g.oneOf("first", "last"))
	if strings.Contains(name, " ") {
		name = g.invented()
	}
	switch g.rng.IntN(3) {
	case 0:
		return g.oneOf("North", "South", "East", "West", "New", "Lake", "Port", "Fort", "Mount") + " " + name
	case 1:
		return strings.TrimRight(name, "aeiou") + g.oneOf("ville", "ton", "borough", "haven", "side", "mouth", "burgh", "stad", "field", "ford", "chester", "bury")
	}
	return g.oneOf("North", "South", "East", "West", "New", "Lake", "Port") + " " + strings.TrimRight(name, "aeiou") + g.oneOf("ville", "ton", "land", "view", "port")
}

func (g *piiFaker) org() string {
	last := func() string {
		l := g.pick("last")
		if strings.Contains(l, " ") || g.rng.IntN(4) == 0 {
			return g.invented()
		}
		return l
	}
	suffix := g.oneOf("Inc", "Inc.", "Ltd", "Ltd.", "LLC", "GmbH", "AG", "S.A.", "plc", "Corp.", "Group", "Holdings", "Partners",
		"Solutions", "Systems", "Analytics", "Logistics", "Labs", "Capital", "Insurance", "Foods", "Media", "Consulting", "Technologies")
	switch g.rng.IntN(6) {
	case 0:
		return last() + "-" + last()
	case 1:
		return last() + ", " + last() + " and " + last()
	case 2:
		return g.invented() + " " + suffix
	case 3:
		return last() + " " + suffix
	case 4:
		return g.oneOf("Blue", "Bright", "Clear", "North", "Silver", "Green", "Swift", "True", "Open", "Iron") +
			g.oneOf("path", "wave", "stone", "field", "bridge", "point", "gate", "line", "leaf", "water") + " " + suffix
	}
	return g.invented()
}

func (g *piiFaker) date() string {
	months := []string{"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"}
	d, mo, y := 1+g.rng.IntN(28), g.rng.IntN(12), 1940+g.rng.IntN(85)
	switch g.rng.IntN(8) {
	case 0:
		return fmt.Sprintf("%d %s %d", d, months[mo], y)
	case 1:
		return fmt.Sprintf("%s %d, %d", months[mo], d, y)
	case 2:
		return fmt.Sprintf("%d-%02d-%02d", y, mo+1, d)
	case 3:
		return fmt.Sprintf("%d/%d/%d", mo+1, d, y)
	case 4:
		return fmt.Sprintf("%02d.%02d.%d", d, mo+1, y)
	case 5:
		return fmt.Sprintf("%s %d", months[mo][:3], d)
	case 6:
		return fmt.Sprintf("the %s of %s", ordinal(d), months[mo])
	}
	return fmt.Sprintf("%s %s", months[mo], ordinal(d))
}

func ordinal(n int) string {
	suffix := "th"
	switch {
	case n%100 >= 11 && n%100 <= 13:
	case n%10 == 1:
		suffix = "st"
	case n%10 == 2:
		suffix = "nd"
	case n%10 == 3:
		suffix = "rd"
	}
	return strconv.Itoa(n) + suffix
}

func (g *piiFaker) zip() string {
	switch g.rng.IntN(9) {
	case 0:
		return g.digits(5) + "-" + g.digits(4)
	case 1:
		return g.upper(2) + strconv.Itoa(1+g.rng.IntN(9)) + " " + strconv.Itoa(g.rng.IntN(10)) + g.upper(2)
	case 2:
		return strconv.Itoa(1000+g.rng.IntN(9000)) + " " + g.upper(2)
	case 3:
		return g.digits(2) + "-" + g.digits(3)
	case 4:
		return strconv.Itoa(1000+g.rng.IntN(9000)) + "-" + g.digits(3)
	case 5:
		return g.digits(3) + " " + g.digits(2)
	case 6:
		return g.upper(1) + strconv.Itoa(g.rng.IntN(10)) + g.upper(1) + " " + strconv.Itoa(g.rng.IntN(10)) + g.upper(1) + strconv.Itoa(g.rng.IntN(10))
	case 7:
		return strconv.Itoa(1000 + g.rng.IntN(9000))
	}
	return g.digits(5)
}

func (g *piiFaker) streetName() string {
	switch g.rng.IntN(4) {
	case 0:
		return g.invented()
	case 1:
		return g.oneOf("Oak", "Maple", "Mill", "Church", "Station", "Harbour", "Orchard", "Willow", "Quarry", "Chapel")
	case 2:
		return ordinal(1 + g.rng.IntN(120))
	}
	l := g.pick("last")
	if strings.Contains(l, " ") {
		return g.invented()
	}
	return l
}

func (g *piiFaker) street() string {
	n := strconv.Itoa(1 + g.rng.IntN(9999))
	name := g.streetName()
	switch g.rng.IntN(9) {
	case 0:
		return name + g.oneOf("straße", "strasse", "weg", "gasse", "gatan", "vej", "katu") + " " + strconv.Itoa(1+g.rng.IntN(200))
	case 1:
		return n[:min(len(n), 2)] + " " + g.oneOf("rue", "Rue", "avenue", "boulevard", "chemin") + " " + g.oneOf("de", "du", "des") + " " + g.invented()
	case 2:
		return g.oneOf("Via", "Calle", "Rua", "ul.", "Avenida", "Carrer") + " " + name + " " + strconv.Itoa(1+g.rng.IntN(300))
	case 3:
		return n + " " + name + " " + g.oneOf("Street", "St.", "Avenue", "Ave.", "Road", "Rd", "Lane", "Drive", "Court", "Way", "Boulevard", "Place") + ", " + g.oneOf("Apt.", "Apt", "Suite", "Unit", "Flat") + " " + strconv.Itoa(1+g.rng.IntN(900))
	case 4:
		return n + " " + strings.ToLower(name) + " " + g.oneOf("street", "st", "avenue", "ave", "road", "rd", "lane", "ln", "drive", "dr")
	case 5:
		return strconv.Itoa(1+g.rng.IntN(99)) + " Rue de " + g.invented() + " " + g.oneOf("Ave.", "St.", "Blvd.")
	}
	return n + " " + name + " " + g.oneOf("Street", "St", "Avenue", "Ave", "Road", "Rd", "Lane", "Ln", "Drive", "Dr", "Court", "Ct", "Way", "Terrace", "Crescent", "Highway", "Parkway", "Circle", "Loop", "Trail")
}

func (g *piiFaker) address() string {
	city := g.pick("city")
	switch g.rng.IntN(5) {
	case 0:
		return g.street() + "\n" + city + ", " + g.upper(2) + " " + g.zip()
	case 1:
		return g.street() + ", " + g.zip() + " " + city + ", " + g.pick("country")
	case 2:
		return g.oneOf("PO Box", "P.O. Box", "Box", "Postfach", "Apartado") + " " + g.digits(3+g.rng.IntN(2)) + ", " + city
	case 3:
		return g.oneOf("Flat", "Unit", "Apartment") + " " + strconv.Itoa(1+g.rng.IntN(40)) + ", " + g.street() + ", " + city
	}
	return g.street() + "\n" + g.zip() + " " + city + "\n" + g.pick("country")
}

func (g *piiFaker) military() string {
	region := g.oneOf("AA", "AE", "AP")
	switch g.rng.IntN(4) {
	case 0:
		return fmt.Sprintf("PSC %s, Box %s\nAPO %s %s", g.digits(4), g.digits(4), region, g.digits(5))
	case 1:
		return fmt.Sprintf("Unit %s Box %s\nDPO %s %s", g.digits(4), g.digits(4), region, g.digits(5))
	case 2:
		return fmt.Sprintf("USNS %s\nFPO %s %s", g.pick("last"), region, g.digits(5))
	}
	return fmt.Sprintf("psc %s box %s apo %s %s", g.digits(4), g.digits(4), strings.ToLower(region), g.digits(5))
}

// asciiOnly keeps the ASCII letters of s (for email user names).
func asciiOnly(s string) string {
	return strings.Map(func(r rune) rune {
		if r < unicode.MaxASCII && unicode.IsLetter(r) {
			return r
		}
		return -1
	}, s)
}
