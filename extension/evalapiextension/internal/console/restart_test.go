package console_test

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/evalcol/evalcol/internal/testcollector"
)

// TestSessionSurvivesRestart: a session cookie issued by a collector is
// still accepted after the collector restarts on the same warehouse (the
// generated session secret is kept there), and not by a collector with
// another warehouse.
func TestSessionSurvivesRestart(t *testing.T) {
	c := testcollector.Start(t, consoleConfig)
	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	get := func(base, path string) (int, string) {
		resp, err := client.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	base := "http://" + c.API
	_, form := get(base, "/ui/login")
	m := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindStringSubmatch(form)
	if m == nil {
		t.Fatal("login form without CSRF token")
	}
	resp, err := client.PostForm(base+"/ui/login", url.Values{"csrf": {m[1]}, "api_key": {prodKey}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 303 {
		t.Fatalf("login = %d", resp.StatusCode)
	}
	if status, _ := get(base, "/ui/evaluators"); status != 200 {
		t.Fatalf("before the restart: %d", status)
	}
	c.Stop()
	restarted, err := testcollector.StartWithPorts(t, consoleConfig, c.Ports)
	if err != nil {
		t.Fatal(err)
	}
	if status, body := get("http://"+restarted.API, "/ui/evaluators"); status != 200 || !strings.Contains(body, `id="tenant-env">production<`) {
		t.Fatalf("after the restart: %d, want the page of the same session", status)
	}
	// Another warehouse has another secret: the cookie means nothing there.
	other := testcollector.Start(t, consoleConfig)
	u, _ := url.Parse(base + "/ui/")
	for _, ck := range jar.Cookies(u) {
		ou, _ := url.Parse("http://" + other.API + "/ui/")
		jar.SetCookies(ou, []*http.Cookie{{Name: ck.Name, Value: ck.Value, Path: "/ui/"}})
	}
	if status, _ := get("http://"+other.API, "/ui/evaluators"); status != 303 {
		t.Errorf("another warehouse's collector took the cookie: %d, want a redirect to login", status)
	}
}
