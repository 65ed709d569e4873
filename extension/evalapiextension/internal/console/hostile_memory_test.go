package console_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/evalcol/evalcol/internal/testcollector"
	"github.com/evalcol/evalcol/internal/warehouse/clickhouse"
)

// Issue #32, item 1: one tenant made the collector refuse other tenants'
// spans. It stored 1 000 setups of ~125 KB (each within the request
// limits), then had the console's monitors page (all setups, unpaged: a
// 65 MB page) and GET /v2/auto-monitor-setups?limit=1000 rendered, three
// at once; the heap grew by ~850 MiB and memory_limiter answered another
// tenant's OTLP with 503.
//
// Scaled down: the attacker tries 120 such setups, then renders the
// monitors page and the listing three times each at once, while another
// tenant sends OTLP through a memory_limiter. The other tenant must see
// no refusal, every answer must stay within the page bounds, and the
// heap may grow by at most the documented bound per request.

// The documented bounds on what one console or API request built from
// setups adds to the heap (BENCHMARKS.md, "Memory per request built from
// setups"): on ClickHouse each warehouse query also allocates the
// driver's block buffers (the monitors page makes one query per setup
// for its last evaluation).
const (
	memBoundSQLite     = 16 << 20
	memBoundClickHouse = 48 << 20
)

const memoryConfig = `
extensions:
  evalapi:
    endpoint: {{.API}}
    setup_poll_interval: 1s
    warehouse: {backend: sqlite, path: {{.DataDir}}/evalcol.db}
    api_keys:
      - {key: ` + prodKey + `, environment: production, organization_id: acme, project_id: web}
      - {key: ` + stagingKey + `, environment: staging, organization_id: other, project_id: web}
receivers:
  otlp:
    protocols:
      http: {endpoint: {{.OTLPHTTP}}, auth: {authenticator: evalapi}}
processors:
  memory_limiter: {check_interval: 50ms, limit_mib: 192, spike_limit_mib: 64}
  tenant: {}
exporters:
  warehouse: {api: evalapi}
service:
  telemetry: {metrics: {level: none}, logs: {level: error}}
  extensions: [evalapi]
  pipelines:
    traces: {receivers: [otlp], processors: [memory_limiter, tenant], exporters: [warehouse]}
`

// attackSetup is a setup at every request limit: 63 unknown evaluator
// names of 256 bytes, a 16 KiB selector, a 1 KiB entity value.
func attackSetup(i int) string {
	names := make([]string, 63)
	for j := range names {
		names[j] = fmt.Sprintf("%q", fmt.Sprintf("%03d-%s", j, strings.Repeat("n", 252)))
	}
	var kv []string
	for j := range 60 {
		kv = append(kv, fmt.Sprintf(`"key-%02d":%q`, j, strings.Repeat("v", 240)))
	}
	return fmt.Sprintf(`{"external_id":"attack-%04d","entity_type":"workflow","entity_value":%q,"evaluators":[%s],"selector":{%s}}`,
		i, strings.Repeat("e", 1024), strings.Join(names, ","), strings.Join(kv, ","))
}

// heapPeak samples the live heap every millisecond until stop and
// returns the highest value seen.
func heapPeak(stop <-chan struct{}) <-chan uint64 {
	out := make(chan uint64, 1)
	go func() {
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		var peak uint64
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(s)
			peak = max(peak, s[0].Value.Uint64())
			select {
			case <-stop:
				out <- peak
				return
			case <-t.C:
			}
		}
	}()
	return out
}

func liveHeap() uint64 {
	runtime.GC()
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// memoryChildEnv marks the test process that runs the memory test alone.
const memoryChildEnv = "EVALCOL_MEMORY_TEST_CHILD"

// runAlone runs the calling test again in a process of its own (the same
// test binary, so with the same flags, -race included) and reports its
// result: the heap measurements and memory_limiter read the process's
// whole heap, which the package's other tests would otherwise share. It
// returns true in that child, where the test body then runs.
func runAlone(t *testing.T) bool {
	t.Helper()
	if os.Getenv(memoryChildEnv) == "1" {
		return true
	}
	cmd := exec.Command(os.Args[0], "-test.run", "^"+t.Name()+"$", "-test.v", "-test.count=1")
	// Deployed as BENCHMARKS.md ("Overload and bursts") advises: GOMEMLIMIT
	// beside memory_limiter, here just under its soft limit (192 - 64 MiB),
	// so that the collector's garbage is collected before the limiter
	// counts it. Without it a CPU-starved GC (CI runs every package at
	// once) let garbage alone cross the soft limit, and the limiter, which
	// forces a GC at most every 10 s, refused 6 of 80 of the other
	// tenant's requests (CI, 2026-11-28) though the heap sampled during
	// the concurrent rounds peaked under 64 MiB.
	cmd.Env = append(os.Environ(), memoryChildEnv+"=1", "GOMEMLIMIT=120MiB")
	out, err := cmd.CombinedOutput()
	for _, line := range strings.Split(string(out), "\n") {
		if strings.Contains(line, ".go:") || strings.HasPrefix(strings.TrimSpace(line), "---") {
			t.Log(strings.TrimSpace(line))
		}
	}
	if err != nil {
		t.Fatalf("%s in a process of its own: %v", t.Name(), err)
	}
	return false
}

func TestHostileSetupFloodSparesOtherTenants(t *testing.T) {
	if !runAlone(t) {
		return
	}
	t.Run("sqlite", func(t *testing.T) { testSetupFlood(t, memoryConfig, memBoundSQLite) })
	t.Run("clickhouse", func(t *testing.T) {
		addr := os.Getenv("EVALCOL_CLICKHOUSE_ADDR")
		if addr == "" {
			t.Skip("EVALCOL_CLICKHOUSE_ADDR is not set (scripts/clickhouse.sh start prints it)")
		}
		db := fmt.Sprintf("evalcol_flood_%x", time.Now().UnixNano())
		t.Cleanup(func() {
			_ = clickhouse.DropDatabase(context.Background(), clickhouse.Options{Addr: addr, Database: db})
		})
		// A 2 MiB cap keeps the run short on ClickHouse (16 setups, two
		// listing pages); the defaults are what the SQLite run covers.
		testSetupFlood(t, strings.Replace(memoryConfig, "warehouse: {backend: sqlite, path: {{.DataDir}}/evalcol.db}",
			"warehouse: {backend: clickhouse, endpoint: "+addr+", database: "+db+"}\n    max_setup_bytes_per_environment: 2097152", 1), memBoundClickHouse)
	})
}

func testSetupFlood(t *testing.T, config string, memBoundPerRequest int64) {
	c := testcollector.Start(t, config)
	base := "http://" + c.API

	// The other tenant sends spans throughout.
	stopOTLP := make(chan struct{})
	var sent, failed atomic.Int64
	var paused atomic.Bool // while one request is measured alone
	var phase atomic.Value // what the attacker is doing, for failure messages
	phase.Store("attack")
	var failures sync.Map
	var otlp sync.WaitGroup
	otlp.Add(1)
	go func() {
		defer otlp.Done()
		for {
			select {
			case <-stopOTLP:
				return
			default:
			}
			if paused.Load() {
				time.Sleep(5 * time.Millisecond)
				continue
			}
			_, err := c.Send(testcollector.HTTP, stagingKey, nil, func(tr trace.Tracer) {
				for i := range 20 {
					_, sp := tr.Start(context.Background(), "chat", trace.WithAttributes(attribute.Int("i", i)))
					sp.End()
				}
			})
			sent.Add(1)
			if err != nil {
				failed.Add(1)
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				failures.Store(fmt.Sprintf("during %s (heap alloc %d MiB): %v", phase.Load(), ms.HeapAlloc>>20, err), true)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()

	// The attack: as many setups at every limit as the collector takes.
	created, refused := 0, ""
	for i := range 120 {
		r := c.Call("POST", "/v2/auto-monitor-setups", prodKey, []byte(attackSetup(i)))
		if r.Status == http.StatusConflict {
			refused = string(r.Body)
			break
		}
		if r.Status != http.StatusCreated {
			t.Fatalf("setup %d: %d %s", i, r.Status, r.Body)
		}
		created++
	}
	t.Logf("the attacker stored %d setups of ~125 KB; then: %s", created, refused)
	if !strings.Contains(refused, "max_setup_bytes_per_environment") {
		t.Errorf("120 setups of 125 KB were not refused by the environment's byte cap (stored %d)", created)
	}

	// A console session of the attacker's key.
	jar, _ := cookiejar.New(nil)
	browser := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := browser.Get(base + "/ui/login")
	if err != nil {
		t.Fatal(err)
	}
	form, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	m := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindSubmatch(form)
	if m == nil {
		t.Fatal("login form without CSRF token")
	}
	if resp, err = browser.PostForm(base+"/ui/login", url.Values{"csrf": {string(m[1])}, "api_key": {prodKey}}); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()

	get := func(cl *http.Client, path, key string) (int, int) {
		req, _ := http.NewRequest("GET", base+path, nil)
		if key != "" {
			req.Header.Set("Authorization", "Bearer "+key)
		}
		resp, err := cl.Do(req)
		if err != nil {
			t.Error(err)
			return 0, 0
		}
		defer resp.Body.Close()
		n, _ := io.Copy(io.Discard, resp.Body)
		return resp.StatusCode, int(n)
	}
	// One request alone, for BENCHMARKS.md: measured with GC at 25 %
	// growth (GOGC=25) rather than 100 %, so that the peak follows what
	// the request holds rather than how much garbage the pacer lets pile
	// up. The rounds below run at the default, as a collector does.
	// The other tenant pauses, so that its spans are not counted in the
	// request's growth.
	phase.Store("requests alone")
	paused.Store(true)
	time.Sleep(50 * time.Millisecond) // its request in flight ends
	gcPercent := debug.SetGCPercent(25)
	for _, one := range []struct {
		name, path, key string
		cl              *http.Client
	}{{"console /ui/monitors", "/ui/monitors", "", browser}, {"GET /v2/auto-monitor-setups?limit=1000", "/v2/auto-monitor-setups?limit=1000", prodKey, http.DefaultClient}} {
		before := liveHeap()
		stop := make(chan struct{})
		peak := heapPeak(stop)
		status, n := get(one.cl, one.path, one.key)
		close(stop)
		growth := int64(<-peak) - int64(before)
		t.Logf("%s alone: %d, %d bytes, heap +%.1f MiB", one.name, status, n, float64(growth)/(1<<20))
		if growth > memBoundPerRequest {
			t.Errorf("%s alone grew the heap by %d MiB, over the %d MiB bound", one.name, growth>>20, memBoundPerRequest>>20)
		}
	}
	debug.SetGCPercent(gcPercent)
	paused.Store(false)
	const concurrent = 3
	var maxGrowth uint64
	for round := range 3 {
		phase.Store(fmt.Sprintf("round %d", round))
		before := liveHeap()
		stop := make(chan struct{})
		peak := heapPeak(stop)
		var wg sync.WaitGroup
		var mu sync.Mutex
		var sizes []string
		for range concurrent {
			wg.Add(2)
			go func() {
				defer wg.Done()
				status, n := get(browser, "/ui/monitors", "")
				mu.Lock()
				sizes = append(sizes, fmt.Sprintf("console %d: %d B", status, n))
				mu.Unlock()
				if status != http.StatusOK || n > 2<<20 {
					t.Errorf("monitors page: %d, %d bytes (bound 2 MiB)", status, n)
				}
			}()
			go func() {
				defer wg.Done()
				status, n := get(http.DefaultClient, "/v2/auto-monitor-setups?limit=1000", prodKey)
				mu.Lock()
				sizes = append(sizes, fmt.Sprintf("api %d: %d B", status, n))
				mu.Unlock()
				if status != http.StatusOK || n > 1<<20+200<<10 {
					t.Errorf("setups listing: %d, %d bytes (bound 1 MiB and one setup)", status, n)
				}
			}()
		}
		wg.Wait()
		close(stop)
		pk := <-peak
		var growth uint64
		if pk > before {
			growth = pk - before
		}
		maxGrowth = max(maxGrowth, growth)
		t.Logf("round %d: live heap %d MiB before, peak +%d MiB during %d requests; %v", round, before>>20, growth>>20, 2*concurrent, sizes)
	}
	if bound := uint64(2 * concurrent * memBoundPerRequest); maxGrowth > bound {
		t.Errorf("%d console and API requests at once grew the heap by %d MiB, over %d MiB (%d MiB each)", 2*concurrent, maxGrowth>>20, bound>>20, memBoundPerRequest>>20)
	}
	close(stopOTLP)
	otlp.Wait()
	if failed.Load() > 0 {
		var msgs []string
		failures.Range(func(k, _ any) bool { msgs = append(msgs, k.(string)); return true })
		t.Errorf("the other tenant's OTLP: %d of %d requests failed: %v", failed.Load(), sent.Load(), msgs)
	}
	t.Logf("the other tenant sent %d OTLP requests, %d failed", sent.Load(), failed.Load())
	if sent.Load() < 3 { // a loaded CI machine sends few; none may fail
		t.Errorf("the other tenant sent only %d OTLP requests during the attack", sent.Load())
	}
}
