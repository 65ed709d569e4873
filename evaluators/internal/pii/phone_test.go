package pii

import (
	"testing"

	"github.com/nyaruka/phonenumbers"
)

// TestPhonePrecheckKeepsValidNumbers checks that the pre-check of every
// region is in place and lets through the example numbers libphonenumber
// itself considers valid, of every number type.
func TestPhonePrecheckKeepsValidNumbers(t *testing.T) {
	types := []phonenumbers.PhoneNumberType{phonenumbers.FIXED_LINE, phonenumbers.MOBILE, phonenumbers.TOLL_FREE, phonenumbers.PREMIUM_RATE, phonenumbers.VOIP}
	for _, r := range phoneRegionInfo {
		t.Run(r.code, func(t *testing.T) {
			if r.lengths == 0 || r.general == nil {
				t.Fatalf("region %s has no pre-check (lengths %b, pattern %v)", r.code, r.lengths, r.general)
			}
			for _, typ := range types {
				n := phonenumbers.GetExampleNumberForType(r.code, typ)
				if n == nil || !phonenumbers.IsValidNumberForRegion(n, r.code) {
					continue
				}
				national := phonenumbers.GetNationalSignificantNumber(n)
				if national[0] == '0' {
					continue // Italian leading zero: phoneValid never builds such numbers
				}
				if !r.mayBeValid(national) {
					t.Errorf("mayBeValid(%q) = false for a valid %v number", national, typ)
				}
				if !phoneValid(r.trunk+national) && !phoneValid(national) {
					t.Errorf("phoneValid rejects the valid %v number %q", typ, national)
				}
			}
		})
	}
}

func TestPhonePrecheckRejects(t *testing.T) {
	us := phoneRegionInfo[0]
	if us.code != "US" {
		t.Fatalf("first phone region is %s, want US", us.code)
	}
	tests := []struct{ name, national string }{
		{"too short", "541714"},
		{"too long", "54171413881"},
		{"area code starting with 1", "1417141388"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if us.mayBeValid(tc.national) {
				t.Errorf("mayBeValid(%q) = true in US, want false", tc.national)
			}
		})
	}
}
