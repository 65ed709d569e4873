package console

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"strings"

	"go.uber.org/zap"

	"github.com/evalcol/evalcol/extension/evalapiextension/internal/httpapi"
	"github.com/evalcol/evalcol/internal/tenant"
)

type sessionKey struct{}

// sessionFrom returns the session that authed put in ctx.
func sessionFrom(ctx context.Context) session {
	s, _ := ctx.Value(sessionKey{}).(session)
	return s
}

// authed wraps a handler that needs a session. Without a valid one a GET
// is redirected to the login page (which returns to it after login) and
// anything else is answered 401. A request that changes something must
// also carry the session's CSRF token in the form field "csrf" and must
// not come from another site.
func (c *Console) authed(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		sess, ok, err := c.currentSession(r)
		if err != nil {
			c.unavailable(w, r, err)
			return
		}
		if !ok {
			if r.Method == http.MethodGet || r.Method == http.MethodHead {
				http.Redirect(w, r, "/ui/login?next="+url.QueryEscape(r.URL.RequestURI()), http.StatusSeeOther)
				return
			}
			c.renderError(w, r, http.StatusUnauthorized, "Not logged in", "Your session has expired or you are not logged in. Log in again.")
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			if !c.parseForm(w, r) {
				return
			}
			if !c.sameSite(r) || !c.signer.checkCSRF(r.Context(), r.PostFormValue("csrf"), "session", sess.ID) {
				c.renderError(w, r, http.StatusForbidden, "Form expired", "This form was not sent from this console session (missing or wrong CSRF token). Reload the page and try again.")
				return
			}
		}
		ctx := context.WithValue(tenant.NewContext(r.Context(), sess.tenant()), sessionKey{}, sess)
		w.Header().Set("Cache-Control", "no-store")
		h(w, r.WithContext(ctx))
	}
}

// parseForm parses a posted form, answering 413 itself when the body is
// over the limit (ok false).
func (c *Console) parseForm(w http.ResponseWriter, r *http.Request) bool {
	if err := r.ParseForm(); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			c.renderError(w, r, http.StatusRequestEntityTooLarge, "Form too large", fmt.Sprintf("The form is larger than the limit of %d bytes.", tooBig.Limit))
			return false
		}
		c.renderError(w, r, http.StatusBadRequest, "Bad form", "The form could not be read: "+err.Error())
		return false
	}
	return true
}

// sameSite reports whether a state-changing request may come from this
// console (a second line behind the CSRF token). Browsers send
// Sec-Fetch-Site on form posts: only same-origin (or none, typed by the
// user) passes. Without it, an Origin header must name this host: the
// Host header, or X-Forwarded-Host when the request comes from one of
// TrustedProxies (a proxy that rewrites Host). Anyone can send
// X-Forwarded-Host, so from any other peer it is ignored.
func (c *Console) sameSite(r *http.Request) bool {
	switch r.Header.Get("Sec-Fetch-Site") {
	case "same-origin", "none":
		return true
	case "":
	default:
		return false
	}
	o := r.Header.Get("Origin")
	if o == "" || o == "null" {
		return true
	}
	u, err := url.Parse(o)
	if err != nil {
		return false
	}
	if u.Host == r.Host {
		return true
	}
	fwd := r.Header.Get("X-Forwarded-Host")
	return fwd != "" && u.Host == fwd && c.fromTrustedProxy(r)
}

// fromTrustedProxy reports whether r's peer address is in TrustedProxies.
func (c *Console) fromTrustedProxy(r *http.Request) bool {
	if len(c.opts.TrustedProxies) == 0 {
		return false
	}
	ap, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil {
		return false
	}
	addr := ap.Addr().Unmap()
	for _, p := range c.opts.TrustedProxies {
		if p.Contains(addr) {
			return true
		}
	}
	return false
}

// secure reports whether cookies must be Secure for r.
func (c *Console) secure(r *http.Request) bool { return c.opts.SecureCookies || r.TLS != nil }

func (c *Console) setCookie(w http.ResponseWriter, r *http.Request, name, value string, maxAge int) {
	http.SetCookie(w, &http.Cookie{
		Name: name, Value: value, Path: "/ui/", MaxAge: maxAge,
		HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: c.secure(r),
	})
}

// loginForm is the data of the login page.
type loginForm struct {
	Next  string
	Error string
}

func (c *Console) loginPage(w http.ResponseWriter, r *http.Request) {
	if _, ok, _ := c.currentSession(r); ok {
		http.Redirect(w, r, safeNext(r.URL.Query().Get("next")), http.StatusSeeOther)
		return
	}
	c.renderLogin(w, r, http.StatusOK, loginForm{Next: safeNext(r.URL.Query().Get("next"))})
}

// renderLogin renders the login form with a fresh login nonce and its
// CSRF token.
func (c *Console) renderLogin(w http.ResponseWriter, r *http.Request, status int, form loginForm) {
	nonce := randomToken()
	token, err := c.signer.csrfToken(r.Context(), "login", nonce)
	if err != nil {
		c.unavailable(w, r, err)
		return
	}
	c.setCookie(w, r, loginCookie, nonce, 3600)
	w.Header().Set("Cache-Control", "no-store")
	c.render(w, r, status, "login", page{Title: "Log in", CSRF: token, Data: form})
}

// login exchanges an API key for a session cookie. The key is checked by
// the API's keyring (tenant.SecretFromAuthorization accepts the bare key or
// "Bearer <key>", as the API does); a wrong key is a 401 with no session.
func (c *Console) login(w http.ResponseWriter, r *http.Request) {
	if !c.parseForm(w, r) {
		return
	}
	next := safeNext(r.PostFormValue("next"))
	nonce := ""
	if ck, err := r.Cookie(loginCookie); err == nil {
		nonce = ck.Value
	}
	if !c.sameSite(r) || !c.signer.checkCSRF(r.Context(), r.PostFormValue("csrf"), "login", nonce) {
		c.renderLogin(w, r, http.StatusForbidden, loginForm{Next: next, Error: "The login form expired. Enter your API key again."})
		return
	}
	secret := tenant.SecretFromAuthorization(r.PostFormValue("api_key"))
	t, ok := c.opts.Keys.Lookup(secret)
	if !ok {
		msg := "Invalid API key."
		if strings.TrimSpace(r.PostFormValue("api_key")) == "" {
			msg = "Enter an API key."
		}
		c.renderLogin(w, r, http.StatusUnauthorized, loginForm{Next: next, Error: msg})
		return
	}
	value, err := c.startSession(r.Context(), t, sha256.Sum256([]byte(secret)), httpapi.KeyFingerprint(secret))
	if err != nil {
		c.unavailable(w, r, err)
		return
	}
	c.setCookie(w, r, sessionCookie, value, int(c.opts.SessionTTL.Seconds()))
	c.setCookie(w, r, loginCookie, "", -1)
	c.opts.Logger.Info("console login", zap.String("environment", t.Environment))
	http.Redirect(w, r, next, http.StatusSeeOther)
}

// logout ends the session in the warehouse, so that a copy of the
// cookie is refused too, then clears the cookie.
func (c *Console) logout(w http.ResponseWriter, r *http.Request) {
	if err := c.endSession(r); err != nil {
		c.unavailable(w, r, err)
		return
	}
	c.setCookie(w, r, sessionCookie, "", -1)
	http.Redirect(w, r, "/ui/login", http.StatusSeeOther)
}

// safeNext returns next when it is a console path of this server, else
// the traces page: a login never redirects to another site.
func safeNext(next string) string {
	const fallback = "/ui/traces"
	if !strings.HasPrefix(next, Prefix) || strings.ContainsAny(next, "\\\r\n") || strings.HasPrefix(next, "/ui/login") {
		return fallback
	}
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil {
		return fallback
	}
	return next
}
