package storetest

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/evalcol/evalcol/internal/warehouse"
)

func testSettings(t *testing.T, open Opener) {
	st := openStore(t, open)
	ss, ok := st.(warehouse.SettingStore)
	if !ok {
		t.Fatalf("%T does not keep settings (warehouse.SettingStore)", st)
	}
	ctx := context.Background()
	secret := []byte{0, 1, 2, 0xff, 'a', '\'', '"', 0x1e}
	got, err := ss.InitSetting(ctx, "console.secret", secret)
	if err != nil || len(got) != 1 || !bytes.Equal(got[0], secret) {
		t.Fatalf("first init: %q, %v", got, err)
	}
	// A later init keeps the stored value.
	got, err = ss.InitSetting(ctx, "console.secret", []byte("another"))
	if err != nil || len(got) != 1 || !bytes.Equal(got[0], secret) {
		t.Fatalf("second init: %q, %v; want the first value", got, err)
	}
	if got, err := ss.InitSetting(ctx, "other.key", []byte("x")); err != nil || len(got) != 1 || string(got[0]) != "x" {
		t.Fatalf("other key: %q, %v", got, err)
	}
	// Concurrent first inits: whatever each caller got is stored, and
	// every later caller sees the same first value.
	const n = 8
	firsts := make([][]byte, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v, err := ss.InitSetting(ctx, "race", []byte(fmt.Sprintf("value-%d", i)))
			if err != nil || len(v) == 0 {
				t.Errorf("racing init %d: %q, %v", i, v, err)
				return
			}
			firsts[i] = v[0]
		}()
	}
	wg.Wait()
	final, err := ss.InitSetting(ctx, "race", []byte("late"))
	if err != nil || len(final) == 0 {
		t.Fatalf("after the race: %q, %v", final, err)
	}
	for i, f := range firsts {
		found := false
		for _, v := range final {
			found = found || bytes.Equal(f, v)
		}
		if !found {
			t.Errorf("caller %d signed with %q, which is not stored (%q)", i, f, final)
		}
	}
	again, _ := ss.InitSetting(ctx, "race", []byte("later"))
	if len(again) == 0 || !bytes.Equal(again[0], final[0]) {
		t.Errorf("first value changed: %q, then %q", final, again)
	}
}
