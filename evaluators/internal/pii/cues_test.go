package pii

import "testing"

// Rules that read names and addresses from the words around them: lists,
// name particles, work nouns, vocatives, accented pairs, lower-case middle
// initials, sharing words before a link, intersections.

func TestPersonLists(t *testing.T) {
	runScoreCases(t, Person, []scoreCase{
		{"list of three boosts a census surname", "Our three founders: Talbeck, Kowalczyk and Whitfield.", "Kowalczyk", 0.8},
		{"list of three with two known names boosts an unknown word", "Our three founders: Talbeck, Kowalczyk and Whitfield.", "Talbeck", 0.7},
		{"list of three with one known name leaves an unknown word", "Our three founders: Talbeck, Quorvax and Whitfield.", "Talbeck", 0.35},
		{"pair before a plural verb", "Kowalczyk and Whitfield were engineers.", "Whitfield", 0.8},
		{"pair with an ampersand before both", "Kowalczyk & Whitfield both sang.", "Kowalczyk", 0.8},
		{"pair without a plural verb reads as a firm", "What industry is Kowalczyk and Whitfield in?", "Kowalczyk", 0.45},
		{"list after a singular verb reads as a firm", "Where is Gonzalez, Kowalczyk and Whitfield located?", "Gonzalez", 0.45},
		{"list after a place preposition", "They toured in Whitfield, Gonzalez and Kowalczyk last year.", "Gonzalez", 0.45},
		{"commas alone make no list", "the largest in south Texas, Gonzalez or La Plaza", "Gonzalez", 0.45},
		{"list ending in an organisation", "The Whitfield, Gonzalez and Kowalczyk Orchestra played.", "Whitfield", 0},
		{"full names before an organisation stay", "Are both Maurice Newman and Macquarie University old?", "Maurice Newman", 0.85},
	})
}

func TestPersonCues(t *testing.T) {
	runScoreCases(t, Person, []scoreCase{
		{"work noun after a census surname", "Unlike the Whitfield novel, it is short.", "Whitfield", 0.8},
		{"work noun after an unknown word", "Unlike the Quorvax novel, it is short.", "Quorvax", 0.35},
		{"name particle", "Zorvan van Quellbrunn will speak today", "Zorvan van Quellbrunn", 0.75},
		{"particle pair", "a talk by Zorvan van der Quell today", "Zorvan van der Quell", 0.75},
		{"particle before a lower-case word is dropped", "we meet Zorvan van at noon", "Zorvan", 0.35},
		{"accented pair", "Maybe it is under Dravék Oszlányi", "Dravék Oszlányi", 0.7},
		{"accented run of three", "the band Blue Öyster Cult played", "Blue Öyster Cult", 0.4},
		{"unaccented unknown pair", "Maybe it is under Dravek Oszlanyi", "Dravek Oszlanyi", 0.4},
		{"vocative request", "Quorvax, can I please speak to your boss?", "Quorvax", 0.7},
		{"vocative on a new line", "Hi\nQuorvax, please call back", "Quorvax", 0.7},
		{"interjection is no vocative", "Sorry, can I ask something?", "Sorry", 0.35},
		{"adverb is no vocative", "Honestly, could you stop?", "Honestly", 0.35},
		{"comma without a request", "Quorvax, the capital, is far", "Quorvax", 0.35},
		{"vocative only opens a line", "Then Quorvax, can you see?", "Quorvax", 0.35},
		{"lower-case middle initial", "notes by wanda j. kravchenko today", "wanda j. kravchenko", 0.75},
		{"lower-case initial without a surname", "notes by wanda j. today", "wanda", 0},
	})
}

func TestURLSharingContext(t *testing.T) {
	runScoreCases(t, URL, []scoreCase{
		{"shared files", "I've shared files with you https://www.example.com/x", "https://www.example.com/x", 0.95},
		{"posted a photo", "Just posted a photo https://example.org/p/1", "https://example.org/p/1", 0.95},
		{"no sharing word", "The docs are at https://example.org/p/1 now", "https://example.org/p/1", 0.6},
	})
}

func TestStreetCorners(t *testing.T) {
	runScoreCases(t, StreetAddress, []scoreCase{
		{"capitalised streets", "It happened at the corner of Main and Elm yesterday", "Main and Elm", 0.75},
		{"numbered lower-case streets", "the corner of hollis 77 and quarry lane", "hollis 77 and quarry lane", 0.75},
		{"street types with dots", "Stop at the corner of 11 Quarry Road St. and Hollis Way St.", "Hollis Way St.", 1},
		{"ampersand", "Corner of 5th Ave & 42nd St, downtown", "5th Ave & 42nd St", 0.75},
		{"corner of the eye", "out of the corner of his eye and then", "corner", 0},
		{"places are no streets", "the corner of Europe and Asia", "Europe and Asia", 0},
		{"no second street", "the corner of Main was empty", "Main", 0},
		{"drop-off context", "the taxi drops you at 5120 hollis 14", "5120 hollis 14", 0.85},
	})
}

func TestPersonFormerMember(t *testing.T) {
	runScoreCases(t, Person, []scoreCase{
		{"ex- before a census surname", "This song by ex-Zombie Whitfield is great", "Whitfield", 0.8},
		{"ex- before an unknown word", "the ex-Soviet Quorvax region", "Quorvax", 0.35},
		{"no ex- prefix", "This song by Zombie Whitfield is great", "Zombie Whitfield", 0.75},
	})
}
