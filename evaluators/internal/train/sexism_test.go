package main

import (
	"slices"
	"testing"
)

func TestSexismTargets(t *testing.T) {
	rows := []edosRow{
		{ID: "a", Text: "t0", Label: false, Category: "none"},
		{ID: "b", Text: "t1", Label: true, Category: "2. derogation"},
		{ID: "c", Text: "t2", Label: true, Category: "3. animosity"},
		{ID: "d", Text: "t3", Label: true, Category: "1. threats, plans to harm and incitement"},
	}
	texts, targets := sexismTargets(rows)
	if !slices.Equal(texts, []string{"t0", "t1", "t2", "t3"}) {
		t.Errorf("texts = %q", texts)
	}
	want := [][]bool{
		{false, true, true, true},   // sexist
		{false, true, false, false}, // 2. derogation
		{false, false, true, false}, // 3. animosity
	}
	if len(targets) != len(want) {
		t.Fatalf("%d targets, want %d", len(targets), len(want))
	}
	for i := range want {
		if !slices.Equal(targets[i], want[i]) {
			t.Errorf("target %d = %v, want %v", i, targets[i], want[i])
		}
	}
}

func TestSexismOptionsMembersUseKnownTargets(t *testing.T) {
	for i, m := range sexismOptions.Members {
		if m.Target < 0 || m.Target > len(sexismCategories) {
			t.Errorf("member %d: target %d outside 0..%d", i, m.Target, len(sexismCategories))
		}
	}
}
